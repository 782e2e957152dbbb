"""The duplicate pair: two games on the same deals, the second with every bot one seat on.

Team 0 sits at seats 0+2 of the first game and, one seat further clockwise, at 1+3 of the
second, so each partnership plays the cards the other held. This is the one place that
knows it: the seating, which team holds a seat in each game, and how a pair is scored.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

SEATS = 4


def second_seating(first: Sequence[T]) -> tuple[T, T, T, T]:
    """The second game's seats from the first's: the same players one seat clockwise."""
    a, b, c, d = first
    return d, a, b, c


def seat_in(game: int, seat: int) -> int:
    """Where the player at ``seat`` of the first game sits in ``game`` (1 or 2)."""
    return seat if game == 1 else (seat + 1) % SEATS


def first_game_seat(game: int, seat: int) -> int:
    """Where the player at ``seat`` of ``game`` sat in the first game (``seat_in`` undone)."""
    return seat if game == 1 else (seat - 1) % SEATS


def team_in_game(game: int, seat: int) -> int:
    """The pair's team at ``seat`` of ``game`` (1 or 2)."""
    return seat % 2 if game == 1 else 1 - seat % 2


def by_team(game: int, seat_totals: tuple[int, int]) -> tuple[int, int]:
    """A game's points of seats 0+2 and 1+3 as the pair's team 0's and team 1's (and back:
    the swap is its own inverse)."""
    a, b = seat_totals
    return (a, b) if game == 1 else (b, a)


def score_of_points(totals: tuple[int, int]) -> float:
    """Team 0's result from two point totals: 1 more, 1/2 equal, 0 fewer."""
    a, b = totals
    return 1.0 if a > b else 0.0 if a < b else 0.5


def score_of_winner(winner: int | None) -> float:
    """Team 0's score from the winning team (``None``: a draw)."""
    return 0.5 if winner is None else 1.0 - winner


@dataclass(frozen=True, slots=True)
class PairGame:
    """One game of a pair as its scoring sees it."""

    totals: tuple[int, int]  # points of seats 0+2 and 1+3
    forfeit_seat: int | None = None  # the seat whose fault ended the game


@dataclass(frozen=True, slots=True)
class Pair:
    """Both games of a duplicate pair; every score is team 0's."""

    first: PairGame
    second: PairGame

    @property
    def games(self) -> tuple[PairGame, PairGame]:
        return self.first, self.second

    @property
    def points(self) -> tuple[int, int]:
        """Each team's points over both games."""
        (a0, a1), (b0, b1) = (by_team(n, g.totals) for n, g in enumerate(self.games, 1))
        return a0 + b0, a1 + b1

    @property
    def forfeit(self) -> tuple[int, int] | None:
        """The first fault, as (game, seat): it decides the pair."""
        for number, game in enumerate(self.games, 1):
            if game.forfeit_seat is not None:
                return number, game.forfeit_seat
        return None

    @property
    def winner(self) -> int | None:
        """The team that won the pair: the first fault loses it, else more points win."""
        if (fault := self.forfeit) is not None:
            return 1 - team_in_game(*fault)
        a, b = self.points
        return None if a == b else 0 if a > b else 1

    @property
    def score(self) -> float:
        """1, 1/2 or 0 for the pair."""
        return score_of_winner(self.winner)

    @property
    def pentanomial_score(self) -> float:
        """The mean of the two game results (fishtest's pentanomial model): a fault loses
        that game, else more points win it."""
        results = []
        for number, game in enumerate(self.games, 1):
            if game.forfeit_seat is not None:
                results.append(float(team_in_game(number, game.forfeit_seat)))  # the other team won
            else:
                results.append(score_of_points(by_team(number, game.totals)))
        return sum(results) / 2


@dataclass(frozen=True)
class DuplicateSummary:
    pairs: int
    totals: tuple[int, int]  # over all pairs, team 0's and team 1's points
    mean_diff: float  # per pair: team 0's points minus team 1's
    stderr: float


def summarize(pairs: Sequence[Pair]) -> DuplicateSummary:
    """The mean points difference of many pairs, and its standard error."""
    diffs = [p.points[0] - p.points[1] for p in pairs]
    stderr = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else math.inf
    totals = (sum(p.points[0] for p in pairs), sum(p.points[1] for p in pairs))
    return DuplicateSummary(len(pairs), totals, statistics.fmean(diffs), stderr)
