"""The match queue's own part: matches appended to a tournament's schedule, a match's
result recorded once with its tallies, and the reads of the schedule. Claiming, heartbeats,
failures and reaping are the job queue's (``jobs.py``), for matches and validations alike.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, func, insert, or_, update
from sqlmodel import Session, col, select

from arena.competition.pairs import by_team
from arena.competition.tallies import Figures
from arena.read_model import MatchStatus

from . import tallies
from .errors import NotFound, StoreError
from .jobs import Job, Jobs
from .models import Match

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
    replay_path: str | None = None  # blob key: both games' replays
    logs_path: str | None = None  # blob key: {"game1": [4 keys], "game2": [...]}
    # What the match adds to its versions' tallies (the worker's, from the replays it holds).
    tallies: Mapping[int, Figures] = field(default_factory=dict)

    @classmethod
    def from_seat_totals(
        cls,
        first: tuple[int, int],
        second: tuple[int, int],
        winner: int | None,
        **rest: Any,
    ) -> MatchResult:
        """From each game's ``state.totals`` (by seat pair: 0+2, 1+3)."""
        return cls(totals=(by_team(1, first), by_team(2, second)), winner=winner, **rest)

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


class Queue(Jobs):
    def enqueue(self, tournament_id: int, matches: Iterable[MatchSpec]) -> range:
        """Append matches to the tournament's schedule; returns their schedule indexes."""
        specs = list(matches)
        return self._retrying(lambda session: append_matches(session, tournament_id, specs))

    def finish(
        self, job: Job, worker_id: str, result: MatchResult, now: float | None = None
    ) -> bool:
        """Record the result, once, with its tallies added to its versions' in the same
        transaction (one write: the store reads no replay): False (and nothing changed) when
        this worker no longer owns the match."""
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

        def count(connection: Connection, match: Match) -> None:
            strangers = set(result.tallies) - set(match.seats)
            if strangers:
                raise StoreError(f"match {job.id} has no version {min(strangers)} to tally")
            tallies.add(connection, match.tournament_id, result.tallies)

        return self._owned_update(job, worker_id, values, then=count) is not None

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
