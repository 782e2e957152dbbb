"""The ladder tests' fixtures: a fresh ARENA_HOME with SQLite or a PostgreSQL schema."""

from tests.league.conftest import arena, sqlite_arena  # noqa: F401  (fixtures, by name)
