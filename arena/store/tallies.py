"""Each version's running tallies over its recorded results: its game statistics (the
accumulators of ``arena.competition.statistics``, from the replays) and its head-to-head record,
so that a bot page costs the same whatever the number of results.

``add_result`` counts one finished match, inside the transaction that records it
(``Queue.finish``), so the tallies and the results can never disagree; ``rebuild`` counts
every done match again from nothing (migration 0005's backfill, and a bulk load's).

Head-to-head is per bot, as the bot page shows it: a match counts for each bot that sits on
one team only (a bot on both teams has no opponent), once per team, under the version at
that team's first seat that is the bot's; the opponent is the other team's two versions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Table, delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col

from arena.competition.statistics import Statistics, seat_statistics
from arena.engine.replay import Replay
from arena.read_model import MatchStatus

from .base import StoreBase
from .models import Blob, BotVersion, Match, VersionTally

TABLE: Table = VersionTally.__table__  # type: ignore[attr-defined]
HEAD_TO_HEAD = ("pairs", "wins", "draws", "losses", "points_for", "points_against")


@dataclass(frozen=True)
class Figures:
    """A version's tallies: statistics, and head-to-head by the opponent team's versions
    (``"b,d"``) as ``HEAD_TO_HEAD`` counts."""

    statistics: Statistics = field(default_factory=Statistics)
    head_to_head: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    def merged(self, other: Figures) -> Figures:
        head = dict(self.head_to_head)
        for key, counts in other.head_to_head.items():
            mine = head.get(key, (0,) * len(HEAD_TO_HEAD))
            head[key] = tuple(a + b for a, b in zip(mine, counts, strict=True))
        return Figures(self.statistics.merged(other.statistics), head)

    def to_row(self) -> dict[str, Any]:
        return {
            "statistics": self.statistics.to_record(),
            "head_to_head": {k: list(v) for k, v in sorted(self.head_to_head.items())},
        }

    @classmethod
    def from_row(cls, statistics: Mapping[str, Any], head: Mapping[str, Any]) -> Figures:
        return cls(Statistics.from_record(statistics), {k: tuple(v) for k, v in head.items()})


@dataclass(frozen=True)
class Result:
    """What the tallies read of a done match (see ``models.Match`` for the seats and teams)."""

    seats: tuple[int, int, int, int]
    points: tuple[int, int] | None
    winner: int | None
    replay_path: str | None


def opponent_key(versions: Sequence[int]) -> str:
    return ",".join(str(v) for v in versions)


def opponent_versions(key: str) -> tuple[int, int]:
    a, b = key.split(",")
    return int(a), int(b)


def match_figures(
    match: Result, bot_of: Mapping[int, int], games: Sequence[Sequence[Statistics]]
) -> dict[int, Figures]:
    """One done match's tallies by version: ``bot_of`` maps its versions to their bots,
    ``games`` are its two replays' ``seat_statistics`` (none when it has no replay)."""
    seats = match.seats
    figures: dict[int, Figures] = {}

    def add(version: int, more: Figures) -> None:
        figures[version] = figures[version].merged(more) if version in figures else more

    for number, by_seat in enumerate(games, start=1):
        # The second game seats everyone one seat further clockwise (arena.play.rotated).
        at = seats if number == 1 else (seats[3], seats[0], seats[1], seats[2])
        for seat, stats in enumerate(by_seat):
            add(at[seat], Figures(stats))
    if match.points is not None:
        points = match.points
        teams = ((seats[0], seats[2]), (seats[1], seats[3]))
        for team in (0, 1):
            others = teams[1 - team]
            theirs = {bot_of[v] for v in others}
            counted: set[int] = set()
            for version in teams[team]:
                bot = bot_of[version]
                if bot in theirs or bot in counted:
                    continue
                counted.add(bot)
                won = match.winner == team
                drawn = match.winner is None
                counts = (1, int(won), int(drawn), int(not won and not drawn))
                head = {opponent_key(others): (*counts, points[team], points[1 - team])}
                add(version, Figures(head_to_head=head))
    return figures


def add_result(connection: Connection, match_id: int) -> None:
    """Count the done match ``match_id`` in its versions' tallies, in ``connection``'s
    transaction (the one that records the result)."""
    match = _done(connection, [match_id])[0]
    figures = match_figures(match, _bots(connection, match.seats), _games(connection, match))
    _add(connection, figures)


def rebuild(connection: Connection) -> None:
    """Forget every tally and count every done match again, in ``connection``'s transaction."""
    connection.execute(delete(TABLE))
    bot_of = _bots(connection, None)
    replays: dict[str, list[list[Statistics]]] = {}  # by key: a bulk load may share one
    statistics: dict[int, list[Statistics]] = {}
    heads: dict[int, dict[str, list[int]]] = {}
    for match in _done(connection, None):
        key = match.replay_path or ""
        if key not in replays:
            replays.clear()
            replays[key] = _games(connection, match)
        for version, more in match_figures(match, bot_of, replays[key]).items():
            kept = statistics.setdefault(version, [])
            kept.append(more.statistics)
            if len(kept) >= 1024:  # merged now and then: memory stays bounded
                kept[:] = [Statistics.total(kept)]
            head = heads.setdefault(version, {})
            for opponent, counts in more.head_to_head.items():
                sums = head.setdefault(opponent, [0] * len(counts))
                sums[:] = [a + b for a, b in zip(sums, counts, strict=True)]
    total: dict[int, Figures] = {}
    for v in sorted(statistics.keys() | heads.keys()):
        summed = {k: tuple(c) for k, c in heads.get(v, {}).items()}
        total[v] = Figures(Statistics.total(statistics.get(v, [])), summed)
    if total:
        connection.execute(
            insert(TABLE),
            [{"version_id": v, **f.to_row()} for v, f in sorted(total.items())],
        )


def read(connection: Connection, versions: Iterable[int]) -> dict[int, Figures]:
    """The tallies of ``versions`` that have any."""
    query = select(TABLE).where(TABLE.c.version_id.in_(list(versions)))
    rows = connection.execute(query)
    return {row.version_id: Figures.from_row(row.statistics, row.head_to_head) for row in rows}


# ---------------------------------------------------------------------- helpers


def _done(connection: Connection, ids: list[int] | None) -> list[Result]:
    seats = (col(Match.seat0), col(Match.seat1), col(Match.seat2), col(Match.seat3))
    query = select(
        *seats,
        col(Match.points_team0),
        col(Match.points_team1),
        col(Match.winner),
        col(Match.replay_path),
    ).where(col(Match.status) == MatchStatus.DONE)
    if ids is not None:
        query = query.where(col(Match.id).in_(ids))
    out = []
    for row in connection.execute(query.order_by(col(Match.id))):
        p0, p1 = row.points_team0, row.points_team1
        points = None if p0 is None or p1 is None else (p0, p1)
        out.append(Result((row[0], row[1], row[2], row[3]), points, row.winner, row.replay_path))
    return out


def _bots(connection: Connection, versions: Iterable[int] | None) -> dict[int, int]:
    """The bot of each version (of every version, given None)."""
    query = select(col(BotVersion.id), col(BotVersion.bot_id))
    if versions is not None:
        query = query.where(col(BotVersion.id).in_(list(versions)))
    return {v: b for v, b in connection.execute(query) if v is not None}


def _games(connection: Connection, match: Result) -> list[list[Statistics]]:
    """The seat statistics of the match's two games (none without a stored replay)."""
    if match.replay_path is None:
        return []
    query = select(col(Blob.data)).where(col(Blob.key) == match.replay_path)
    data = connection.execute(query).scalar()
    if data is None:
        return []  # a record that was never stored: nothing to count
    return [seat_statistics(Replay.from_dict(game)) for game in json.loads(data)["games"]]


def _add(connection: Connection, figures: Mapping[int, Figures]) -> None:
    """Merge ``figures`` into the stored rows, each row locked while it is read and written
    (two workers may finish matches of one version at once)."""
    if not figures:
        return
    table = TABLE
    empty = Figures().to_row()
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    missing = dialect.insert(table).on_conflict_do_nothing(index_elements=["version_id"])
    connection.execute(missing, [{"version_id": v, **empty} for v in sorted(figures)])
    query = (
        select(table)
        .where(table.c.version_id.in_(list(figures)))
        .order_by(table.c.version_id)  # one order for every locker: no deadlock
        .with_for_update()
    )
    for row in connection.execute(query).all():
        stored = Figures.from_row(row.statistics, row.head_to_head)
        merged = stored.merged(figures[row.version_id])
        connection.execute(
            update(table).where(table.c.version_id == row.version_id).values(**merged.to_row())
        )


class Tallies(StoreBase):
    def tallies(self, versions: Iterable[int]) -> dict[int, Figures]:
        """The tallies of ``versions`` that have played a done match."""
        with self._session() as session:
            return read(session.connection(), versions)

    def rebuild_tallies(self) -> None:
        """Count every done match again (after rows were written around ``finish``)."""
        with self._session(write=True) as session:
            rebuild(session.connection())
