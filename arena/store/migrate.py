"""Alembic, driven from code: no alembic.ini. The scripts live in ``migrations/``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, text
from sqlmodel import SQLModel

from . import models  # noqa: F401  (registers the tables on SQLModel.metadata)

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# Two processes opening a fresh PostgreSQL database at once: one migrates, the other waits.
_PG_LOCK_KEY = 0x41524E41  # "ARNA"


def alembic_config(connection: Connection | None = None) -> Config:
    """The configuration ``migrations/env.py`` runs under; it migrates ``connection``."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def upgrade_to_head(engine: Engine) -> None:
    """Migrate to the newest schema in one transaction (a no-op when already there)."""
    head = head_revision()
    with engine.connect() as probe:
        if current_revision(probe) == head:
            return
    with (
        engine.connect().execution_options(sqlite_immediate=True) as connection,
        connection.begin(),
    ):
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK_KEY})
        if current_revision(connection) != head:
            command.upgrade(alembic_config(connection), "head")


def schema_diff(engine: Engine) -> list[Any]:
    """What autogenerate would write for the models against this database (empty when the
    migrations and the models agree), as ``alembic check`` does."""
    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "render_as_batch": True}
        )
        return list(compare_metadata(context, SQLModel.metadata))
