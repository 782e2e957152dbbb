"""Migration 0006: a database made by the schema before the rating seam (0004, Elo in
columns of its own), with a rated tournament in it, is upgraded without loss."""

from __future__ import annotations

from sqlalchemy import create_engine

from arena.store import RatingModelName, RatingStep, open_store
from arena.store.migrate import schema_diff
from tests.store.previous_release import ROWS_AT_0004, make_previous_release


def test_a_database_rated_by_elo_before_the_seam_is_upgraded_without_loss(db_url: str) -> None:
    engine = create_engine(db_url)
    try:
        with engine.begin() as connection:
            make_previous_release(connection)
    finally:
        engine.dispose()
    store = open_store(db_url)  # migrates to head
    try:
        assert schema_diff(store.database) == []
        cup = store.tournament("cup")
        assert cup.id == 1 and cup.rating_model == "elo"
        assert [(r.version_id, r.value, r.deviation, r.games) for r in store.ratings(1)] == [
            (1, 1508.0, None, 1),
            (2, 1492.0, None, 1),
        ]
        history = [
            (h.version_id, h.value_before, h.value_after, h.deviation_after)
            for h in store.rating_history(1)
        ]
        assert history == [(1, 1500.0, 1508.0, None), (2, 1500.0, 1492.0, None)]
        assert store.rated_through(1) == 0
        # Tournaments made after it choose their model; the default is still Elo.
        weng_lin = store.create_tournament("wl", seed=1, rating_model=RatingModelName.OPENSKILL)
        assert weng_lin.rating_model == "openskill"
        assert store.create_tournament("plain", seed=1).rating_model == "elo"
    finally:
        store.close()


def test_deviations_are_stored_and_read_back(db_url: str) -> None:
    """A Weng-Lin step's mean and sigma come back as written (doubles on both databases)."""
    engine = create_engine(db_url)
    try:
        with engine.begin() as connection:
            make_previous_release(connection, ROWS_AT_0004[:5])
    finally:
        engine.dispose()
    store = open_store(db_url)
    try:
        mu, sigma = 27.123456789012345, 7.987654321098765
        store.append_ratings(1, [RatingStep(1, 0, 1, 25.0, mu, 25 / 3, sigma)])
        [rating] = store.ratings(1)
        assert (rating.value, rating.deviation) == (mu, sigma)
        [step] = store.rating_history(1)
        assert (step.deviation_before, step.deviation_after) == (25 / 3, sigma)
    finally:
        store.close()
