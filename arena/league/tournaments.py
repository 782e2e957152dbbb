"""Tournaments: looked up by name, created with their schedule's first matches queued (a
round-robin: all of them; in one transaction: a crash leaves both or neither), and how many
of their matches are still to be played (the worker's idle check and the CLI's progress
bar)."""

from __future__ import annotations

from collections.abc import Sequence

from arena.competition import Format, round_robin, scheduler_named
from arena.read_model import LADDER
from arena.store import (
    MatchSpec,
    MatchStatus,
    NotFound,
    RatingModelName,
    ScheduleKind,
    Store,
    Tournament,
    TournamentFormat,
)

from .schedules import planned


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
    schedule: ScheduleKind = ScheduleKind.ROUND_ROBIN,
) -> tuple[Tournament, int]:
    """A tournament among the named bots' active versions, its first matches queued by
    ``schedule`` (a round-robin: all of them); with how many. NotFound names the bots without
    an active version; ScheduleError a bad schedule, before anything is stored."""
    active = {e.bot.name: e.version.id for e in store.active_entries()}
    missing = [b for b in bots if b not in active]
    if missing:
        raise NotFound(f"no active version of {', '.join(missing)}")
    entries: list[int | str] = [v for b in bots if (v := active[b]) is not None]
    # A bad schedule stores nothing: the scheduler checks its options, the round-robin the
    # entries (named twice, too many for mixed).
    scheduler_named(schedule, format, games_per_pairing)
    round_robin(entries, format, games_per_pairing)
    secret = store.deal_secret()  # before the transaction: made in one of its own
    first: list[MatchSpec] = []

    def first_matches(tournament: Tournament) -> list[MatchSpec]:
        first[:] = planned(secret, tournament, entries, [], 0)
        return first

    tournament = store.create_tournament(
        name,
        seed=seed,
        format=TournamentFormat(format),
        games_per_pairing=games_per_pairing,
        rating_model=rating,
        limits={} if pace_ms is None else {"pace_ms": pace_ms},  # none: the ladder's pace
        schedule=first_matches,
        schedule_kind=schedule,
    )
    return tournament, len(first)


def unfinished(store: Store, tournament_id: int | None = None) -> int:
    """The matches queued or running, in that tournament (None: in every one)."""
    ids = [tournament_id] if tournament_id is not None else [t.id for t in store.tournaments()]
    counts = [store.status_counts(i) for i in ids if i is not None]
    return sum(c[MatchStatus.QUEUED] + c[MatchStatus.RUNNING] for c in counts)
