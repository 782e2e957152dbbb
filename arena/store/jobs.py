"""The job queue: what workers claim, keep alive and record once, of two kinds.

A *validation* is a submitted version's validation game (table ``validations``, by version
id); a *match* is a scheduled duplicate pair (table ``matches``, by match id). Each kind
keeps its job in its own table, beside what only it records (a match's result, a
validation's version), with the same queue columns (status, attempts, lease, worker_id,
heartbeat_at, started_at, finished_at, last_error); this module is their one lease.

The ordering rules of a claim (``claim_job``):

1. Validations first, one at a time, in version order: the first validation still queued
   or running is claimed, and only if it is queued (the lock on that row makes concurrent
   claimers wait for each other, on PostgreSQL as on SQLite). So versions are settled, and
   join the ladder, in the order they were stored, however many workers run.
2. Then matches: comparisons first (someone waits for each of their pairs), then by
   tournament and schedule index (PostgreSQL: ``SELECT ... FOR UPDATE SKIP LOCKED``, so
   claimers never wait on each other; SQLite: a ``BEGIN IMMEDIATE`` transaction).

Every later call names the job (kind, id and the claim's ``lease``) and its claimer
(``worker_id``, unique per claimer, e.g. ``host:pid:slot``), and is refused, changing
nothing, once the job is no longer that claim's: the reaper took it back, or it is finished.
Infrastructure failures (``fail_job``, or a worker gone silent) count as attempts; the third
marks the job ``error``. A bot's fault is a result, recorded by the kind's ``finish``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sqlalchemy import Connection, case, update
from sqlmodel import Session, col, select

from arena.read_model import MatchStatus, TournamentKind

from .base import StoreBase
from .errors import NotFound
from .models import Match, Tournament, Validation

MAX_ATTEMPTS = 3
WAITING = (MatchStatus.QUEUED, MatchStatus.RUNNING)


class JobKind(StrEnum):
    VALIDATION = "validation"
    MATCH = "match"


EVERY_KIND = (JobKind.VALIDATION, JobKind.MATCH)
Row = Match | Validation


@dataclass(frozen=True)
class Job:
    """A job as claimed (or reaped): its kind, its id (the match's, or the validated
    version's), the claim's lease, and its row as the claim (or reap) left it."""

    kind: JobKind
    id: int
    lease: int
    row: Row

    @property
    def match(self) -> Match:
        assert isinstance(self.row, Match), self
        return self.row

    @property
    def validation(self) -> Validation:
        assert isinstance(self.row, Validation), self
        return self.row

    @classmethod
    def of(cls, row: Row) -> Job:
        if isinstance(row, Match):
            assert row.id is not None
            return cls(JobKind.MATCH, row.id, row.lease, row)
        return cls(JobKind.VALIDATION, row.version_id, row.lease, row)


def _model(kind: JobKind) -> Any:
    """The kind's table (``Any``: both have the queue's columns, by the same names)."""
    return Match if kind == JobKind.MATCH else Validation


def _key(kind: JobKind) -> Any:
    return col(Match.id) if kind == JobKind.MATCH else col(Validation.version_id)


class Jobs(StoreBase):
    def claim_job(
        self,
        worker_id: str,
        now: float | None = None,
        *,
        kinds: Iterable[JobKind] = EVERY_KIND,
        tournament_id: int | None = None,
    ) -> Job | None:
        """The first job by the ordering rules among ``kinds``, now running for
        ``worker_id``; given ``tournament_id``, only that tournament's matches."""
        now = time.time() if now is None else now
        wanted = set(kinds)
        if JobKind.VALIDATION in wanted and tournament_id is None:
            with self._session(write=True) as session:
                validation = _first_validation(session)
                if validation is not None:
                    return _claimed(session, validation, worker_id, now)
        if JobKind.MATCH in wanted:
            with self._session(write=True) as session:
                match = _first_match(session, tournament_id)
                if match is not None:
                    return _claimed(session, match, worker_id, now)
        return None

    def heartbeat_job(self, job: Job, worker_id: str, now: float | None = None) -> bool:
        """Still alive; False when the job is no longer this claim's (stop playing it)."""
        now = time.time() if now is None else now
        return self._owned_update(job, worker_id, {"heartbeat_at": now}) is not None

    def fail_job(
        self, job: Job, worker_id: str, error: str, now: float | None = None
    ) -> MatchStatus | None:
        """An infrastructure failure: queued again, or ``error`` on the third. The new
        status, or None when the job is no longer this claim's."""
        now = time.time() if now is None else now
        attempts = col(_model(job.kind).attempts) + 1
        values = {
            "attempts": attempts,
            "status": case(
                (attempts >= MAX_ATTEMPTS, MatchStatus.ERROR.value),
                else_=MatchStatus.QUEUED.value,
            ),
            "finished_at": case((attempts >= MAX_ATTEMPTS, now), else_=None),
            "worker_id": None,
            "heartbeat_at": None,
            "last_error": " ".join(error.split())[:2000],
        }
        status = self._owned_update(job, worker_id, values)
        return None if status is None else MatchStatus(status)

    def release_job(self, job: Job, worker_id: str) -> bool:
        """Hand back a job claimed but not begun (its worker is stopping): queued again as
        if never claimed, no attempt counted. False when it is no longer this claim's."""
        values = {
            "status": MatchStatus.QUEUED,
            "worker_id": None,
            "heartbeat_at": None,
            "started_at": None,
        }
        return self._owned_update(job, worker_id, values) is not None

    def reap_jobs(
        self,
        silent_for_s: float,
        now: float | None = None,
        *,
        kinds: Iterable[JobKind] = EVERY_KIND,
    ) -> list[Job]:
        """Queue again (or, on the third failure, mark ``error``) the running jobs of
        ``kinds`` whose worker hasn't sent a heartbeat for ``silent_for_s`` seconds;
        returns them."""
        now = time.time() if now is None else now
        reaped: list[Job] = []
        for kind in [k for k in EVERY_KIND if k in set(kinds)]:
            model = _model(kind)
            with self._session(write=True) as session:
                query = (
                    select(model)
                    .where(*_silent(model, now - silent_for_s))
                    .order_by(_key(kind))
                    .with_for_update()
                )
                for row in list(session.exec(query)):
                    row.attempts += 1
                    row.last_error = (
                        f"worker {row.worker_id} went silent for more than {silent_for_s:g} s"
                    )
                    failed = row.attempts >= MAX_ATTEMPTS
                    row.status = MatchStatus.ERROR if failed else MatchStatus.QUEUED
                    row.finished_at = now if failed else None
                    row.worker_id = row.heartbeat_at = None
                    session.add(row)
                    reaped.append(Job.of(row))
        return reaped

    def silent_jobs(self, silent_for_s: float, now: float | None = None) -> list[Job]:
        """The running jobs not heard from for ``silent_for_s`` (what ``reap_jobs`` would
        take back), validations first."""
        now = time.time() if now is None else now
        found: list[Job] = []
        with self._session() as session:
            for kind in EVERY_KIND:
                model = _model(kind)
                query = (
                    select(model).where(*_silent(model, now - silent_for_s)).order_by(_key(kind))
                )
                found.extend(Job.of(row) for row in session.exec(query))
        return found

    def _owned_update(
        self,
        job: Job,
        worker_id: str,
        values: dict[str, Any],
        then: Callable[[Connection, Any], None] | None = None,
    ) -> str | None:
        """Update the job only while this claim (``worker_id`` and the job's lease) runs it,
        in one statement (a concurrent reap or finish happened either before it or after
        it), then ``then(connection, row)`` in the same transaction; returns the new status,
        or None when the job is not this claim's."""
        model, key = _model(job.kind), _key(job.kind)
        with self._session(write=True) as session:
            statement = (
                update(model)
                .where(
                    key == job.id,
                    col(model.status) == MatchStatus.RUNNING,
                    col(model.worker_id) == worker_id,
                    col(model.lease) == job.lease,
                )
                .values(**values)
                .returning(col(model.status))
            )
            status: str | None = session.connection().execute(statement).scalar_one_or_none()
            if status is None:
                if session.get(model, job.id) is None:
                    raise NotFound(f"unknown {job.kind} {job.id}")
                return None
            if then is not None:
                then(session.connection(), session.get(model, job.id))
        return status


def _silent(model: Any, cutoff: float) -> tuple[Any, Any]:
    """Running, and not heard from since ``cutoff``."""
    return model.status == MatchStatus.RUNNING, col(model.heartbeat_at) < cutoff


def _first_validation(session: Session) -> Validation | None:
    """The first validation in version order, if it is queued (not being played)."""
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
    return validation


def _first_match(session: Session, tournament_id: int | None) -> Match | None:
    query = select(Match).where(Match.status == MatchStatus.QUEUED)
    if tournament_id is not None:
        query = query.where(Match.tournament_id == tournament_id)
    comparison = (
        select(Tournament.id).where(Tournament.kind == TournamentKind.COMPARE).scalar_subquery()
    )
    first = case((col(Match.tournament_id).in_(comparison), 0), else_=1)
    query = (
        query.order_by(first, col(Match.tournament_id), col(Match.schedule_index))
        .limit(1)
        .with_for_update(skip_locked=True)
    )
    return session.exec(query).first()


def _claimed(session: Session, row: Row, worker_id: str, now: float) -> Job:
    row.status = MatchStatus.RUNNING
    row.worker_id = worker_id
    row.lease += 1
    row.heartbeat_at = row.started_at = now
    session.add(row)
    return Job.of(row)
