"""A tournament's next matches, chosen by its scheduler (``arena.competition.matchmaking``):
when it is created, when a version joins the ladder, and, for an adaptive schedule, whenever
its queue runs low (a worker calls ``top_up`` after each result).

An adaptive batch appended at schedule length ``n`` is planned from what is stored, and is
the same whoever plans it and whenever: the entries, the ``n`` matches scheduled so far and
the results of those before ``n - lag`` (``lag_for`` the number of entries). It is planned
only once every one of those is finished, so a result that came in out of order is not
read before its turn, and the workers' number and order change nothing. If that plan is
empty (nothing would teach), the tournament waits until all ``n`` are finished and plans
from every result. The batch is stored only if the schedule is still ``n`` long
(``Store.append_planned``, the tournament's row locked): a worker that lost the race reads
the winner's schedule and plans again.

A join is the exception: it is planned in the transaction that settles the version, from
the results of the schedule's finished head at that moment (as a round-robin join's
indexes depend on when it comes).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arena.competition import (
    Entry,
    Situation,
    Table,
    grow,
    model_named,
    scheduler_named,
    states_after,
)
from arena.competition.schedule import match_seeds
from arena.read_model import ScheduleKind, TournamentKind
from arena.store import Match, MatchSpec, MatchStatus, Store, Tournament

from .apply_ratings import result_of
from .seed_keys import key_under

# Matches still in play while an adaptive tournament plans its next batch: the workers keep
# playing meanwhile, and a plan reads results that many matches old. A tenth of the entries,
# 2 to 16: a small ladder's plan sees nearly every result (a 20-bot ladder needed a third
# fewer matches than with 8), a big one's batch of 16 is planned while the last plays.
MIN_LAG, MAX_LAG = 2, 16


def lag_for(entries: int) -> int:
    return min(MAX_LAG, max(MIN_LAG, entries // 10))


FINISHED = (MatchStatus.DONE, MatchStatus.ERROR, MatchStatus.CANCELLED)
ATTEMPTS = 5  # plans stored by another worker meanwhile before this one leaves it to them


def planned(
    secret: bytes,
    tournament: Tournament,
    entries: Sequence[Entry],
    matches: Sequence[Match],
    cutoff: int,
    joining: Entry | None = None,
) -> list[MatchSpec]:
    """The tournament's next tables by its scheduler, seeded for the indexes after
    ``matches``: ``entries`` in the order they joined, results read before ``cutoff``;
    ``joining``: only that new entry's first matches."""
    scheduler = scheduler_named(
        tournament.schedule,
        tournament.format,  # type: ignore[arg-type]
        tournament.games_per_pairing,
    )
    live = [m for m in matches if m.status != MatchStatus.CANCELLED]
    scheduled: list[Table] = [m.teams for m in live]
    situation = Situation(entries, scheduled, joining=joining)
    if scheduler.needs_ranking:
        model = model_named(tournament.rating_model)
        results = [
            result_of(m) for m in matches if m.schedule_index < cutoff and m.status == "done"
        ]
        # The states from these results alone, not the stored ratings (which are as far as
        # the workers have got): the same plan whenever it is made.
        ranking = model.show(results, entries, states_after(model, results, entries))
        situation = Situation(entries, scheduled, ranking, model.scale, joining)
    tables = scheduler.next_tables(situation)
    seeds = match_seeds(key_under(secret, tournament), len(matches), len(tables))
    return [MatchSpec(s, _version_ids(t)) for s, t in zip(seeds, tables, strict=True)]


def ladder_matches(
    secret: bytes,
    tournament: Tournament,
    others: Sequence[int],
    new: int,
    start: int,
    history: Callable[[], list[Match]],
) -> list[MatchSpec]:
    """A version joining the ladder: against every other entry (round-robin), or its first
    placement matches chosen from the results so far (adaptive); seeded under ``secret``."""
    if tournament.schedule == ScheduleKind.ADAPTIVE:
        matches = history()
        entries = [*sorted(others), new]  # version ids: the order they joined
        return planned(secret, tournament, entries, matches, finished_head(matches), new)
    joined = grow(
        list(others),
        new,
        tournament.format,  # type: ignore[arg-type]
        tournament.games_per_pairing,
        key_under(secret, tournament),
        start,
    )
    return [MatchSpec(m.seed, m.teams) for m in joined]  # type: ignore[arg-type]


def due(store: Store, tournament: Tournament) -> bool:
    """An adaptive tournament whose queue is low enough to plan (a count first: reading
    every match waits until it is)."""
    if tournament.schedule != ScheduleKind.ADAPTIVE or tournament.kind == TournamentKind.COMPARE:
        return False
    assert tournament.id is not None
    counts = store.status_counts(tournament.id)
    return counts[MatchStatus.QUEUED] + counts[MatchStatus.RUNNING] <= MAX_LAG


def top_up(store: Store, tournament_id: int) -> int:
    """After a result: the adaptive tournament's next batch, if one is due; how many matches
    were queued."""
    tournament = store.tournament_by_id(tournament_id)
    if not due(store, tournament):
        return 0
    secret = store.deal_secret()
    for _ in range(ATTEMPTS):
        matches = store.matches(tournament_id)
        n = len(matches)
        entries = _entries(store, tournament, matches)
        lag = lag_for(len(entries))
        if finished_head(matches) < n - lag:
            return 0  # more in play, or an earlier one still is: its result plans this batch
        specs = planned(secret, tournament, entries, matches, max(n - lag, 0))
        if not specs and finished_head(matches) == n and n > lag:
            specs = planned(secret, tournament, entries, matches, n)
        if not specs:
            return 0  # nothing would teach more: done, until an entry joins
        if store.append_planned(tournament_id, n, specs):
            return len(specs)
    return 0


def finished_head(matches: Sequence[Match]) -> int:
    """How many matches at the head of the schedule are all finished."""
    for n, m in enumerate(matches):
        if m.status not in FINISHED:
            return n
    return len(matches)


def _entries(store: Store, tournament: Tournament, matches: Sequence[Match]) -> list[Entry]:
    """The ladder's active entries by version id (the order they joined); a tournament's,
    in the order its schedule first seats them."""
    if tournament.kind == TournamentKind.LADDER:
        return sorted(v for e in store.active_entries() if (v := e.version.id) is not None)
    seated = (v for m in matches for v in m.seats)
    return list(dict.fromkeys(seated))


def _version_ids(table: Table) -> tuple[tuple[int, int], tuple[int, int]]:
    (a, b), (c, d) = table
    assert all(isinstance(v, int) for v in (a, b, c, d))  # planned from version ids
    return (int(a), int(b)), (int(c), int(d))
