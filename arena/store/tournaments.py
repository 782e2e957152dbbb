"""Tournaments: created under a unique name with checked settings, looked up by name or id,
listed."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from arena.read_model import RatingModelName, ScheduleKind, TournamentFormat, TournamentKind

from .base import StoreBase
from .errors import NameTaken, NotFound, StoreError
from .models import Match, Tournament
from .names import check_name
from .queue import MatchSpec, append_matches


class Tournaments(StoreBase):
    def create_tournament(
        self,
        name: str,
        *,
        seed: int,
        kind: TournamentKind = TournamentKind.TOURNAMENT,
        format: TournamentFormat = TournamentFormat.PAIRS,
        games_per_pairing: int = 1,
        limits: Mapping[str, Any] | None = None,
        rating_model: RatingModelName = RatingModelName.ELO,
        schedule: Callable[[Tournament], Sequence[MatchSpec]] | None = None,
        schedule_kind: ScheduleKind = ScheduleKind.ROUND_ROBIN,
    ) -> Tournament:
        """A new tournament, the matches ``schedule`` gives for it (its id decides their
        seeds) queued in the same transaction: a crash leaves the tournament with its whole
        schedule, or neither."""
        check_name("tournament", name)
        TournamentKind(kind)
        TournamentFormat(format)
        RatingModelName(rating_model)
        ScheduleKind(schedule_kind)
        if games_per_pairing < 1:
            raise StoreError(f"games per pairing must be >= 1, got {games_per_pairing}")

        def add(session: Session) -> Tournament:
            if session.exec(select(Tournament).where(Tournament.name == name)).first():
                raise NameTaken(f"tournament name {name!r} is taken")
            tournament = Tournament(
                name=name,
                kind=kind,
                format=format,
                games_per_pairing=games_per_pairing,
                rating_model=rating_model,
                schedule=schedule_kind,
                seed=seed,
                limits=dict(limits or {}),
                created_at=time.time(),
            )
            session.add(tournament)
            session.flush()
            assert tournament.id is not None
            if schedule is not None:
                append_matches(session, tournament.id, schedule(tournament))
            return tournament

        return self._retrying(add)

    def append_planned(self, tournament_id: int, at: int, specs: Sequence[MatchSpec]) -> bool:
        """Append ``specs`` only if the schedule is still ``at`` matches long (what they were
        planned from, and their seeds drawn for), the tournament's row locked meanwhile (as
        settling locks the ladder's); False, storing nothing, if it has grown since."""

        def add(session: Session) -> bool:
            query = select(Tournament).where(Tournament.id == tournament_id).with_for_update()
            if session.exec(query).first() is None:
                raise NotFound(f"unknown tournament id {tournament_id}")
            length = session.exec(
                select(func.count()).where(Match.tournament_id == tournament_id)
            ).one()
            if int(length) != at:
                return False
            append_matches(session, tournament_id, specs)
            return True

        return self._retrying(add)

    def tournament(self, name: str) -> Tournament:
        with self._session() as session:
            tournament = session.exec(select(Tournament).where(Tournament.name == name)).first()
        if tournament is None:
            raise NotFound(f"unknown tournament {name!r}")
        return tournament

    def tournament_by_id(self, tournament_id: int) -> Tournament:
        with self._session() as session:
            tournament = session.get(Tournament, tournament_id)
        if tournament is None:
            raise NotFound(f"unknown tournament id {tournament_id}")
        return tournament

    def tournaments(self) -> list[Tournament]:
        with self._session() as session:
            return list(session.exec(select(Tournament).order_by(col(Tournament.id))))
