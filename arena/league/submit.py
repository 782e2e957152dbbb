"""``arena submit``: check a submission, play it a validation game, store it, join the ladder.

Nothing is written until the submission has been checked and its validation game played: a
refused archive, a wrong token or a bot name of another user leaves no row and no file. A
bot that faults in its validation game is stored as a *rejected* version, with the fault.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arena import submission
from arena.bot_specs import SAMPLE_BOTS, BotSpec
from arena.ladder import grow
from arena.limits import Limits
from arena.play import GameSettings, play_game
from arena.sandbox import Sandbox
from arena.store import (
    BotVersion,
    MatchSpec,
    NameTaken,
    NotFound,
    Store,
    Tournament,
    TournamentKind,
    VersionStatus,
)

from .files import code_key

LADDER = "ladder"  # the open-ended tournament every active version joins
VALIDATION_OPPONENT = "random"
VALIDATION_SEED = 20261130


@dataclass(frozen=True)
class Submitted:
    version: BotVersion
    new: bool  # False: this very code was submitted before
    scheduled: int  # ladder matches scheduled for it


def submit(
    store: Store,
    sandbox: Sandbox,
    *,
    token: str,
    path: Path,
    name: str,
    limits: Limits = Limits(),  # noqa: B008 (a frozen value)
) -> Submitted:
    user = store.authenticate(token)
    try:
        if store.bot(name).owner_id != user.id:
            raise NameTaken(f"bot name {name!r} belongs to another user")
        known = {v.content_hash: v for v in store.versions(name)}
    except NotFound:
        known = {}
    with submission.opened(path) as bot_dir:
        digest = submission.content_hash(bot_dir)
        if digest in known and known[digest].status != VersionStatus.PENDING:
            return Submitted(known[digest], new=False, scheduled=0)
        fault = validate(bot_dir, sandbox, limits)
        code = submission.pack(bot_dir)
    # The code and the version in one transaction: a crash leaves both or neither.
    version = store.add_version(user, name, digest, code_key(digest), code)
    version_id = version.id
    assert version_id is not None
    if fault is not None:
        version = store.set_status(version_id, VersionStatus.REJECTED, fault)
        return Submitted(version, new=True, scheduled=0)
    for older in store.versions(name):
        if older.status == VersionStatus.ACTIVE and older.id is not None:
            store.set_status(older.id, VersionStatus.RETIRED, f"replaced by v{version.number}")
            store.cancel_queued(version_id=older.id)  # off the ladder: its rest isn't played
    version = store.set_status(version_id, VersionStatus.ACTIVE)
    return Submitted(version, new=True, scheduled=join_ladder(store, version))


def validate(bot_dir: Path, sandbox: Sandbox, limits: Limits) -> str | None:
    """One game with two copies of the bot against two random bots: the fault, if any."""
    bot = BotSpec("submission", bot_dir)
    opponent = BotSpec(VALIDATION_OPPONENT, SAMPLE_BOTS / VALIDATION_OPPONENT)
    game = play_game(
        [bot, opponent, bot, opponent], VALIDATION_SEED, sandbox, GameSettings(limits=limits)
    )
    forfeit = game.outcome.forfeit
    if forfeit is not None and forfeit.seat % 2 == 0:
        return f"validation game: {forfeit.reason}: {forfeit.detail}"
    return None


def ladder(store: Store) -> Tournament:
    try:
        return store.tournament(LADDER)
    except NotFound:
        try:
            return store.create_tournament(LADDER, seed=0, kind=TournamentKind.LADDER)
        except NameTaken:  # created meanwhile by another submission
            return store.tournament(LADDER)


def join_ladder(store: Store, version: BotVersion) -> int:
    """Schedule the new entry's matches against every other active entry."""
    tournament = ladder(store)
    assert tournament.id is not None
    others = [
        e.version.id for e in store.active_entries() if e.version.id not in (None, version.id)
    ]
    assert version.id is not None
    start = len(store.matches(tournament.id))
    matches = grow(
        [o for o in others if o is not None],
        version.id,
        tournament.format,  # type: ignore[arg-type]
        tournament.games_per_pairing,
        tournament.seed,
        start,
    )
    specs = [MatchSpec(m.seed, m.teams) for m in matches]  # type: ignore[arg-type]
    store.enqueue(tournament.id, specs)
    return len(specs)
