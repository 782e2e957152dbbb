"""A match's tallies: what one finished duplicate pair adds to each of its versions' running
figures, its game statistics (``statistics.seat_statistics`` of its two replays) and its
head-to-head record. Pure: the worker computes them from the replays it holds, and the store
adds them up with the result in one transaction (``arena/store/tallies.py``).

Head-to-head is per bot, as the bot page shows it: a match counts for each bot that sits on
one team only (a bot on both teams has no opponent), once per team, under the version at
that team's first seat that is the bot's; the opponent is the other team's two versions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .pairs import second_seating
from .statistics import Statistics

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
class PlayedPair:
    """What the tallies read of a finished match: the versions at the first game's seats,
    each team's points over the pair and the winning team (None: a draw), as recorded."""

    seats: tuple[int, int, int, int]
    points: tuple[int, int] | None  # None: a row without them (no head-to-head to count)
    winner: int | None


def opponent_key(versions: Sequence[int]) -> str:
    return ",".join(str(v) for v in versions)


def opponent_versions(key: str) -> tuple[int, int]:
    a, b = key.split(",")
    return int(a), int(b)


def match_figures(
    match: PlayedPair, bot_of: Mapping[int, int], games: Sequence[Sequence[Statistics]]
) -> dict[int, Figures]:
    """One finished match's tallies by version: ``bot_of`` maps its versions to their bots,
    ``games`` are its two replays' ``seat_statistics`` (none when it has no replay)."""
    seats = match.seats
    figures: dict[int, Figures] = {}

    def add(version: int, more: Figures) -> None:
        figures[version] = figures[version].merged(more) if version in figures else more

    for number, by_seat in enumerate(games, start=1):
        at = seats if number == 1 else second_seating(seats)
        for seat, stats in enumerate(by_seat):
            add(at[seat], Figures(stats))
    points = match.points
    if points is None:
        return figures
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
