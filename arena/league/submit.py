"""``arena submit``: check a submission, store it as pending, queue its validation game.

Nothing is written until the submission has been checked (archive safety, size, ``bot.py``):
a refused archive, a wrong token or a bot name of another user leaves no row and no file.
The version is stored *pending*, its code and its queued validation game in one transaction;
a worker plays that game (``validate.py``) and then ``settle`` makes the version *active*
(it joins the ladder) or *rejected*, with the fault.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arena import submission
from arena.competition import grow
from arena.read_model import LADDER
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

from .seed_keys import seed_key
from .stored_files import code_key


@dataclass(frozen=True)
class Submitted:
    version: BotVersion
    new: bool  # False: this very code was submitted before
    scheduled: int  # ladder matches scheduled for it (by its validation, once played)


def submit(store: Store, *, token: str, path: Path, name: str) -> Submitted:
    """Store the checked submission as a pending version with its validation game queued;
    the same code again returns its version (a validation the platform gave up on queued
    anew)."""
    user = store.authenticate(token)
    try:
        if store.bot(name).owner_id != user.id:
            raise NameTaken(f"bot name {name!r} belongs to another user")
        known = {v.content_hash: v for v in store.versions(name)}
    except NotFound:
        known = {}
    with submission.opened(path) as bot_dir:
        digest = submission.content_hash(bot_dir)
        if digest in known:
            version = known[digest]
            if version.status == VersionStatus.PENDING and version.id is not None:
                store.requeue_validation(version.id)
            return Submitted(version, new=False, scheduled=0)
        code = submission.pack(bot_dir)
    # The code, the version and its validation in one transaction: all of them or none.
    version = store.add_version(user, name, digest, code_key(digest), code, validate=True)
    return Submitted(version, new=True, scheduled=0)


def settle(store: Store, version_id: int, fault: str | None) -> Submitted:
    """The validation game's verdict: rejected with ``fault``, or active (replacing the bot's
    earlier active version) with its ladder matches scheduled. A version settled already
    (by an earlier claim of the same game) is left as it is."""
    version = store.version(version_id)
    if version.status != VersionStatus.PENDING:
        return Submitted(version, new=False, scheduled=0)
    if fault is not None:
        return Submitted(store.set_status(version_id, VersionStatus.REJECTED, fault), True, 0)
    bot = store.bot_by_id(version.bot_id)
    for older in store.versions(bot.name):
        if older.status == VersionStatus.ACTIVE and older.id is not None:
            store.set_status(older.id, VersionStatus.RETIRED, f"replaced by v{version.number}")
            store.cancel_queued(version_id=older.id)  # off the ladder: its rest isn't played
    version = store.set_status(version_id, VersionStatus.ACTIVE)
    return Submitted(version, new=True, scheduled=join_ladder(store, version))


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
        seed_key(store, tournament),
        start,
    )
    specs = [MatchSpec(m.seed, m.teams) for m in matches]  # type: ignore[arg-type]
    store.enqueue(tournament.id, specs)
    return len(specs)
