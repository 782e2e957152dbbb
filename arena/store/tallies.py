"""Each version's running tallies in each tournament over its recorded results (the
figures of ``arena.competition.tallies``: game statistics and head-to-head), so that a bot's
statistics cost the same whatever the number of results.

The worker computes a match's tallies from the replays it holds; ``add`` merges them into
the stored rows inside the transaction that records the result (``Queue.finish``), so the
tallies and the results can never disagree. ``rebuild`` counts every done match again from
nothing, reading the stored replays: migration 0010's backfill, and a bulk load's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Connection, Table, delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col

from arena.competition.statistics import Statistics, seat_statistics
from arena.competition.tallies import Figures, PlayedPair, match_figures
from arena.engine.replay import Replay
from arena.read_model import MatchStatus

from .base import StoreBase
from .models import Blob, BotVersion, Match, VersionTally

TABLE: Table = VersionTally.__table__  # type: ignore[attr-defined]

# A tournament's tallies by version.
ByVersion = Mapping[int, Figures]


def add(connection: Connection, tournament_id: int, figures: ByVersion) -> None:
    """Merge one match's ``figures`` into the tournament's stored rows, in ``connection``'s
    transaction (the one that records the result), each row locked while it is read and
    written (two workers may finish matches of one version at once)."""
    if not figures:
        return
    table = TABLE
    empty = Figures().to_row()
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    missing = dialect.insert(table).on_conflict_do_nothing(
        index_elements=["tournament_id", "version_id"]
    )
    rows = [{"tournament_id": tournament_id, "version_id": v, **empty} for v in sorted(figures)]
    connection.execute(missing, rows)
    query = (
        select(table)
        .where(table.c.tournament_id == tournament_id, table.c.version_id.in_(list(figures)))
        .order_by(table.c.version_id)  # one order for every locker: no deadlock
        .with_for_update()
    )
    for row in connection.execute(query).all():
        stored = Figures.from_row(row.statistics, row.head_to_head)
        merged = stored.merged(figures[row.version_id])
        connection.execute(
            update(table)
            .where(table.c.tournament_id == tournament_id, table.c.version_id == row.version_id)
            .values(**merged.to_row())
        )


def rebuild(connection: Connection) -> None:
    """Forget every tally and count every done match again from its stored replays, in
    ``connection``'s transaction."""
    connection.execute(delete(TABLE))
    bot_of = _bots(connection)
    replays: dict[str, list[list[Statistics]]] = {}  # by key: a bulk load may share one
    statistics: dict[tuple[int, int], list[Statistics]] = {}
    heads: dict[tuple[int, int], dict[str, list[int]]] = {}
    for tournament_id, match, replay_key in _done(connection):
        key = replay_key or ""
        if key not in replays:
            replays.clear()
            replays[key] = _games(connection, replay_key)
        for version, more in match_figures(match, bot_of, replays[key]).items():
            at = (tournament_id, version)
            kept = statistics.setdefault(at, [])
            kept.append(more.statistics)
            if len(kept) >= 1024:  # merged now and then: memory stays bounded
                kept[:] = [Statistics.total(kept)]
            head = heads.setdefault(at, {})
            for opponent, counts in more.head_to_head.items():
                sums = head.setdefault(opponent, [0] * len(counts))
                sums[:] = [a + b for a, b in zip(sums, counts, strict=True)]
    rows: list[dict[str, Any]] = []
    for t, v in sorted(statistics.keys() | heads.keys()):
        summed = {k: tuple(c) for k, c in heads.get((t, v), {}).items()}
        figures = Figures(Statistics.total(statistics.get((t, v), [])), summed)
        rows.append({"tournament_id": t, "version_id": v, **figures.to_row()})
    if rows:
        connection.execute(insert(TABLE), rows)


def read(connection: Connection, tournament_id: int, versions: Iterable[int]) -> dict[int, Figures]:
    """The tournament's tallies of ``versions`` that have any."""
    query = select(TABLE).where(
        TABLE.c.tournament_id == tournament_id, TABLE.c.version_id.in_(list(versions))
    )
    rows = connection.execute(query)
    return {row.version_id: Figures.from_row(row.statistics, row.head_to_head) for row in rows}


# ---------------------------------------------------------------------- helpers


def _done(connection: Connection) -> list[tuple[int, PlayedPair, str | None]]:
    """Every done match: its tournament, what the tallies read of it, its replay's key."""
    seats = (col(Match.seat0), col(Match.seat1), col(Match.seat2), col(Match.seat3))
    query = select(
        col(Match.tournament_id),
        *seats,
        col(Match.points_team0),
        col(Match.points_team1),
        col(Match.winner),
        col(Match.replay_path),
    ).where(col(Match.status) == MatchStatus.DONE)
    out = []
    for row in connection.execute(query.order_by(col(Match.id))):
        p0, p1 = row.points_team0, row.points_team1
        points = None if p0 is None or p1 is None else (p0, p1)
        played = PlayedPair((row[1], row[2], row[3], row[4]), points, row.winner)
        out.append((row.tournament_id, played, row.replay_path))
    return out


def _bots(connection: Connection) -> dict[int, int]:
    """The bot of every version."""
    query = select(col(BotVersion.id), col(BotVersion.bot_id))
    return {v: b for v, b in connection.execute(query) if v is not None}


def _games(connection: Connection, replay_key: str | None) -> list[list[Statistics]]:
    """The seat statistics of a match's two games (none without a stored replay)."""
    if replay_key is None:
        return []
    query = select(col(Blob.data)).where(col(Blob.key) == replay_key)
    data = connection.execute(query).scalar()
    if data is None:
        return []  # a record that was never stored: nothing to count
    return [seat_statistics(Replay.from_dict(game)) for game in json.loads(data)["games"]]


class Tallies(StoreBase):
    def tallies(self, tournament_id: int, versions: Iterable[int]) -> dict[int, Figures]:
        """The tournament's tallies of ``versions`` that have played a done match in it."""
        with self._session() as session:
            return read(session.connection(), tournament_id, versions)

    def rebuild_tallies(self) -> None:
        """Count every done match again (after rows were written around ``finish``)."""
        with self._session(write=True) as session:
            rebuild(session.connection())
