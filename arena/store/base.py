"""The store's database (SQLAlchemy's ``Engine``) and its transactions: every public operation
is one transaction."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from sqlalchemy import Engine, exc
from sqlmodel import Session

from .errors import StoreError, Unavailable

T = TypeVar("T")
RETRIES = 3  # a unique-constraint race (PostgreSQL) is retried: the next try sees the winner


class StoreBase:
    def __init__(self, database: Engine) -> None:
        self.database = database

    @property
    def url(self) -> str:
        return self.database.url.render_as_string(hide_password=True)

    def close(self) -> None:
        self.database.dispose()

    @contextmanager
    def _session(self, *, write: bool = False) -> Iterator[Session]:
        """A transaction, committed when the block ends. ``write``: on SQLite it starts with
        ``BEGIN IMMEDIATE`` (it takes the write lock at once, so it never fails to upgrade a
        read lock halfway)."""
        try:
            with Session(self.database, expire_on_commit=False) as session:
                session.connection(execution_options={"sqlite_immediate": write})
                yield session
                session.commit()
        except exc.OperationalError as e:
            reason = str(e.orig).strip().splitlines()[0] if str(e.orig).strip() else "no answer"
            raise Unavailable(f"database {self.url} does not answer: {reason}") from e

    def _retrying(self, operation: Callable[[Session], T]) -> T:
        """``operation`` in a write transaction, tried again after a unique-constraint race."""
        for attempt in range(RETRIES):
            try:
                with self._session(write=True) as session:
                    return operation(session)
            except exc.IntegrityError as e:
                if attempt == RETRIES - 1:
                    line = str(e.orig).strip().splitlines()[0]
                    raise StoreError(f"refused by the database: {line}") from e
        raise AssertionError("unreachable")
