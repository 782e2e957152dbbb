"""Ratings: the current rating per (tournament, version), and the history that led to it,
appended in schedule order."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import delete, func, insert
from sqlmodel import Session, col, select

from .base import StoreBase
from .errors import StoreError
from .models import Rating, RatingChange


@dataclass(frozen=True)
class RatingStep:
    """One version's rating change from one match, in its tournament's model: a value (Elo,
    or Weng-Lin's mean) and a deviation where the model keeps one."""

    match_id: int
    schedule_index: int
    version_id: int
    value_before: float
    value_after: float
    deviation_before: float | None = None
    deviation_after: float | None = None


class Ratings(StoreBase):
    def rated_through(self, tournament_id: int) -> int:
        """The last schedule index applied to the ratings (-1: none yet)."""
        with self._session() as session:
            last = session.exec(
                select(func.max(RatingChange.schedule_index)).where(
                    RatingChange.tournament_id == tournament_id
                )
            ).one()
        return -1 if last is None else last

    def append_ratings(self, tournament_id: int, steps: Sequence[RatingStep]) -> None:
        """Append ``steps`` (in schedule order, after everything already rated) to the history
        and move the current ratings to their last ``value_after``; all or nothing."""
        if not steps:
            return
        indexes = [step.schedule_index for step in steps]
        if indexes != sorted(indexes):
            raise StoreError("rating steps must come in schedule order")

        def append(session: Session) -> None:
            last = session.exec(
                select(func.max(RatingChange.schedule_index)).where(
                    RatingChange.tournament_id == tournament_id
                )
            ).one()
            if last is not None and indexes[0] <= last:
                raise StoreError(
                    f"ratings already applied through schedule index {last}, got {indexes[0]}"
                )
            session.connection().execute(
                insert(RatingChange),
                [
                    {
                        "tournament_id": tournament_id,
                        "match_id": step.match_id,
                        "version_id": step.version_id,
                        "schedule_index": step.schedule_index,
                        "value_before": step.value_before,
                        "value_after": step.value_after,
                        "deviation_before": step.deviation_before,
                        "deviation_after": step.deviation_after,
                    }
                    for step in steps
                ],
            )
            latest: dict[int, RatingStep] = {}
            games: dict[int, int] = {}
            for step in steps:
                latest[step.version_id] = step
                games[step.version_id] = games.get(step.version_id, 0) + 1
            current = {
                rating.version_id: rating
                for rating in session.exec(
                    select(Rating).where(
                        Rating.tournament_id == tournament_id,
                        col(Rating.version_id).in_(list(latest)),
                    )
                )
            }
            for version_id, step in latest.items():
                rating = current.get(version_id) or Rating(
                    tournament_id=tournament_id, version_id=version_id, value=step.value_before
                )
                rating.value = step.value_after
                rating.deviation = step.deviation_after
                rating.games += games[version_id]
                rating.through_index = step.schedule_index
                session.add(rating)

        self._retrying(append)

    def reset_ratings(self, tournament_id: int) -> None:
        """Forget the tournament's ratings and history (before a full recomputation)."""
        with self._session(write=True) as session:
            session.connection().execute(
                delete(RatingChange).where(col(RatingChange.tournament_id) == tournament_id)
            )
            session.connection().execute(
                delete(Rating).where(col(Rating.tournament_id) == tournament_id)
            )

    def ratings(self, tournament_id: int) -> list[Rating]:
        """Current ratings, best first."""
        with self._session() as session:
            query = (
                select(Rating)
                .where(Rating.tournament_id == tournament_id)
                .order_by(col(Rating.value).desc(), col(Rating.version_id))
            )
            return list(session.exec(query))

    def rating_history(
        self, tournament_id: int, version_id: int | None = None
    ) -> list[RatingChange]:
        with self._session() as session:
            query = select(RatingChange).where(RatingChange.tournament_id == tournament_id)
            if version_id is not None:
                query = query.where(RatingChange.version_id == version_id)
            order = (col(RatingChange.schedule_index), col(RatingChange.id))
            return list(session.exec(query.order_by(*order)))

    def rating_points(
        self, tournament_id: int, versions: Iterable[int]
    ) -> list[tuple[int, int, float]]:
        """(version id, schedule index, rating after) of ``versions``' history, in schedule
        order: the columns a chart draws, without a row object each."""
        query = (
            select(
                col(RatingChange.version_id),
                col(RatingChange.schedule_index),
                col(RatingChange.value_after),
            )
            .where(
                col(RatingChange.tournament_id) == tournament_id,
                col(RatingChange.version_id).in_(list(versions)),
            )
            .order_by(col(RatingChange.schedule_index), col(RatingChange.id))
        )
        with self._session() as session:
            return [(v, i, e) for v, i, e in session.exec(query)]
