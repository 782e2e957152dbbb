"""What the ladder's invariants are checked by: narrow queries, each cheap enough for every
``arena status`` (``arena.league.doctor`` reads them as problems), and the one repair that
is the store's alone, a validation played again."""

from __future__ import annotations

import time

from sqlalchemy import func, update
from sqlmodel import col, select

from arena.read_model import MatchStatus, VersionStatus

from .base import StoreBase
from .models import BotVersion, Match, RatingChange, Validation
from .settling import PairCounts, entries_of, pair_counts

UNFINISHED = (MatchStatus.QUEUED, MatchStatus.RUNNING)


class Invariants(StoreBase):
    def ladder_pair_counts(self, tournament_id: int | None) -> tuple[list[int], PairCounts]:
        """The ladder's entries (the newest active version of each bot) in version order, and
        the non-cancelled matches between each two of them, by (seat 0's, seat 1's); none
        without a ladder (``tournament_id`` None)."""
        with self._session() as session:
            entries = sorted(entries_of(session, by_name=False))
            if tournament_id is None:
                return entries, {}
            return entries, pair_counts(session, tournament_id, entries)

    def bots_with_several_active(self) -> dict[int, list[int]]:
        """The bots with more than one active version, and those versions' ids."""
        with self._session() as session:
            query = select(col(BotVersion.bot_id), col(BotVersion.id)).where(
                BotVersion.status == VersionStatus.ACTIVE
            )
            found: dict[int, list[int]] = {}
            for bot_id, version_id in session.exec(query):
                if version_id is not None:
                    found.setdefault(bot_id, []).append(version_id)
        return {b: sorted(v) for b, v in found.items() if len(v) > 1}

    def validated_but_pending(self) -> list[int]:
        """The versions still pending whose validation game is done: never settled."""
        query = (
            select(col(Validation.version_id))
            .join(BotVersion, col(BotVersion.id) == Validation.version_id)
            .where(
                Validation.status == MatchStatus.DONE, BotVersion.status == VersionStatus.PENDING
            )
            .order_by(col(Validation.version_id))
        )
        with self._session() as session:
            return list(session.exec(query))

    def unrated_ready(self, tournament_id: int) -> int:
        """How many done matches after the last one rated have nothing unfinished before
        them: ratable, not yet rated (three index lookups, however long the schedule)."""
        with self._session() as session:
            last = session.exec(
                select(func.max(RatingChange.schedule_index)).where(
                    RatingChange.tournament_id == tournament_id
                )
            ).one()
            rated_through = -1 if last is None else last
            first_open = session.exec(
                select(func.min(Match.schedule_index)).where(
                    Match.tournament_id == tournament_id,
                    col(Match.status).in_(UNFINISHED),
                    Match.schedule_index > rated_through,
                )
            ).one()
            query = select(func.count()).where(
                Match.tournament_id == tournament_id,
                Match.status == MatchStatus.DONE,
                Match.schedule_index > rated_through,
            )
            if first_open is not None:
                query = query.where(Match.schedule_index < first_open)
            return int(session.exec(query).one())

    def replay_validation(self, version_id: int) -> bool:
        """Queue again the done validation of a version still pending, to be played and
        settled anew; False if it is not that (settled meanwhile)."""
        pending = select(BotVersion.id).where(
            BotVersion.id == version_id, BotVersion.status == VersionStatus.PENDING
        )
        statement = (
            update(Validation)
            .where(
                col(Validation.version_id) == version_id,
                col(Validation.status) == MatchStatus.DONE,
                col(Validation.version_id).in_(pending.scalar_subquery()),
            )
            .values(
                status=MatchStatus.QUEUED,
                attempts=0,
                worker_id=None,
                heartbeat_at=None,
                finished_at=None,
                queued_at=time.time(),
            )
        )
        with self._session(write=True) as session:
            return bool(session.connection().execute(statement).rowcount)
