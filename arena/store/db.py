"""Where the database is, and opening it (SQLAlchemy's ``Engine``, called the database here: the
engine is the rules'), set up for SQLite or PostgreSQL, migrated to the newest schema before
anything else touches it."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, exc
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.pool import ConnectionPoolEntry

from arena.host.home import arena_home

from .errors import StoreError, Unavailable
from .migrate import upgrade_to_head
from .store import Store

SQLITE_BUSY_TIMEOUT_MS = 30_000
CONNECT_TIMEOUT_S = 5


def database_url() -> str:
    """``$ARENA_DATABASE_URL``, else the SQLite file ``$ARENA_HOME/arena.db``."""
    url = os.environ.get("ARENA_DATABASE_URL")
    return url if url else f"sqlite:///{arena_home() / 'arena.db'}"


def masked(url: str | URL) -> str:
    """The URL as it may be shown: the password replaced by ``***``."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except exc.ArgumentError:
        return "<malformed database URL>"


def open_store(url: str | None = None) -> Store:
    """Open (creating it if need be) and migrate the database; a one-line ``StoreError``
    if it can't be reached. ``url`` defaults to ``database_url()``."""
    default = url is None
    text = database_url() if url is None else url
    database = make_database(text, create_dir=default)
    try:
        upgrade_to_head(database)
    except exc.OperationalError as e:
        database.dispose()
        raise Unavailable(f"database {masked(text)} does not answer: {_reason(e, text)}") from e
    except exc.DBAPIError as e:
        database.dispose()
        raise StoreError(f"database {masked(text)}: {_reason(e, text)}") from e
    return Store(database)


def make_database(url: str, *, create_dir: bool = False) -> Engine:
    """The database (SQLAlchemy's ``Engine``) for ``url``: ``postgresql://`` means psycopg 3;
    SQLite gets WAL, a busy timeout, foreign keys, and ``BEGIN IMMEDIATE`` for the store's write
    transactions."""
    try:
        parsed = make_url(url)
    except exc.ArgumentError as e:
        raise StoreError(f"not a database URL: {masked(url)}") from e
    backend = parsed.get_backend_name()
    if backend in ("postgresql", "postgres"):
        if parsed.drivername in ("postgresql", "postgres"):
            parsed = parsed.set(drivername="postgresql+psycopg")
        return create_engine(
            parsed, pool_pre_ping=True, connect_args={"connect_timeout": CONNECT_TIMEOUT_S}
        )
    if backend == "sqlite":
        return _sqlite_engine(parsed, create_dir)
    raise StoreError(f"database {masked(url)}: only sqlite:// and postgresql:// are supported")


def _sqlite_engine(url: URL, create_dir: bool) -> Engine:
    path = url.database
    if not path or path == ":memory:":
        raise StoreError("database sqlite:// needs a file (workers share it)")
    parent = Path(path).expanduser().parent
    if create_dir:
        parent.mkdir(parents=True, exist_ok=True)
    elif not parent.is_dir():
        raise Unavailable(f"database {masked(url)} can't be opened: no directory {parent}")
    database = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
    )

    @event.listens_for(database, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, record: ConnectionPoolEntry) -> None:
        # Let SQLAlchemy (the "begin" hook below) issue BEGIN, not the sqlite3 module.
        dbapi_connection.isolation_level = None
        for pragma in (f"busy_timeout={SQLITE_BUSY_TIMEOUT_MS}", "foreign_keys=ON"):
            dbapi_connection.execute(f"PRAGMA {pragma}")
        _into_wal(dbapi_connection)
        dbapi_connection.execute("PRAGMA synchronous=NORMAL")

    @event.listens_for(database, "begin")
    def _on_begin(connection: Connection) -> None:
        immediate = connection.get_execution_options().get("sqlite_immediate", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return database


def _into_wal(dbapi_connection: sqlite3.Connection) -> None:
    """Put the file in WAL mode (it stays so). Several workers opening a fresh file at once
    race to switch it, and SQLite answers the losers "database is locked" at once, without
    its busy handler: they wait here instead, as long as the busy timeout would have."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            dbapi_connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _reason(error: exc.DBAPIError, url: str) -> str:
    """The driver's message on one line, without the password even if the driver echoed it."""
    lines = [line.strip() for line in str(error.orig).splitlines() if line.strip()]
    reason = lines[0] if lines else type(error.orig).__name__
    reason = reason.removeprefix("connection failed: ")
    password: Any = make_url(url).password
    if password:
        reason = reason.replace(str(password), "***")
    return reason
