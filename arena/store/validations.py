"""The validation queue's own part: each submitted version's one validation game queued,
recorded once it is played (its replay and each seat's log), and read back. Claiming (one
at a time, in version order), heartbeats, failures and reaping are the job queue's
(``jobs.py``); a validation given up (``error``) leaves its version pending, and submitting
the same code again queues it anew.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from arena.read_model import MatchStatus

from .errors import NotFound
from .jobs import WAITING, Job, Jobs
from .models import Validation


def queue_validation(session: Session, version_id: int, now: float) -> None:
    """Queue the version's validation game, in ``session``: anew if it ended in ``error``."""
    existing = session.get(Validation, version_id)
    if existing is None:
        session.add(Validation(version_id=version_id, queued_at=now))
    elif existing.status == MatchStatus.ERROR:
        existing.status, existing.attempts, existing.queued_at = MatchStatus.QUEUED, 0, now
        existing.finished_at = None
        session.add(existing)


class Validations(Jobs):
    def requeue_validation(self, version_id: int) -> None:
        """Queue the version's validation game again if the platform gave up on it (or it
        was never queued); a queued, running or played one is left as it is."""
        with self._session(write=True) as session:
            queue_validation(session, version_id, time.time())

    def finish_validation(
        self,
        job: Job,
        worker_id: str,
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
        return self._owned_update(job, worker_id, values) is not None

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
