"""Schedulers: the next matches to queue, given the entries, the schedule so far and, for
the adaptive one, the ranking its results show. Pure: the league stores what they return.

- :class:`RoundRobin` (``round-robin``): every pairing once per ``games_per_pairing``; an
  entry that joins plays every other (``schedule.grow``). It needs no results.
- :class:`Adaptive` (``adaptive``): matches chosen by what they teach.
  An entry with fewer than ``placement`` matches is being placed: it gets up to
  ``placement_step`` opponents per call, those whose result most narrows its interval
  (near its estimate, where a result is a coin toss, and uncertain themselves: the result
  teaches about both). Then the ladder's placed neighbours whose order is least certain
  (likelihood of superiority below ``SEPARATED``; those met least, then nearest 50%, first),
  each entry once per call, until every such pair has met ``max_per_pair`` times. It
  returns nothing once no match would teach anything more: a tournament then ends; a
  ladder waits for a new entry. In ``mixed`` each of those matches is a table: the two
  opposed, each partnered by one of the two free entries rated nearest them, the stronger
  partner with the weaker of the two.

Both are deterministic: the same entries, schedule and ranking give the same tables, ties
broken by ``entry_key``.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal, Protocol, TypeAlias

from .elo_ratings import SEPARATED, Z95
from .rating_model import Ranking
from .results import entry_key
from .schedule import Entry, Format, ScheduleError, Team, grow, round_robin

Table: TypeAlias = tuple[Team, Team]  # team 0 (seats 0+2 of the first game), team 1
ScheduleName: TypeAlias = Literal["round-robin", "adaptive"]
SCHEDULES: tuple[ScheduleName, ...] = ("round-robin", "adaptive")


@dataclass(frozen=True)
class Situation:
    """What a scheduler sees."""

    entries: Sequence[Entry]  # the active entries, in the order they joined
    scheduled: Sequence[Table]  # every match scheduled and not cancelled, in schedule order
    ranking: Ranking | None = None  # the rating model's, from the results so far
    scale: float = 400 / math.log(10)  # rating points per natural log-odds of a pair's score
    # An entry joining a ladder: only its first placement matches are due (the others wait
    # for results, which a join does not wait for).
    joining: Entry | None = None


class Scheduler(Protocol):
    name: ScheduleName
    needs_ranking: bool  # False: the league need not compute a ranking to call it

    def next_tables(self, situation: Situation) -> list[Table]:
        """The tables to append to the schedule now, in order; [] if there are none."""
        ...


class RoundRobin:
    """Every pairing among the entries; entries not yet in the schedule join as ``grow``
    has them join (the first ones, of a fresh schedule, by ``round_robin``'s circle)."""

    name: ScheduleName = "round-robin"
    needs_ranking = False

    def __init__(self, format: Format = "pairs", games_per_pairing: int = 1) -> None:
        round_robin([], format, games_per_pairing)  # checks the options
        self.format = format
        self.games_per_pairing = games_per_pairing

    def next_tables(self, situation: Situation) -> list[Table]:
        playing = {e for table in situation.scheduled for team in table for e in team}
        placed = [e for e in situation.entries if e in playing]
        new = [e for e in situation.entries if e not in playing]
        if not placed:
            fresh = round_robin(new, self.format, self.games_per_pairing)
            return [m.teams for m in fresh]
        tables: list[Table] = []
        for entry in new:
            joined = grow(placed, entry, self.format, self.games_per_pairing)
            tables += [m.teams for m in joined]
            placed.append(entry)
        return tables


PLACEMENT = 32  # matches that place a new entry
PLACEMENT_STEP = 8  # of which at most this many are chosen from one ranking
MAX_PER_PAIR = 4  # the adaptive schedule's cap on meetings of two entries
BATCH = 16  # tables per call at most, newcomers' included (one newcomer may exceed it)
_NORMAL = NormalDist()
# How far around its estimate a newcomer's opponents are spread, in its sd: 0 piles them at
# the estimate (placement is best, ``bench/scheduling.py``), 1 spreads them over its interval
# (a ladder placed from scratch keeps its intervals truer).
OPPONENT_SPREAD = 0.0


class Adaptive:
    name: ScheduleName = "adaptive"
    needs_ranking = True

    def __init__(
        self,
        format: Format = "pairs",
        *,
        placement: int = PLACEMENT,
        placement_step: int = PLACEMENT_STEP,
        max_per_pair: int = MAX_PER_PAIR,
        batch: int = BATCH,
        spread: float = OPPONENT_SPREAD,
    ) -> None:
        if min(placement, placement_step, max_per_pair, batch) < 1:
            raise ScheduleError("the adaptive schedule's counts must be at least 1")
        self.format = format
        self.placement = placement
        self.placement_step = placement_step
        self.max_per_pair = max_per_pair
        self.batch = batch
        self.spread = spread

    def next_tables(self, situation: Situation) -> list[Table]:
        entries = sorted(set(situation.entries), key=entry_key)
        if len(entries) < 2:
            return []
        if situation.ranking is None:
            raise ScheduleError("the adaptive schedule chooses from a ranking")
        ranking = situation.ranking
        rating, sd = _estimates(ranking, entries)
        played: Counter[Entry] = Counter()
        met: Counter[frozenset[Entry]] = Counter()
        active = set(entries)
        for table in situation.scheduled:
            _count(table, active, played, met)
        tables: list[Table] = []
        busy: set[Entry] = set()  # entries in this call's tables
        mixed = self.format == "mixed"
        if mixed and len(entries) < 4:
            return []

        def add(a: Entry, b: Entry, partners: Sequence[Entry] = ()) -> None:
            """``a`` against ``b``; in mixed, each with one of ``partners`` (the stronger
            with the weaker, so that the table is a coin toss)."""
            if mixed:
                x, y = sorted(partners, key=lambda e: (-rating[e], entry_key(e)))
                weak_a = (rating[a], entry_key(a)) <= (rating[b], entry_key(b))
                table: Table = ((a, x), (b, y)) if weak_a else ((a, y), (b, x))
            else:
                # Alternate which side sits first with each meeting of the two.
                first, second = (a, b) if met[frozenset((a, b))] % 2 == 0 else (b, a)
                table = ((first, first), (second, second))
            tables.append(table)
            _count(table, active, played, met)
            busy.update((a, b, *partners))

        def partners_for(a: Entry, b: Entry, fresh: bool = False) -> list[Entry]:
            """Two free entries nearest the middle of ``a`` and ``b`` (mixed): the table's
            result then tells most about the two. ``fresh``: busy ones too if need be."""
            free = [e for e in entries if e not in (a, b) and (fresh or e not in busy)]
            middle = (rating[a] + rating[b]) / 2
            return sorted(free, key=lambda e: (abs(rating[e] - middle), entry_key(e)))[:2]

        # Placement: each placing entry its best opponents by what the result would teach,
        # an opponent at most once per call.
        placement, step = placement_for(len(entries), self.placement, self.placement_step)
        placing = [e for e in entries if played[e] < placement]
        if situation.joining is not None:
            placing = [e for e in placing if e == situation.joining]
        # One not yet met first; then from the top of the ranking down, so that neighbours
        # take each other (a Swiss round's pairing), not whoever came first.
        placing.sort(key=lambda e: (played[e] > 0, -rating[e], entry_key(e)))
        for new in placing:
            if new in busy or (len(tables) >= self.batch and played[new] > 0):
                continue  # placed further by the next call; one not yet met never waits
            want = min(step, placement - played[new])
            # One never seated meets whoever it must: a tournament's entries are those its
            # schedule seats.
            fresh = played[new] == 0
            free = [
                e
                for e in entries
                if e != new
                and (fresh or e not in busy)
                and met[frozenset((new, e))] < self.max_per_pair
            ]
            chosen = best_opponents(
                new, free, rating, sd, situation.scale, met, want, self.spread, played
            )
            for other in chosen:
                if not mixed:
                    add(new, other)
                elif (fresh or other not in busy) and len(
                    two := partners_for(new, other, fresh)
                ) == 2:
                    add(new, other, two)
            busy.add(new)
        # Refinement: adjacent placed entries whose order is least certain, each entry once
        # (one still being placed is, by its placement).
        if situation.joining is not None:
            return tables
        order = [
            s.entry for s in ranking.ranking if s.entry in active and played[s.entry] >= placement
        ]
        doubtful = []
        for a, b in itertools.pairwise(order):
            los = ranking.los(a, b)
            if los < SEPARATED and met[frozenset((a, b))] < self.max_per_pair:
                doubtful.append((met[frozenset((a, b))], abs(los - 0.5), entry_key(a), a, b))
        for *_, a, b in sorted(doubtful):
            if len(tables) >= self.batch:
                break
            if a in busy or b in busy:
                continue
            if not mixed:
                add(a, b)
            elif len(two := partners_for(a, b)) == 2:
                add(a, b, two)
        return tables


def _count(
    table: Table, active: set[Entry], played: Counter[Entry], met: Counter[frozenset[Entry]]
) -> None:
    """Count a table's active entries as having played, and each two of them on opposite
    teams as having met (in ``pairs``, the table's two entries once)."""
    (a, c), (b, d) = table
    played.update({a, b, c, d} & active)
    opposed = {frozenset((x, y)) for x in (a, c) for y in (b, d) if {x, y} <= active}
    met.update(opposed)


def placement_for(
    entries: int, placement: int = PLACEMENT, step: int = PLACEMENT_STEP
) -> tuple[int, int]:
    """The matches that place a new entry among ``entries``, and how many of them one plan
    chooses: a quarter of the others at most, never a round-robin; a small ladder's are a
    few rounds of a Swiss system, one opponent a plan, each chosen by the results before it.

    >>> placement_for(200), placement_for(20), placement_for(3)
    ((32, 8), (4, 1), (1, 1))
    """
    placing = min(placement, max(1, (entries - 1) // 4))
    return placing, min(step, max(1, placing // 4))


def best_opponents(
    new: Entry,
    candidates: Sequence[Entry],
    rating: dict[Entry, float],
    sd: dict[Entry, float],
    scale: float,
    met: Counter[frozenset[Entry]],
    k: int,
    spread: float = OPPONENT_SPREAD,
    played: Mapping[Entry, int] | None = None,
) -> list[Entry]:
    """``k`` opponents for ``new``, one for each of ``k`` evenly spaced quantiles of a normal
    around its estimate with ``spread`` times its sd: at each, the candidate whose result
    would teach the most were ``new`` rated there (with ``spread`` 0, the ``k`` that teach the
    most). Spread, an entry whose estimate is off still meets some that pull it back: piled
    at the estimate, a fresh ladder's lucky entries meet each other and its fit stretches."""
    # Ties (a ladder with no results yet) go to the least played: its interval will narrow
    # the most.
    load = played or {}
    left = sorted(candidates, key=lambda e: (load.get(e, 0), entry_key(e)))
    chosen: list[Entry] = []
    for i in range(min(k, len(left))):
        at = rating[new] + spread * sd[new] * _NORMAL.inv_cdf((i + 0.5) / k)
        best = max(left, key=lambda other: _taught(at, rating, sd, new, other, scale, met))
        chosen.append(best)
        left.remove(best)
    return chosen


def _estimates(
    ranking: Ranking, entries: Sequence[Entry]
) -> tuple[dict[Entry, float], dict[Entry, float]]:
    """Each entry's rating and standard deviation as the ranking shows them."""
    rating = {e: ranking[e].rating for e in entries}
    sd = {e: ranking[e].ci95 / Z95 for e in entries}
    return rating, sd


def _taught(
    ra: float,
    rating: dict[Entry, float],
    sd: dict[Entry, float],
    a: Entry,
    b: Entry,
    scale: float,
    met: Counter[frozenset[Entry]],
) -> float:
    """How much a result of ``a`` (rated ``ra``) against ``b`` is expected to narrow their
    intervals: the
    fall of Var(a) + Var(b) (a result informs their difference, with Fisher information
    p(1 - p) at the expected score, each entry's share by its own variance). A pair that met
    already teaches less: what its first meetings told is correlated with the next's."""
    va, vb = (sd[a] / scale) ** 2, (sd[b] / scale) ** 2
    spread = va + vb
    # The expected score over both ratings' uncertainty (the probit approximation).
    x = (ra - rating[b]) / scale / math.sqrt(1 + math.pi * spread / 8)
    p = 1.0 / (1.0 + math.exp(-x))
    info = p * (1.0 - p)
    fall = (va * va + vb * vb) * info / (1.0 + spread * info)
    return fall / (1 + met[frozenset((a, b))])


def scheduler_named(name: str, format: Format = "pairs", games_per_pairing: int = 1) -> Scheduler:
    """A tournament's scheduler, by its stored name."""
    if name == "round-robin":
        return RoundRobin(format, games_per_pairing)
    if name == "adaptive":
        return Adaptive(format)
    raise ScheduleError(f"unknown schedule {name!r}: one of {', '.join(SCHEDULES)}")
