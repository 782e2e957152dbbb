"""Round-robin schedules of duplicate matches, in the order they are to be played.

A ``Fixture`` is one duplicate pair of games: the same seeded deals twice, the second time with
the partnerships swapped between seats, so neither team keeps the better cards. The pair is
the unit of result.

Formats:

- ``pairs``: each team is two copies of one entry; every two entries meet
  ``games_per_pairing`` times.
- ``mixed``: four different entries at a table. The design is every 4-subset of the entries
  under each of its 3 partnership splits, each played ``games_per_pairing`` times: every two
  entries then partner ``g * C(n-2, 2)`` times and oppose twice as often. No exactly
  balanced design that grows by appending does with fewer tables: when entry n+1 joins,
  each new table holds an old partnership, so the common partner count must grow by a
  factor of at least (n-1)/(n-3), like n^2 in all, hence n^4 tables; this one meets that
  bound. So mixed is for small ladders: ``MIXED_MAX_ENTRIES`` caps it (3 * C(32, 4) =
  107,880 tables).

A ladder's schedule is ``round_robin`` of its first entries, then ``grow`` for each entry
that joins: indices continue, and every seed comes from ``(seed_key, index)`` through
HMAC-SHA256: one way, so the seeds of played matches (shown in their replays) tell nothing
of the matches to come, and without the key no one can compute any of them.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from .pairs import second_seating

Entry: TypeAlias = int | str  # opaque to the ladder: a version id, a name
Team: TypeAlias = tuple[Entry, Entry]  # partners; in the first game at seats 0 and 2
Seating: TypeAlias = tuple[Entry, Entry, Entry, Entry]  # who sits at seats 0..3
Format: TypeAlias = Literal["pairs", "mixed"]

FORMATS: tuple[Format, ...] = ("pairs", "mixed")
MIXED_MAX_ENTRIES = 32
SEED_BITS = 63  # fits a signed 64-bit database column


class ScheduleError(ValueError):
    """Entries or options that make no schedule: duplicates, an unknown format, too many."""


@dataclass(frozen=True, slots=True)
class Fixture:
    index: int  # position in the ladder's schedule; results are rated in this order
    seed: int  # the deals of both games
    teams: tuple[Team, Team]

    @property
    def games(self) -> tuple[Seating, Seating]:
        """The two games' seatings: team 0 at seats 0+2, then the same deals one seat on."""
        (a, c), (b, d) = self.teams
        first = (a, b, c, d)
        return first, second_seating(first)

    @property
    def entries(self) -> frozenset[Entry]:
        return frozenset(self.teams[0] + self.teams[1])


def match_seeds(seed_key: bytes, start: int, count: int) -> list[int]:
    """The seeds of matches ``start .. start + count - 1``: HMAC-SHA256 of each index under
    ``seed_key``, cut to ``SEED_BITS``. A big round-robin needs ~100,000 at once: about 0.1 s.
    Distinct in practice: a repeat among a million seeds has odds of about 1 in 10^7."""
    mac = hmac.new(seed_key, digestmod=hashlib.sha256)
    seeds = []
    for index in range(start, start + count):
        h = mac.copy()
        h.update(index.to_bytes(8, "big"))
        seeds.append(int.from_bytes(h.digest()[:8], "big") >> (64 - SEED_BITS))
    return seeds


def match_seed(seed_key: bytes, index: int) -> int:
    return match_seeds(seed_key, index, 1)[0]


def match_count(entries: int, format: Format = "pairs", games_per_pairing: int = 1) -> int:
    """How many matches ``round_robin`` schedules for that many entries."""
    _check(format, games_per_pairing)
    if format == "pairs":
        return games_per_pairing * math.comb(entries, 2)
    return games_per_pairing * 3 * math.comb(entries, 4)


def round_robin(
    entries: Sequence[Entry],
    format: Format = "pairs",
    games_per_pairing: int = 1,
    seed_key: bytes = b"",
    start: int = 0,
) -> list[Fixture]:
    """Every match among ``entries``, indexed from ``start``.

    Pairs are ordered by the circle method, so at any point of a run every entry has played
    about as often as any other. Mixed is the sequence of ``grow`` steps, entry by entry.
    """
    _check(format, games_per_pairing)
    _distinct(entries)
    tables: Iterator[tuple[Team, Team]]
    if format == "mixed":
        _mixed_cap(len(entries))
        tables = itertools.chain.from_iterable(
            _mixed_tables(entries, k, games_per_pairing) for k in range(len(entries))
        )
    else:
        tables = _circle(entries, games_per_pairing)
    return _numbered(tables, seed_key, start)


def grow(
    entries: Sequence[Entry],
    new: Entry,
    format: Format = "pairs",
    games_per_pairing: int = 1,
    seed_key: bytes = b"",
    start: int = 0,
) -> list[Fixture]:
    """The matches to append when ``new`` joins ``entries``: exactly those it plays in.

    ``start`` is the length of the schedule so far. As sets of pairings,
    ``round_robin(entries + [new])`` is ``round_robin(entries)`` plus these.
    """
    _check(format, games_per_pairing)
    everyone = [*entries, new]
    _distinct(everyone)
    tables: Iterator[tuple[Team, Team]]
    if format == "mixed":
        _mixed_cap(len(everyone))
        tables = _mixed_tables(everyone, len(entries), games_per_pairing)
    else:
        tables = (
            _oriented((new, new), (other, other), rep)
            for rep in range(games_per_pairing)
            for other in entries
        )
    return _numbered(tables, seed_key, start)


def _numbered(tables: Iterator[tuple[Team, Team]], seed_key: bytes, start: int) -> list[Fixture]:
    teams = list(tables)
    seeds = match_seeds(seed_key, start, len(teams))
    return [Fixture(i, s, t) for i, (s, t) in enumerate(zip(seeds, teams, strict=True), start)]


def _oriented(a: Team, b: Team, rep: int) -> tuple[Team, Team]:
    # Alternate which team is "first" (seats 0+2 in game 1) between repetitions.
    return (a, b) if rep % 2 == 0 else (b, a)


def _circle(entries: Sequence[Entry], games_per_pairing: int) -> Iterator[tuple[Team, Team]]:
    slots: list[Team | None] = [(e, e) for e in entries]  # shared: 100,000 matches, 1 tuple each
    if len(slots) % 2:
        slots.append(None)  # a bye
    m = len(slots)
    for rep in range(games_per_pairing):
        ring = slots[1:]
        for _ in range(m - 1):
            row = [slots[0], *ring]
            for i in range(m // 2):
                a, b = row[i], row[m - 1 - i]
                if a is not None and b is not None:
                    yield _oriented(a, b, rep)
            ring = ring[-1:] + ring[:-1]


def _mixed_tables(
    entries: Sequence[Entry], k: int, games_per_pairing: int
) -> Iterator[tuple[Team, Team]]:
    """The tables of entry ``k`` with three of the entries before it, under all 3 splits."""
    x = entries[k]
    for _ in range(games_per_pairing):
        for i, j, m in itertools.combinations(range(k), 3):
            a, b, c = entries[i], entries[j], entries[m]
            yield (x, a), (b, c)
            yield (x, b), (a, c)
            yield (x, c), (a, b)


def _check(format: str, games_per_pairing: int) -> None:
    if format not in FORMATS:
        raise ScheduleError(f"unknown format {format!r}: one of {', '.join(FORMATS)}")
    if games_per_pairing < 1:
        raise ScheduleError(f"games per pairing must be at least 1, got {games_per_pairing}")


def _distinct(entries: Sequence[Entry]) -> None:
    seen: set[Entry] = set()
    for e in entries:
        if e in seen:
            raise ScheduleError(f"entry {e!r} is scheduled twice")
        seen.add(e)


def _mixed_cap(n: int) -> None:
    if n > MIXED_MAX_ENTRIES:
        tables = 3 * math.comb(n, 4)
        raise ScheduleError(
            f"mixed format is capped at {MIXED_MAX_ENTRIES} entries "
            f"({n} would need {tables:,} tables per repetition); use pairs"
        )
