"""Results of duplicate matches, and each entry's record: W/D/L and mean score difference."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .pairs import score_of_points
from .schedule import Entry, Fixture, Team

SCORES = (0.0, 0.5, 1.0)


def entry_key(entry: Entry) -> tuple[int, int, str]:
    """A total order on entries (ints by value, then strings), for outputs that must not
    depend on the order results arrived in."""
    return (1, 0, entry) if isinstance(entry, str) else (0, entry, "")


@dataclass(frozen=True)
class ScoredMatch:
    index: int  # the match's schedule index
    teams: tuple[Team, Team]
    totals: tuple[int, int]  # each team's points over both games of the pair
    score: float  # team 0's: 1 won the pair, 0.5 drew, 0 lost

    def __post_init__(self) -> None:
        if self.score not in SCORES:
            raise ValueError(f"a pair's score is 0, 0.5 or 1, got {self.score!r}")
        if set(self.teams[0]) & set(self.teams[1]):
            raise ValueError(f"match {self.index}: an entry on both teams {self.teams!r}")

    @classmethod
    def of(cls, match: Fixture, totals: tuple[int, int], score: float | None = None) -> ScoredMatch:
        """``score`` defaults to what the totals say; give it when a forfeit decided it."""
        return cls(
            match.index, match.teams, totals, score_of_points(totals) if score is None else score
        )


@dataclass(frozen=True)
class Record:
    pairs: int  # duplicate pairs played (each two games)
    wins: int
    draws: int
    losses: int
    diff: int  # own team's points minus the other team's, summed over the pairs

    @property
    def games(self) -> int:
        return 2 * self.pairs

    @property
    def mean_diff(self) -> float:
        return self.diff / self.pairs if self.pairs else 0.0


def records(results: Iterable[ScoredMatch], entries: Iterable[Entry] = ()) -> dict[Entry, Record]:
    """Each entry's record (both partners of a mixed team share the team's), ordered by
    ``entry_key``; ``entries`` adds those without results yet."""
    tally: dict[Entry, list[int]] = {e: [0, 0, 0, 0, 0] for e in entries}
    for r in results:
        diff = r.totals[0] - r.totals[1]
        for side, sign in ((0, 1), (1, -1)):
            won = r.score if side == 0 else 1.0 - r.score
            outcome = 1 if won == 1.0 else 2 if won == 0.5 else 3
            for entry in set(r.teams[side]):  # (a, a) in pairs counts once
                t = tally.setdefault(entry, [0, 0, 0, 0, 0])
                t[0] += 1
                t[outcome] += 1
                t[4] += sign * diff
    return {e: Record(*tally[e]) for e in sorted(tally, key=entry_key)}
