"""A database as the previous release left it: its schema (migration 0004, Elo in columns of
its own, no tallies, no validations) and rows as that release's code wrote them. Shared by
the store's migration test and the deployment's upgrade test (tests/deploy)."""

from __future__ import annotations

from collections.abc import Sequence

from alembic import command
from sqlalchemy import Connection, text

from arena.store.migrate import alembic_config

PREVIOUS_HEAD = "0004"  # the previous release's newest migration

# One user, two bots' versions, a tournament, one done match, and its ratings, written
# through the old columns as the code at 0004 wrote them. No ``ladder`` tournament: the
# versions are in no open-ended schedule, so nothing here is queued for a worker.
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
ELO_AT_0004 = {"a": 1508.0, "b": 1492.0}  # the cup's ratings in those rows, by bot


def make_previous_release(connection: Connection, rows: Sequence[str] = ROWS_AT_0004) -> None:
    """The 0004 schema on ``connection``'s empty database, and ``rows`` in it."""
    command.upgrade(alembic_config(connection), PREVIOUS_HEAD)
    for statement in rows:
        connection.execute(text(statement))
