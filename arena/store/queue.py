"""The match queue: workers claim queued matches, heartbeat, and record each result once.

A claim takes the queued match with the lowest schedule index (PostgreSQL: ``SELECT ... FOR
UPDATE SKIP LOCKED``, so claimers never wait on each other; SQLite: a ``BEGIN IMMEDIATE``
transaction). Every later call names the claimer by ``worker_id`` (unique per claimer, e.g.
``host:pid:slot``) and optionally by the claim's ``lease``; it is refused, changing nothing,
once the match is no longer that claimer's: the reaper requeued it, or it is finished.

Infrastructure failures (``fail``, or a worker gone silent) count as attempts; the third
marks the match ``error``, never rated. Bot faults are results, recorded by ``finish``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, case, func, insert, or_, update
from sqlmodel import Session, col, select

from arena.crashpoint import crash_point
from arena.read_model import MatchStatus, TournamentKind

from . import tallies
from .base import StoreBase
from .errors import NotFound, StoreError
from .models import Match, Tournament

MAX_ATTEMPTS = 3


def failed_values(attempts_column: Any, error: str, now: float) -> dict[str, Any]:
    """The columns a failed attempt sets, for a match or a validation alike: one more
    attempt, queued again or ``error`` on the last, the worker's hold released."""
    attempts = attempts_column + 1
    return {
        "attempts": attempts,
        "status": case(
            (attempts >= MAX_ATTEMPTS, MatchStatus.ERROR.value), else_=MatchStatus.QUEUED.value
        ),
        "finished_at": case((attempts >= MAX_ATTEMPTS, now), else_=None),
        "worker_id": None,
        "heartbeat_at": None,
        "last_error": " ".join(error.split())[:2000],
    }


Teams = tuple[tuple[int, int], tuple[int, int]]


@dataclass(frozen=True)
class MatchSpec:
    """A duplicate pair to schedule: team 0 at seats 0+2 of the first game, team 1 at 1+3.

    Format ``pairs``: ``MatchSpec(seed, ((a, a), (b, b)))``; ``mixed``: four entries."""

    seed: int
    teams: Teams

    @property
    def seats(self) -> tuple[int, int, int, int]:
        (a, c), (b, d) = self.teams
        return (a, b, c, d)


@dataclass(frozen=True)
class ForfeitInfo:
    game: int  # 1 or 2
    seat: int  # the faulting seat in that game
    reason: str  # timeout, crash, illegal, protocol, startup
    detail: str


@dataclass(frozen=True)
class MatchResult:
    """Both games' totals *by team* (team 0: seats 0+2 of the first game, 1+3 of the second)."""

    totals: tuple[tuple[int, int], tuple[int, int]]  # (first game, second game)
    winner: int | None  # 0, 1, or None for a draw
    forfeit: ForfeitInfo | None = None
    replay_path: str | None = None  # relative to ARENA_HOME
    logs_path: str | None = None

    @classmethod
    def from_seat_totals(
        cls,
        first: tuple[int, int],
        second: tuple[int, int],
        winner: int | None,
        **rest: Any,
    ) -> MatchResult:
        """From each game's ``state.totals`` (by seat pair: 0+2, 1+3): the second game seats
        team 0 at 1+3."""
        return cls(totals=(first, (second[1], second[0])), winner=winner, **rest)

    @property
    def points(self) -> tuple[int, int]:
        """Each team's points over the pair."""
        (a0, a1), (b0, b1) = self.totals
        return (a0 + b0, a1 + b1)


def append_matches(session: Session, tournament_id: int, specs: Sequence[MatchSpec]) -> range:
    """Append ``specs`` to the tournament's schedule in ``session``; their schedule indexes."""
    last = session.exec(
        select(func.max(Match.schedule_index)).where(Match.tournament_id == tournament_id)
    ).one()
    first = 0 if last is None else last + 1
    rows = [
        {
            "tournament_id": tournament_id,
            "schedule_index": first + i,
            "seed": spec.seed,
            "seat0": spec.seats[0],
            "seat1": spec.seats[1],
            "seat2": spec.seats[2],
            "seat3": spec.seats[3],
            "status": MatchStatus.QUEUED,
        }
        for i, spec in enumerate(specs)
    ]
    if rows:
        session.connection().execute(insert(Match), rows)
    return range(first, first + len(rows))


def cancel_statement(*, tournament_id: int | None = None, version_id: int | None = None) -> Any:
    """The update that cancels the queued matches of a tournament, or with a version at any
    seat."""
    statement = update(Match).where(col(Match.status) == MatchStatus.QUEUED)
    if tournament_id is not None:
        statement = statement.where(col(Match.tournament_id) == tournament_id)
    if version_id is not None:
        seats = (Match.seat0, Match.seat1, Match.seat2, Match.seat3)
        statement = statement.where(or_(*(col(seat) == version_id for seat in seats)))
    return statement.values(status=MatchStatus.CANCELLED, finished_at=time.time())


class Queue(StoreBase):
    def enqueue(self, tournament_id: int, matches: Iterable[MatchSpec]) -> range:
        """Append matches to the tournament's schedule; returns their schedule indexes."""
        specs = list(matches)
        return self._retrying(lambda session: append_matches(session, tournament_id, specs))

    def claim(
        self, worker_id: str, now: float | None = None, *, tournament_id: int | None = None
    ) -> Match | None:
        """The queued match first in schedule order, now running for ``worker_id``."""
        now = time.time() if now is None else now
        with self._session(write=True) as session:
            query = select(Match).where(Match.status == MatchStatus.QUEUED)
            if tournament_id is not None:
                query = query.where(Match.tournament_id == tournament_id)
            # Comparisons first: someone is waiting for each of their pairs.
            comparison = (
                select(Tournament.id)
                .where(Tournament.kind == TournamentKind.COMPARE)
                .scalar_subquery()
            )
            first = case((col(Match.tournament_id).in_(comparison), 0), else_=1)
            query = (
                query.order_by(first, col(Match.tournament_id), col(Match.schedule_index))
                .limit(1)
                .with_for_update(skip_locked=True)
            )
            match = session.exec(query).first()
            if match is None:
                return None
            match.status = MatchStatus.RUNNING
            match.worker_id = worker_id
            match.lease += 1
            match.heartbeat_at = now
            match.started_at = now
            session.add(match)
        return match

    def heartbeat(
        self, match_id: int, worker_id: str, now: float | None = None, *, lease: int | None = None
    ) -> bool:
        """Still alive; False when the match is no longer this worker's (stop playing it)."""
        now = time.time() if now is None else now
        return self._owned_update(match_id, worker_id, lease, {"heartbeat_at": now}) is not None

    def finish(
        self,
        match_id: int,
        worker_id: str,
        result: MatchResult,
        now: float | None = None,
        *,
        lease: int | None = None,
    ) -> bool:
        """Record the result, once, and count it in its versions' tallies in the same
        transaction: False (and nothing changed) when this worker no longer owns the match."""
        now = time.time() if now is None else now
        if result.winner not in (0, 1, None):
            raise StoreError(f"winner must be 0, 1 or None, got {result.winner}")
        forfeit = result.forfeit
        (g1t0, g1t1), (g2t0, g2t1) = result.totals
        values: dict[str, Any] = {
            "status": MatchStatus.DONE,
            "finished_at": now,
            "heartbeat_at": now,
            "game1_team0": g1t0,
            "game1_team1": g1t1,
            "game2_team0": g2t0,
            "game2_team1": g2t1,
            "points_team0": result.points[0],
            "points_team1": result.points[1],
            "winner": result.winner,
            "forfeit_game": forfeit.game if forfeit else None,
            "forfeit_seat": forfeit.seat if forfeit else None,
            "forfeit_reason": forfeit.reason if forfeit else None,
            "forfeit_detail": forfeit.detail if forfeit else None,
            "replay_path": result.replay_path,
            "logs_path": result.logs_path,
        }

        def count(connection: Connection) -> None:
            crash_point("match_recorded")  # a test seam: the transaction dies uncommitted
            tallies.add_result(connection, match_id)

        counted = self._owned_update(match_id, worker_id, lease, values, then=count)
        return counted is not None

    def fail(
        self,
        match_id: int,
        worker_id: str,
        error: str,
        now: float | None = None,
        *,
        lease: int | None = None,
    ) -> MatchStatus | None:
        """An infrastructure failure: requeue the match, or mark it ``error`` on the third.
        Returns the new status, or None when this worker no longer owns the match."""
        now = time.time() if now is None else now
        values = failed_values(col(Match.attempts), error, now)
        status = self._owned_update(match_id, worker_id, lease, values)
        return None if status is None else MatchStatus(status)

    def release(self, match_id: int, worker_id: str, *, lease: int | None = None) -> bool:
        """Hand back a match claimed but not begun (its worker is stopping): queued again as
        if never claimed, no attempt counted. False when this worker no longer owns it."""
        values: dict[str, Any] = {
            "status": MatchStatus.QUEUED,
            "worker_id": None,
            "heartbeat_at": None,
            "started_at": None,
        }
        return self._owned_update(match_id, worker_id, lease, values) is not None

    def reap(self, silent_for_s: float, now: float | None = None) -> list[Match]:
        """Requeue (or, on the third failure, mark ``error``) the running matches whose
        worker hasn't sent a heartbeat for ``silent_for_s`` seconds; returns them."""
        now = time.time() if now is None else now
        cutoff = now - silent_for_s
        with self._session(write=True) as session:
            query = (
                select(Match)
                .where(Match.status == MatchStatus.RUNNING, col(Match.heartbeat_at) < cutoff)
                .order_by(col(Match.id))
                .with_for_update()
            )
            reaped = list(session.exec(query))
            for match in reaped:
                match.attempts += 1
                match.last_error = (
                    f"worker {match.worker_id} went silent for more than {silent_for_s:g} s"
                )
                if match.attempts >= MAX_ATTEMPTS:
                    match.status = MatchStatus.ERROR
                    match.finished_at = now
                else:
                    match.status = MatchStatus.QUEUED
                match.worker_id = None
                match.heartbeat_at = None
                session.add(match)
        return reaped

    def match(self, match_id: int) -> Match:
        with self._session() as session:
            match = session.get(Match, match_id)
        if match is None:
            raise NotFound(f"unknown match {match_id}")
        return match

    def match_at(self, tournament_id: int, schedule_index: int) -> Match:
        with self._session() as session:
            match = session.exec(
                select(Match).where(
                    Match.tournament_id == tournament_id, Match.schedule_index == schedule_index
                )
            ).first()
        if match is None:
            raise NotFound(f"tournament {tournament_id} has no match {schedule_index}")
        return match

    def cancel_queued(
        self, *, tournament_id: int | None = None, version_id: int | None = None
    ) -> int:
        """Cancel the queued matches of a tournament, or with a version at any seat (running
        ones finish); returns how many."""
        statement = cancel_statement(tournament_id=tournament_id, version_id=version_id)
        with self._session(write=True) as session:
            return int(session.connection().execute(statement).rowcount)

    def matches(
        self,
        tournament_id: int,
        status: MatchStatus | None = None,
        *,
        versions: Iterable[int] | None = None,
    ) -> list[Match]:
        """The tournament's matches in schedule order, optionally only those of one status or
        with any of ``versions`` at a seat."""
        query = select(Match).where(Match.tournament_id == tournament_id)
        if status is not None:
            query = query.where(Match.status == status if versions is None else _status_is(status))
        if versions is not None:
            query = query.where(_seats_in(versions))
        with self._session() as session:
            return list(session.exec(query.order_by(col(Match.schedule_index))))

    def match_page(
        self,
        tournament_id: int,
        *,
        status: MatchStatus | None = None,
        versions: Iterable[int] | None = None,
        offset: int = 0,
        limit: int = 50,
    ) -> tuple[int, list[Match]]:
        """One page of the tournament's matches, newest schedule index first, optionally only
        those of one status or with any of ``versions`` at a seat; and how many match in all."""
        query = select(Match).where(Match.tournament_id == tournament_id)
        if status is not None:
            query = query.where(Match.status == status if versions is None else _status_is(status))
        if versions is not None:
            query = query.where(_seats_in(versions))
        with self._session() as session:
            if status is None and versions is None:
                # Unfiltered: a tournament's indexes run 0, 1, ... (enqueue appends), so
                # the count is the last index's successor: one index lookup, not a scan.
                last = select(func.max(Match.schedule_index)).where(
                    Match.tournament_id == tournament_id
                )
                found = session.exec(last).one()
                total = 0 if found is None else found + 1
            else:
                total = session.exec(select(func.count()).select_from(query.subquery())).one()
            page = query.order_by(col(Match.schedule_index).desc()).offset(offset).limit(limit)
            return total, list(session.exec(page))

    def recent_done(self, versions: Iterable[int], limit: int) -> list[Match]:
        """The newest ``limit`` done matches with any of ``versions`` at a seat: tournament
        by tournament, newest schedule index first."""
        ids = list(versions)
        seats = (Match.seat0, Match.seat1, Match.seat2, Match.seat3)
        query = (
            select(Match)
            .where(_status_is(MatchStatus.DONE), or_(*(col(s).in_(ids) for s in seats)))
            .order_by(col(Match.tournament_id), col(Match.schedule_index).desc())
            .limit(limit)
        )
        with self._session() as session:
            return list(session.exec(query))

    def done_after(self, tournament_id: int, schedule_index: int) -> int:
        """How many of the tournament's matches after ``schedule_index`` are done (an index
        range: cheap when the index is the last rated one)."""
        with self._session() as session:
            query = select(func.count()).where(
                Match.status == MatchStatus.DONE,
                Match.tournament_id == tournament_id,
                Match.schedule_index > schedule_index,
            )
            return int(session.exec(query).one())

    def status_counts(self, tournament_id: int) -> dict[MatchStatus, int]:
        with self._session() as session:
            query = (
                select(Match.status, func.count())
                .where(Match.tournament_id == tournament_id)
                .group_by(col(Match.status))
            )
            counts = {status: 0 for status in MatchStatus}
            for status, count in session.exec(query):
                counts[MatchStatus(status)] = count
            return counts

    def _owned_update(
        self,
        match_id: int,
        worker_id: str,
        lease: int | None,
        values: dict[str, Any],
        then: Callable[[Connection], None] | None = None,
    ) -> str | None:
        """Update the match only while ``worker_id`` (and ``lease``) runs it, in one statement
        (a concurrent reap or finish happened either before it or after it), then ``then``
        in the same transaction; returns the new status, or None when the match isn't this
        worker's."""
        with self._session(write=True) as session:
            statement = update(Match).where(
                col(Match.id) == match_id,
                col(Match.status) == MatchStatus.RUNNING,
                col(Match.worker_id) == worker_id,
            )
            if lease is not None:
                statement = statement.where(col(Match.lease) == lease)
            statement = statement.values(**values).returning(col(Match.status))
            status = session.connection().execute(statement).scalar_one_or_none()
            if status is None and session.get(Match, match_id) is None:
                raise NotFound(f"unknown match {match_id}")
            if status is not None and then is not None:
                then(session.connection())
        return status


def _seats_in(versions: Iterable[int]) -> Any:
    """Any of ``versions`` at one of the match's seats."""
    ids = list(versions)
    seats = (Match.seat0, Match.seat1, Match.seat2, Match.seat3)
    return or_(*(col(seat).in_(ids) for seat in seats))


def _status_is(status: MatchStatus) -> Any:
    """``status = ?`` that no index answers: beside a filter on the seats, the planners
    (SQLite's without statistics) would walk every match of that status by its index rather
    than one bot's matches by the seats' indexes."""
    return func.coalesce(col(Match.status), "") == status.value
