"""Workers as they report themselves: who is up, how many slots, when last heard from."""

from __future__ import annotations

import time

from sqlalchemy import update
from sqlmodel import col, select

from .base import StoreBase
from .models import WorkerState


class Workers(StoreBase):
    def worker_started(self, name: str, host: str, slots: int, sandbox: str) -> None:
        now = time.time()
        with self._session(write=True) as session:
            row = session.get(WorkerState, name) or WorkerState(
                name=name, host=host, slots=slots, sandbox=sandbox,
                started_at=now, heartbeat_at=now,
            )  # fmt: skip
            row.host, row.slots, row.sandbox = host, slots, sandbox
            row.started_at = row.heartbeat_at = now
            row.stopped_at = None
            row.matches_done = 0
            session.add(row)

    def worker_alive(self, name: str, *, done: int = 0) -> None:
        """A heartbeat; ``done``: matches finished since the last one."""
        with self._session(write=True) as session:
            session.connection().execute(
                update(WorkerState)
                .where(col(WorkerState.name) == name)
                .values(
                    heartbeat_at=time.time(),
                    matches_done=col(WorkerState.matches_done) + done,
                )
            )

    def worker_stopped(self, name: str) -> None:
        now = time.time()
        with self._session(write=True) as session:
            session.connection().execute(
                update(WorkerState)
                .where(col(WorkerState.name) == name)
                .values(stopped_at=now, heartbeat_at=now)
            )

    def workers(self) -> list[WorkerState]:
        """Every worker ever seen, the most recently heard from first."""
        with self._session() as session:
            query = select(WorkerState).order_by(col(WorkerState.heartbeat_at).desc())
            return list(session.exec(query))
