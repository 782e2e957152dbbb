"""The validation queue: each submitted version's one validation game, for the workers.

Validations are claimed one at a time, in version order: a claim takes the first validation
still queued or running, and only if it is queued (the lock on that row makes concurrent
claimers wait for each other, on PostgreSQL as on SQLite). So versions are accepted or
rejected, and join the ladder, in the order they were stored, however many workers run:
the ladder's schedule is the same. A validation game is short, so one at a time costs little.

Every later call names the claimer by ``worker_id`` and ``lease``, and is refused (changing
nothing) once the validation is no longer that claimer's. Infrastructure failures count as
attempts; the third marks it ``error`` (the version stays pending; submitting the same code
again queues it anew).
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import func, update
from sqlmodel import Session, col, select

from arena.read_model import MatchStatus

from .base import StoreBase
from .errors import NotFound
from .models import Validation
from .queue import MAX_ATTEMPTS, failed_values

WAITING = (MatchStatus.QUEUED, MatchStatus.RUNNING)


def queue_validation(session: Session, version_id: int, now: float) -> None:
    """Queue the version's validation game, in ``session``: anew if it ended in ``error``."""
    existing = session.get(Validation, version_id)
    if existing is None:
        session.add(Validation(version_id=version_id, queued_at=now))
    elif existing.status == MatchStatus.ERROR:
        existing.status, existing.attempts, existing.queued_at = MatchStatus.QUEUED, 0, now
        existing.finished_at = None
        session.add(existing)


class Validations(StoreBase):
    def requeue_validation(self, version_id: int) -> None:
        """Queue the version's validation game again if the platform gave up on it (or it
        was never queued); a queued, running or played one is left as it is."""
        with self._session(write=True) as session:
            queue_validation(session, version_id, time.time())

    def claim_validation(self, worker_id: str, now: float | None = None) -> Validation | None:
        """The first validation in version order, now running for ``worker_id``; None if
        none is queued, or the first is being played (by anyone)."""
        now = time.time() if now is None else now
        with self._session(write=True) as session:
            query = (
                select(Validation)
                .where(col(Validation.status).in_(WAITING))
                .order_by(col(Validation.version_id))
                .limit(1)
                .with_for_update()  # not SKIP LOCKED: the next claimer waits, then sees it run
            )
            validation = session.exec(query).first()
            if validation is None or validation.status != MatchStatus.QUEUED:
                return None
            validation.status = MatchStatus.RUNNING
            validation.worker_id = worker_id
            validation.lease += 1
            validation.heartbeat_at = now
            session.add(validation)
        return validation

    def heartbeat_validation(
        self, version_id: int, worker_id: str, lease: int, now: float | None = None
    ) -> bool:
        now = time.time() if now is None else now
        return self._owned(version_id, worker_id, lease, {"heartbeat_at": now}) is not None

    def finish_validation(
        self,
        version_id: int,
        worker_id: str,
        lease: int,
        *,
        replay_path: str,
        logs_path: str,
        now: float | None = None,
    ) -> bool:
        """Record the played game, once: False when this claimer no longer holds it."""
        now = time.time() if now is None else now
        values: dict[str, Any] = {
            "status": MatchStatus.DONE,
            "finished_at": now,
            "heartbeat_at": now,
            "replay_path": replay_path,
            "logs_path": logs_path,
        }
        return self._owned(version_id, worker_id, lease, values) is not None

    def fail_validation(
        self, version_id: int, worker_id: str, lease: int, error: str, now: float | None = None
    ) -> MatchStatus | None:
        """The platform failed to play it: queued again, or ``error`` on the third time."""
        now = time.time() if now is None else now
        values = failed_values(col(Validation.attempts), error, now)
        status = self._owned(version_id, worker_id, lease, values)
        return None if status is None else MatchStatus(status)

    def reap_validations(self, silent_for_s: float, now: float | None = None) -> list[Validation]:
        """Queue again (or mark ``error``) the running validations silent that long."""
        now = time.time() if now is None else now
        with self._session(write=True) as session:
            query = (
                select(Validation)
                .where(
                    Validation.status == MatchStatus.RUNNING,
                    col(Validation.heartbeat_at) < now - silent_for_s,
                )
                .with_for_update()
            )
            reaped = list(session.exec(query))
            for validation in reaped:
                validation.attempts += 1
                validation.last_error = (
                    f"worker {validation.worker_id} went silent for more than {silent_for_s:g} s"
                )
                failed = validation.attempts >= MAX_ATTEMPTS
                validation.status = MatchStatus.ERROR if failed else MatchStatus.QUEUED
                validation.finished_at = now if failed else None
                validation.worker_id = None
                validation.heartbeat_at = None
                session.add(validation)
        return reaped

    def validation(self, version_id: int) -> Validation:
        with self._session() as session:
            validation = session.get(Validation, version_id)
        if validation is None:
            raise NotFound(f"bot version {version_id} has no validation game")
        return validation

    def validation_statuses(self) -> dict[int, str]:
        """Every version's validation status, by version id."""
        with self._session() as session:
            rows = session.exec(select(Validation.version_id, Validation.status))
            return {version_id: status for version_id, status in rows}

    def validations_waiting(self, *, queued_only: bool = False) -> int:
        """Validations queued or running (``queued_only``: queued)."""
        statuses = (MatchStatus.QUEUED,) if queued_only else WAITING
        with self._session() as session:
            query = select(func.count()).where(col(Validation.status).in_(statuses))
            return int(session.exec(query).one())

    def _owned(
        self, version_id: int, worker_id: str, lease: int, values: dict[str, Any]
    ) -> str | None:
        with self._session(write=True) as session:
            statement = (
                update(Validation)
                .where(
                    col(Validation.version_id) == version_id,
                    col(Validation.status) == MatchStatus.RUNNING,
                    col(Validation.worker_id) == worker_id,
                    col(Validation.lease) == lease,
                )
                .values(**values)
                .returning(col(Validation.status))
            )
            status: str | None = session.connection().execute(statement).scalar_one_or_none()
        return status
