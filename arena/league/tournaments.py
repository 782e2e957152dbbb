"""Tournaments: looked up by name, created with their whole schedule queued (in one
transaction: a crash leaves both or neither), and how many of their matches are still to be
played (the worker's idle check and the CLI's progress bar)."""

from __future__ import annotations

from collections.abc import Sequence

from arena.competition import Format, round_robin
from arena.read_model import LADDER
from arena.store import (
    MatchSpec,
    MatchStatus,
    NotFound,
    RatingModelName,
    Store,
    Tournament,
    TournamentFormat,
)

from .seed_keys import key_under


def find_tournament(store: Store, name: str) -> Tournament:
    """The tournament named ``name``; NotFound says so, and what to do if it is the ladder."""
    try:
        return store.tournament(name)
    except NotFound:
        if name == LADDER:
            raise NotFound(
                "the ladder is empty: no bot has been submitted yet (arena submit)"
            ) from None
        raise


def create_tournament(
    store: Store,
    name: str,
    bots: Sequence[str],
    format: Format = "pairs",
    games_per_pairing: int = 1,
    seed: int = 0,
    rating: RatingModelName = RatingModelName.ELO,
    *,
    pace_ms: int | None = None,
) -> tuple[Tournament, int]:
    """A round-robin among the named bots' active versions, every match queued; with how
    many. NotFound names the bots without an active version; ScheduleError a bad schedule,
    before anything is stored."""
    active = {e.bot.name: e.version.id for e in store.active_entries()}
    missing = [b for b in bots if b not in active]
    if missing:
        raise NotFound(f"no active version of {', '.join(missing)}")
    entries: list[int | str] = [v for b in bots if (v := active[b]) is not None]
    count = len(round_robin(entries, format, games_per_pairing))  # a bad one stores nothing
    secret = store.deal_secret()  # before the transaction: made in one of its own

    def schedule(tournament: Tournament) -> list[MatchSpec]:
        matches = round_robin(entries, format, games_per_pairing, key_under(secret, tournament))
        return [MatchSpec(m.seed, _version_ids(m.teams)) for m in matches]

    tournament = store.create_tournament(
        name,
        seed=seed,
        format=TournamentFormat(format),
        games_per_pairing=games_per_pairing,
        rating_model=rating,
        limits={} if pace_ms is None else {"pace_ms": pace_ms},  # none: the ladder's pace
        schedule=schedule,
    )
    return tournament, count


def unfinished(store: Store, tournament_id: int | None = None) -> int:
    """The matches queued or running, in that tournament (None: in every one)."""
    ids = [tournament_id] if tournament_id is not None else [t.id for t in store.tournaments()]
    counts = [store.status_counts(i) for i in ids if i is not None]
    return sum(c[MatchStatus.QUEUED] + c[MatchStatus.RUNNING] for c in counts)


def _version_ids(
    teams: tuple[tuple[int | str, int | str], tuple[int | str, int | str]],
) -> tuple[tuple[int, int], tuple[int, int]]:
    (a, b), (c, d) = teams
    assert all(isinstance(v, int) for v in (a, b, c, d))  # scheduled from version ids
    return (int(a), int(b)), (int(c), int(d))
