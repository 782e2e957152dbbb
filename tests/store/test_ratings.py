"""Ratings: current values per version, and their history in schedule order."""

from __future__ import annotations

import pytest

from arena.store import RatingStep, Store, StoreError
from tests.store.helpers import scheduled


def test_ratings_are_appended_in_schedule_order(store: Store) -> None:
    tournament = scheduled(store, 2)
    assert tournament.id is not None
    first, second = store.matches(tournament.id)
    a, b = first.seat0, first.seat1
    assert first.id is not None and second.id is not None
    assert store.rated_through(tournament.id) == -1
    store.append_ratings(
        tournament.id,
        [
            RatingStep(first.id, 0, a, 1500.0, 1510.0),
            RatingStep(first.id, 0, b, 1500.0, 1490.0),
            RatingStep(second.id, 1, a, 1510.0, 1505.0),
            RatingStep(second.id, 1, b, 1490.0, 1495.0),
        ],
    )
    assert store.rated_through(tournament.id) == 1
    assert [(r.version_id, r.value, r.games) for r in store.ratings(tournament.id)] == [
        (a, 1505.0, 2),
        (b, 1495.0, 2),
    ]
    assert [h.value_after for h in store.rating_history(tournament.id, a)] == [1510.0, 1505.0]
    with pytest.raises(StoreError, match="already applied through schedule index 1"):
        store.append_ratings(tournament.id, [RatingStep(first.id, 0, a, 1.0, 2.0)])
    store.reset_ratings(tournament.id)
    assert store.ratings(tournament.id) == []
    assert store.rated_through(tournament.id) == -1
