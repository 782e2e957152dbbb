"""Alembic, driven from code: no alembic.ini. The scripts live in ``migrations/``.

Alembic is imported only when a migration is due (or a test asks): every CLI command and
worker opens the store, and loading alembic and its scripts took a third of a second of CPU
that, with the schema already at ``HEAD``, bought nothing.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, inspect, text
from sqlmodel import SQLModel

from . import models  # noqa: F401  (registers the tables on SQLModel.metadata)

if TYPE_CHECKING:
    from alembic.config import Config

log = logging.getLogger("arena.store")

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
HEAD = "0011"  # the newest script's revision: tests/store/test_migrations.py holds it to that
# Two processes opening a fresh PostgreSQL database at once: one migrates, the other waits.
_PG_LOCK_KEY = 0x41524E41  # "ARNA"


def alembic_config(connection: Connection | None = None) -> Config:
    """The configuration ``migrations/env.py`` runs under; it migrates ``connection``."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str | None:
    """The newest script's revision, as alembic reads the scripts."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(connection: Connection) -> str | None:
    """The revision the database is at (None when it has no schema yet), read as alembic
    keeps it: the one row of ``alembic_version``."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


def upgrade_to_head(database: Engine) -> None:
    """Migrate to the newest schema in one transaction (a no-op when already there). The
    process that migrates logs it (event ``schema_migrated``, once it has committed); one
    that finds it done, at once or after waiting for the lock, logs nothing."""
    with database.connect() as probe:
        if current_revision(probe) == HEAD:
            return
    from alembic import command

    head = head_revision()
    migrated: tuple[str | None, float] | None = None  # from which revision, in how long
    with database.connect().execution_options(sqlite_immediate=True) as connection:
        # SQLite alters a table by rebuilding it: dropping the old one while other tables
        # refer to it. Its foreign keys are off meanwhile (outside a transaction is the only
        # time that can be set) and checked whole before the migration commits.
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            connection.connection.dbapi_connection.execute("PRAGMA foreign_keys=OFF")  # type: ignore[union-attr]
        try:
            with connection.begin():
                if connection.dialect.name == "postgresql":
                    connection.execute(
                        text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK_KEY}
                    )
                # Read again under the lock: another process may have migrated meanwhile.
                found = current_revision(connection)
                if found != head:
                    start = time.monotonic()  # the migration's time, not the lock's wait
                    command.upgrade(alembic_config(connection), "head")
                    migrated = (found, time.monotonic() - start)
                if sqlite and connection.exec_driver_sql("PRAGMA foreign_key_check").first():
                    raise RuntimeError("a migration broke a foreign key")
        finally:
            if sqlite:
                connection.connection.dbapi_connection.execute("PRAGMA foreign_keys=ON")  # type: ignore[union-attr]
    if migrated is not None:  # logged once it has committed
        found, seconds = migrated[0], round(migrated[1], 3)
        log.info(
            f"schema migrated from {found or 'nothing'} to {head} in {seconds} s",
            extra={"event": "schema_migrated", "from_revision": found,
                   "to_revision": head, "seconds": seconds},
        )  # fmt: skip


def schema_diff(database: Engine) -> list[Any]:
    """What autogenerate would write for the models against this database (empty when the
    migrations and the models agree), as ``alembic check`` does."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    with database.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "render_as_batch": True}
        )
        return list(compare_metadata(context, SQLModel.metadata))
