"""Settling a validated version, and keeping the ladder whole: each one transaction.

A version's verdict is all or nothing: rejected; or active, its bot's older active version
retired (its queued matches cancelled) and its own ladder matches queued, in one
transaction. A worker killed anywhere in it leaves the version pending, and the validation,
taken back from the silent worker, is played and settled again. The ladder's tournament
row is locked meanwhile, so settling and ``repair_ladder`` schedule one at a time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import Session, col, select

from arena.host.crashpoint import crash_point
from arena.read_model import MatchStatus, ScheduleKind, TournamentKind, VersionStatus

from .accounts import _newest_active
from .base import StoreBase
from .errors import NotFound
from .models import Bot, BotVersion, Match, Tournament
from .queue import MatchSpec, append_matches, cancel_statement

# The matches a version joining the ladder plays: (ladder, the other entries' version ids
# by bot name, the new version's id, the schedule's length so far, and what reads the
# schedule's matches in the settling transaction, for a schedule that chooses by results).
Schedule = Callable[
    [Tournament, Sequence[int], int, int, Callable[[], list[Match]]], list[MatchSpec]
]
# The matches the ladder lacks: (ladder, its entries' version ids in version order, the
# non-cancelled matches of each pair of them as (seat 0's, seat 1's), the schedule's length).
PairCounts = dict[tuple[int, int], int]
Missing = Callable[[Tournament, Sequence[int], Mapping[tuple[int, int], int], int], list[MatchSpec]]


@dataclass(frozen=True)
class Settled:
    version: BotVersion
    now: bool  # False: settled before (an earlier claim of its validation), left as it was
    scheduled: int  # ladder matches queued for it


class Settling(StoreBase):
    def settle_version(
        self, version_id: int, fault: str | None, *, ladder: str, schedule: Schedule
    ) -> Settled:
        """The pending version rejected with ``fault``, or made active with the matches
        ``schedule`` gives queued in the ladder tournament (made if need be), replacing the
        bot's older active version: all in one transaction."""

        def settle(session: Session) -> Settled:
            query = select(BotVersion).where(BotVersion.id == version_id).with_for_update()
            version = session.exec(query).first()
            if version is None:
                raise NotFound(f"unknown bot version {version_id}")
            if version.status != VersionStatus.PENDING:
                return Settled(version, False, 0)
            if fault is not None:
                version.status, version.reason = VersionStatus.REJECTED, fault
                session.add(version)
                return Settled(version, True, 0)
            tournament = _ladder(session, ladder)  # locked: one settles at a time
            older = session.exec(
                select(BotVersion).where(
                    BotVersion.bot_id == version.bot_id, BotVersion.status == VersionStatus.ACTIVE
                )
            )
            for old in list(older):
                _retire(session, old, version.number)
            session.flush()
            crash_point("settle_retired")
            version.status, version.reason = VersionStatus.ACTIVE, None
            session.add(version)
            session.flush()
            crash_point("settle_activated")
            assert tournament.id is not None
            others = [v for v in entries_of(session, by_name=True) if v != version_id]
            ladder_id = tournament.id
            specs = schedule(
                tournament,
                others,
                version_id,
                _length(session, ladder_id),
                lambda: _matches(session, ladder_id),
            )
            append_matches(session, tournament.id, specs)
            crash_point("settle_scheduled")
            return Settled(version, True, len(specs))

        return self._retrying(settle)

    def repair_ladder(self, ladder: str, missing: Missing) -> int:
        """Queue the matches ``missing`` finds the ladder lacking, in one transaction with
        the ladder locked (made if need be); how many."""

        def repair(session: Session) -> int:
            entries = sorted(entries_of(session, by_name=False))
            query = select(Tournament).where(Tournament.name == ladder)
            if len(entries) < 2 and session.exec(query).first() is None:
                return 0  # nothing to schedule: no ladder made for it
            tournament = _ladder(session, ladder)
            assert tournament.id is not None
            counts = pair_counts(session, tournament.id, entries)
            specs = missing(tournament, entries, counts, _length(session, tournament.id))
            append_matches(session, tournament.id, specs)
            return len(specs)

        return self._retrying(repair)

    def set_schedule(self, name: str, schedule: ScheduleKind, *, ladder: str) -> Tournament:
        """Change how the tournament named ``name`` chooses its next matches (those queued
        stay); the ladder is made if need be, so it can be set before its first entry."""
        ScheduleKind(schedule)

        def change(session: Session) -> Tournament:
            if name == ladder:
                tournament = _ladder(session, ladder)
            else:
                query = select(Tournament).where(Tournament.name == name).with_for_update()
                found = session.exec(query).first()
                if found is None:
                    raise NotFound(f"unknown tournament {name!r}")
                tournament = found
            tournament.schedule = schedule
            session.add(tournament)
            return tournament

        return self._retrying(change)

    def retire_all_but_newest(self, bot_id: int) -> list[int]:
        """Retire every active version of the bot but its newest (its queued matches
        cancelled); their ids."""
        with self._session(write=True) as session:
            query = (
                select(BotVersion)
                .where(BotVersion.bot_id == bot_id, BotVersion.status == VersionStatus.ACTIVE)
                .order_by(col(BotVersion.number).desc())
                .with_for_update()
            )
            active = list(session.exec(query))
            for old in active[1:]:
                _retire(session, old, active[0].number)
        return [v.id for v in active[1:] if v.id is not None]


def _ladder(session: Session, name: str) -> Tournament:
    """The ladder's tournament row, locked; made (unlocked, but new) if there is none yet: a
    concurrent maker loses on its unique name, and its transaction is tried again."""
    query = select(Tournament).where(Tournament.name == name).with_for_update()
    tournament = session.exec(query).first()
    if tournament is None:
        tournament = Tournament(
            name=name, kind=TournamentKind.LADDER, seed=0, created_at=time.time()
        )
        session.add(tournament)
        session.flush()
    return tournament


def _retire(session: Session, old: BotVersion, by: int) -> None:
    """Retire the version, replaced by version number ``by``, and cancel its queued matches:
    off the ladder, the rest of them is not played."""
    old.status, old.reason = VersionStatus.RETIRED, f"replaced by v{by}"
    session.add(old)
    session.connection().execute(cancel_statement(version_id=old.id))


def entries_of(session: Session, *, by_name: bool) -> list[int]:
    """The newest active version of every bot (by bot name, or as stored)."""
    query = select(col(BotVersion.id)).join(*_newest_active())
    if by_name:
        query = query.join(Bot, col(Bot.id) == BotVersion.bot_id).order_by(col(Bot.name))
    return [v for v in session.exec(query) if v is not None]


def _length(session: Session, tournament_id: int) -> int:
    query = select(func.count()).where(Match.tournament_id == tournament_id)
    return int(session.exec(query).one())


def _matches(session: Session, tournament_id: int) -> list[Match]:
    query = (
        select(Match)
        .where(Match.tournament_id == tournament_id)
        .order_by(col(Match.schedule_index))
    )
    return list(session.exec(query))


def pair_counts(session: Session, tournament_id: int, entries: Sequence[int]) -> PairCounts:
    """The tournament's non-cancelled matches of team against team among ``entries`` (each
    team one version at two seats), by (seat 0's version, seat 1's)."""
    if not entries:
        return {}
    query = (
        select(col(Match.seat0), col(Match.seat1), func.count())
        .where(
            Match.tournament_id == tournament_id,
            Match.status != MatchStatus.CANCELLED,
            col(Match.seat0).in_(entries),
            col(Match.seat1).in_(entries),
            col(Match.seat2) == col(Match.seat0),
            col(Match.seat3) == col(Match.seat1),
        )
        .group_by(col(Match.seat0), col(Match.seat1))
    )
    return {(a, b): int(n) for a, b, n in session.exec(query)}
