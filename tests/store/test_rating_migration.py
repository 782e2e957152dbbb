"""Migration 0006: a database made by the schema before the rating seam (0004, Elo in
columns of its own), with a rated tournament in it, is upgraded without loss."""

from __future__ import annotations

from alembic import command
from sqlalchemy import create_engine, text

from arena.store import RatingModelName, RatingStep, open_store
from arena.store.migrate import alembic_config, schema_diff

# One user, two bots' versions, a tournament, one done match, and its ratings, written
# through the old columns as the code at 0004 wrote them.
ROWS_AT_0004 = [
    "INSERT INTO users (id, name, created_at, operator) VALUES (1, 'ann', 1.0, false)",
    "INSERT INTO bots (id, name, owner_id, created_at) VALUES (1, 'a', 1, 1.0), (2, 'b', 1, 1.0)",
    "INSERT INTO bot_versions (id, bot_id, number, content_hash, archive_path, status,"
    " created_at) VALUES (1, 1, 1, 'h1', 'code/h1', 'active', 1.0),"
    " (2, 2, 1, 'h2', 'code/h2', 'active', 1.0)",
    "INSERT INTO tournaments (id, name, kind, format, games_per_pairing, seed, limits,"
    " created_at) VALUES (1, 'cup', 'tournament', 'pairs', 1, 5, '{}', 1.0)",
    "INSERT INTO matches (id, tournament_id, schedule_index, seed, seat0, seat1, seat2, seat3,"
    " status, attempts, lease, points_team0, points_team1, winner)"
    " VALUES (1, 1, 0, 9, 1, 2, 1, 2, 'done', 0, 1, 300, 200, 0)",
    "INSERT INTO ratings (tournament_id, version_id, elo, games, through_index)"
    " VALUES (1, 1, 1508.0, 1, 0), (1, 2, 1492.0, 1, 0)",
    "INSERT INTO rating_history (id, tournament_id, match_id, version_id, schedule_index,"
    " elo_before, elo_after) VALUES (1, 1, 1, 1, 0, 1500.0, 1508.0),"
    " (2, 1, 1, 2, 0, 1500.0, 1492.0)",
]


def test_a_database_rated_by_elo_before_the_seam_is_upgraded_without_loss(db_url: str) -> None:
    engine = create_engine(db_url)
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), "0004")
            for statement in ROWS_AT_0004:
                connection.execute(text(statement))
    finally:
        engine.dispose()
    store = open_store(db_url)  # migrates to head
    try:
        assert schema_diff(store.engine) == []
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
            command.upgrade(alembic_config(connection), "0004")
            for statement in ROWS_AT_0004[:5]:
                connection.execute(text(statement))
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
