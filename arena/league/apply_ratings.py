"""Ratings from finished matches, applied strictly in schedule order (the arithmetic is
``arena.competition``'s, the rows ``arena.store``'s).

A match's rating change is applied only once every match before it in the schedule is done
(or has failed for good, or was cancelled, and is never rated), so the ratings are the same
whichever worker finished first, and however many there were.
"""

from __future__ import annotations

from collections.abc import Iterable

from arena.competition import Entry, ScoredMatch, State, model_named, steps
from arena.competition.pairs import score_of_winner
from arena.store import Match, MatchStatus, Rating, RatingStep, Store, StoreError

NEVER_RATED = (MatchStatus.ERROR, MatchStatus.CANCELLED)


def result_of(match: Match) -> ScoredMatch:
    assert match.points_team0 is not None and match.points_team1 is not None
    totals = (match.points_team0, match.points_team1)
    return ScoredMatch(match.schedule_index, match.teams, totals, score_of_winner(match.winner))


def done_results(matches: Iterable[Match]) -> list[ScoredMatch]:
    return [result_of(m) for m in matches if m.status == MatchStatus.DONE]


def ready_to_rate(matches: list[Match], rated_through: int) -> list[Match]:
    """Done matches after ``rated_through`` with nothing unfinished before them."""
    ready = []
    for match in matches:  # in schedule order
        if match.schedule_index <= rated_through or match.status in NEVER_RATED:
            continue
        if match.status != MatchStatus.DONE:
            break
        ready.append(match)
    return ready


def update_ratings(store: Store, tournament_id: int) -> int:
    """Apply what has become ratable, by the tournament's rating model; returns how many
    matches were applied. Safe to call from several workers at once: a loser of the race
    recomputes from the winner's state."""
    model = model_named(store.tournament_by_id(tournament_id).rating_model)
    for _ in range(20):
        ready = ready_to_rate(store.matches(tournament_id), store.rated_through(tournament_id))
        if not ready:
            return 0
        current = current_states(store.ratings(tournament_id))
        changes = []
        by_index = {m.schedule_index: m for m in ready}
        for index, after in steps(model, map(result_of, ready), start=current):
            match = by_index[index]
            for version, state in after.items():
                assert isinstance(version, int)
                before = current.get(version, model.initial())
                changes.append(
                    RatingStep(
                        _id(match),
                        index,
                        version,
                        before.value,
                        state.value,
                        before.deviation,
                        state.deviation,
                    )
                )
                current[version] = state
        try:
            store.append_ratings(tournament_id, changes)
        except StoreError:
            continue  # another worker applied some of these first
        return len(ready)
    raise StoreError(f"tournament {tournament_id}: ratings kept changing under this worker")


def current_states(ratings: Iterable[Rating]) -> dict[Entry, State]:
    """The stored ratings as the model's states."""
    return {r.version_id: State(r.value, r.deviation) for r in ratings}


def _id(match: Match) -> int:
    assert match.id is not None
    return match.id
