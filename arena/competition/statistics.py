"""How a bot plays, computed from replays alone (docs/replay.md): pure, no I/O.

Public API (stable; the CLI and the web's bot page both use it):

- ``seat_statistics(replay) -> list[Statistics]``: one game, by seat 0-3.
- ``by_seat(replays) -> dict[tuple[str, int], Statistics]``: keyed by (player name, seat).
- ``by_bot(replays) -> dict[str, Statistics]``: keyed by player name, all seats merged.
- ``Statistics``: ``games``, ``deals``, ``points``, ``points_per_deal``, ``contracts``
  (``{bid: Tally}``), ``boards`` (``Tally``), ``forfeits`` (``{reason: count}``),
  ``decisions``, ``think_total_ms``, ``think_max_ms``, ``mean_think_ms``, ``merged(other)``,
  ``Statistics.total(many)`` and ``to_dict()`` (JSON-ready, keys as the attribute names;
  ``contracts`` keyed by the bid as a string; ``think`` is ``null`` when no replay recorded
  think time), and the lossless ``to_record()`` / ``Statistics.from_record(record)`` that the
  store keeps as a version's running tally (``arena/store/tallies.py``).
- ``Tally``: ``made``, ``set``, ``bid`` (their sum).

What counts, for a seat:

- ``games`` are seat-games: a bot that holds two seats of one game counts it twice.

- ``deals`` are the dealings that were scored: a redeal, and the unfinished last dealing of a
  forfeited game, are not. ``points`` is the seat's team's points over them.
- ``contracts[n]`` counts the scored deals in which the seat bid ``n`` (``pass`` is 0) and its
  team's contract (the partners' numbers added) was made or set. A deal in which the team holds
  a board contract counts in ``boards`` instead if the seat itself claimed board, and in neither
  if only its partner did (the seat's number no longer mattered).
- ``forfeits`` are the games this seat forfeited, by the replay's reason.
- Think time comes from the players' optional ``think`` key (written by the referee); replays
  without it add nothing to ``decisions`` and the think figures.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.engine.replay_format import Dealing, Replay

SEATS = 4


@dataclass(frozen=True)
class Tally:
    made: int = 0
    set: int = 0

    @property
    def bid(self) -> int:
        return self.made + self.set

    def plus(self, made: bool) -> Tally:
        return Tally(self.made + made, self.set + (not made))

    def merged(self, other: Tally) -> Tally:
        return Tally(self.made + other.made, self.set + other.set)

    def to_dict(self) -> dict[str, int]:
        return {"made": self.made, "set": self.set}


@dataclass(frozen=True)
class Statistics:
    games: int = 0
    deals: int = 0
    points: int = 0
    contracts: Mapping[int, Tally] = field(default_factory=dict)
    boards: Tally = Tally()  # frozen: sharing the default is safe
    forfeits: Mapping[str, int] = field(default_factory=dict)
    decisions: int = 0
    think_total_ms: float = 0.0
    think_max_ms: float | None = None  # None: no think time recorded

    @property
    def points_per_deal(self) -> float | None:
        return self.points / self.deals if self.deals else None

    @property
    def mean_think_ms(self) -> float | None:
        return self.think_total_ms / self.decisions if self.decisions else None

    def merged(self, other: Statistics) -> Statistics:
        return Statistics.total([self, other])

    @staticmethod
    def total(many: Iterable[Statistics]) -> Statistics:
        """The figures of ``many`` merged, in one pass."""
        games = deals = points = decisions = 0
        think_total = 0.0
        contracts: dict[int, list[int]] = {}
        forfeits: dict[str, int] = {}
        boards = [0, 0]
        maxima: list[float] = []
        for s in many:
            games += s.games
            deals += s.deals
            points += s.points
            decisions += s.decisions
            think_total += s.think_total_ms
            for bid, tally in s.contracts.items():
                kept = contracts.setdefault(bid, [0, 0])
                kept[0] += tally.made
                kept[1] += tally.set
            for reason, count in s.forfeits.items():
                forfeits[reason] = forfeits.get(reason, 0) + count
            boards[0] += s.boards.made
            boards[1] += s.boards.set
            if s.think_max_ms is not None:
                maxima.append(s.think_max_ms)
        return Statistics(
            games=games,
            deals=deals,
            points=points,
            contracts={bid: Tally(*t) for bid, t in sorted(contracts.items())},
            boards=Tally(*boards),
            forfeits=dict(sorted(forfeits.items())),
            decisions=decisions,
            think_total_ms=think_total,
            think_max_ms=max(maxima) if maxima else None,
        )

    def to_dict(self) -> dict[str, Any]:
        think = None
        if self.think_max_ms is not None:
            think = {
                "decisions": self.decisions,
                "mean_ms": self.mean_think_ms,
                "max_ms": self.think_max_ms,
            }
        return {
            "games": self.games,
            "deals": self.deals,
            "points": self.points,
            "points_per_deal": self.points_per_deal,
            "contracts": {str(bid): t.to_dict() for bid, t in self.contracts.items()},
            "boards": self.boards.to_dict(),
            "forfeits": dict(self.forfeits),
            "think": think,
        }

    def to_record(self) -> dict[str, Any]:
        """Every field as JSON, so that ``from_record`` gives this value back exactly."""
        return {
            "games": self.games,
            "deals": self.deals,
            "points": self.points,
            "contracts": {str(bid): [t.made, t.set] for bid, t in self.contracts.items()},
            "boards": [self.boards.made, self.boards.set],
            "forfeits": dict(self.forfeits),
            "decisions": self.decisions,
            "think_total_ms": self.think_total_ms,
            "think_max_ms": self.think_max_ms,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Statistics:
        return cls(
            games=record["games"],
            deals=record["deals"],
            points=record["points"],
            contracts=dict(sorted((int(bid), Tally(*t)) for bid, t in record["contracts"].items())),
            boards=Tally(*record["boards"]),
            forfeits=dict(record["forfeits"]),
            decisions=record["decisions"],
            think_total_ms=record["think_total_ms"],
            think_max_ms=record["think_max_ms"],
        )


def seat_statistics(replay: Replay) -> list[Statistics]:
    """One game's figures, by seat."""
    deals = [0] * SEATS
    points = [0] * SEATS
    contracts: list[dict[int, Tally]] = [{} for _ in range(SEATS)]
    boards = [Tally()] * SEATS
    for dealing in replay.deals:
        if dealing.points is None:
            continue  # a redeal, or the unfinished dealing of a forfeit
        for seat, bid, made in _seat_contracts(dealing):
            deals[seat] += 1
            points[seat] += dealing.points[seat % 2]
            if bid == "board":
                boards[seat] = boards[seat].plus(made)
            elif isinstance(bid, int):
                contracts[seat][bid] = contracts[seat].get(bid, Tally()).plus(made)
    forfeit = replay.forfeit
    out = []
    for seat, player in enumerate(replay.players):
        think = player.think
        out.append(
            Statistics(
                games=1,
                deals=deals[seat],
                points=points[seat],
                contracts=dict(sorted(contracts[seat].items())),
                boards=boards[seat],
                forfeits={str(forfeit.reason): 1} if forfeit and forfeit.seat == seat else {},
                decisions=think.decisions if think else 0,
                think_total_ms=think.total_ms if think else 0.0,
                think_max_ms=think.max_ms if think else None,
            )
        )
    return out


def _seat_contracts(dealing: Dealing) -> list[tuple[int, int | str | None, bool]]:
    """(seat, what its bid counts as, whether its team's contract was made), for each seat:
    the bid is ``"board"`` for its own board claim, None when only its partner claimed."""
    n = dealing.hand_size
    number = [0, 0]
    board = [False, False]
    own: dict[int, int | str] = {}
    for b in dealing.bids:
        seat, bid = b.seat, b.bid
        if bid == "board":
            board[seat % 2] = True
            own[seat] = "board"
        else:
            value = 0 if bid == "pass" else int(bid)
            number[seat % 2] += value
            own.setdefault(seat, value)
    won = dealing.tricks_won
    out: list[tuple[int, int | str | None, bool]] = []
    for seat in range(SEATS):
        team = seat % 2
        tricks = won[team] + won[team + 2]
        if board[team]:
            made = tricks == n
            out.append((seat, "board" if own.get(seat) == "board" else None, made))
        else:
            out.append((seat, own.get(seat, 0), tricks >= number[team]))
    return out


def by_seat(replays: Iterable[Replay]) -> dict[tuple[str, int], Statistics]:
    """Every game's figures, keyed by (player name, seat), in that order."""
    out: dict[tuple[str, int], Statistics] = {}
    for replay in replays:
        for seat, stats in enumerate(seat_statistics(replay)):
            key = (replay.players[seat].name, seat)
            out[key] = out[key].merged(stats) if key in out else stats
    return dict(sorted(out.items()))


def by_bot(replays: Iterable[Replay]) -> dict[str, Statistics]:
    """Every game's figures, keyed by player name, its seats merged."""
    out: dict[str, Statistics] = {}
    for (name, _), stats in by_seat(replays).items():
        out[name] = out[name].merged(stats) if name in out else stats
    return out
