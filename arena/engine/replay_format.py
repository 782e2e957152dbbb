"""The replay format, version 2 (and 1, read), as types: ``Replay`` and its parts (docs/replay.md).

Each part reads itself from the JSON-ready dict (``from_dict``) and writes itself back
(``to_dict``) exactly: the same keys in the same order, optional keys only where they were,
so a replay read and written again is the same bytes. ``from_dict`` checks the shape, not
the rules: ``arena.engine.replay.verify_replay`` re-plays a replay against them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, TypeVar

from .rules import Rules, RulesError, team_of
from .situation import FaultPlace

FORMAT = "backalley-replay"
VERSION = 2  # what is written; 2 deals each dealing from a seed of its own (engine/seeds.py)
VERSIONS = (1, 2)  # what is read: version 1's seed dealt the whole game from one generator

T = TypeVar("T")
JSON = dict[str, Any]


class ForfeitReason(StrEnum):
    """Why a bot's fault ended a game: what the referee's faults raise, what replays record."""

    TIMEOUT = "timeout"  # no answer within the time allowed
    CRASH = "crash"  # the process died, or the bot's code raised
    ILLEGAL = "illegal"  # a well-formed answer that is not a legal option
    PROTOCOL = "protocol"  # a malformed answer, an unknown card, the wrong protocol version
    STARTUP = "startup"  # never came up: no socket, or no answer to Hello in time


FORFEIT_REASONS = tuple(r.value for r in ForfeitReason)


class ReplayError(ValueError):
    """A replay that is malformed or breaks a rule; the message says where."""

    def __init__(
        self, message: str, *, dealing: int | None = None, deal: int | None = None,
        trick: int | None = None,
    ) -> None:  # fmt: skip
        where = []
        if deal is not None:
            where.append(f"deal {deal}")
        if dealing is not None:
            where.append(f"(dealing {dealing})")
        place = " ".join(where)
        if trick is not None:
            place += f", trick {trick}"
        self.located = bool(place)  # already says where: pass it on unchanged
        super().__init__(f"{place}: {message}" if place else message)


def _parsed(kind: str, data: Any, read: Callable[[JSON], T]) -> T:
    if not isinstance(data, dict):
        raise ReplayError(f"malformed replay: {kind} is not a JSON object: {data!r:.60}")
    try:
        return read(data)
    except ReplayError:
        raise  # an inner part's, which says which
    except (KeyError, TypeError, ValueError, RulesError) as e:
        raise ReplayError(f"malformed replay: {kind}: {type(e).__name__}: {e}") from None


def _pair(values: Any) -> tuple[int, int]:
    a, b = values
    return int(a), int(b)


@dataclass(frozen=True)
class Forfeit:
    """A game ended by a player's fault; the faulting seat's team loses."""

    seat: int
    reason: ForfeitReason
    detail: str = ""
    place: FaultPlace | None = None  # where it happened, when known

    @classmethod
    def from_dict(cls, data: Any) -> Forfeit:
        """A replay's ``result.forfeit`` (its place only if it was recorded)."""

        def read(d: JSON) -> Forfeit:
            place = None
            if isinstance(d.get("situation"), str):
                place = FaultPlace(
                    d.get("deal"), d.get("dealing"), d.get("trick"),
                    str(d.get("step", "")), d["situation"],
                )  # fmt: skip
            return cls(int(d["seat"]), ForfeitReason(d["reason"]), str(d.get("detail", "")), place)

        return _parsed("the forfeit", data, read)

    def to_dict(self) -> JSON:
        out: JSON = {
            "seat": self.seat,
            "team": team_of(self.seat),
            "reason": str(self.reason),
            "detail": self.detail,
        }
        if self.place is not None:
            out.update(self.place.to_dict())
        return out


@dataclass(frozen=True)
class ThinkTime:
    """How long one seat's bot took over its decisions, as the referee measured it."""

    decisions: int
    total_ms: float
    max_ms: float

    @classmethod
    def from_dict(cls, data: Any) -> ThinkTime:
        return _parsed(
            "think", data, lambda d: cls(int(d["decisions"]), d["total_ms"], d["max_ms"])
        )

    def to_dict(self) -> JSON:
        return {
            "decisions": self.decisions,
            "total_ms": round(self.total_ms, 3),
            "max_ms": round(self.max_ms, 3),
        }


@dataclass(frozen=True)
class NotesCut:
    """What the referee cut of one seat's notes: notes truncated to their size, and notes
    dropped past the game's count (a bot that floods them)."""

    truncated: int = 0
    dropped: int = 0

    @classmethod
    def from_dict(cls, data: Any) -> NotesCut:
        return _parsed("notes_cut", data, lambda d: cls(int(d["truncated"]), int(d["dropped"])))

    def to_dict(self) -> JSON:
        return {"truncated": self.truncated, "dropped": self.dropped}


@dataclass(frozen=True)
class Player:
    seat: int
    name: str
    think: ThinkTime | None = None  # recorded by the ladder, not by ``arena play``
    notes_cut: NotesCut | None = None  # only when the referee cut some of its notes

    @property
    def team(self) -> int:
        return team_of(self.seat)

    @classmethod
    def from_dict(cls, data: Any) -> Player:
        def read(d: JSON) -> Player:
            think = ThinkTime.from_dict(d["think"]) if "think" in d else None
            cut = NotesCut.from_dict(d["notes_cut"]) if "notes_cut" in d else None
            return cls(int(d["seat"]), str(d["name"]), think, cut)

        return _parsed("a player", data, read)

    def to_dict(self) -> JSON:
        out: JSON = {"seat": self.seat, "team": self.team, "name": self.name}
        if self.think is not None:
            out["think"] = self.think.to_dict()
        if self.notes_cut is not None:
            out["notes_cut"] = self.notes_cut.to_dict()
        return out


def _note(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"a note is a string, got {value!r:.60}")


@dataclass(frozen=True)
class BidRecord:
    seat: int
    bid: int | str  # a number of tricks, "pass" or "board"
    board_level: int | None = None  # a board claim's: 1, 2 (a double board), ...
    note: str | None = None  # the bidder's own note on it, if it made one

    @classmethod
    def from_dict(cls, data: Any) -> BidRecord:
        def read(d: JSON) -> BidRecord:
            bid = d["bid"]
            if not isinstance(bid, int | str):
                raise TypeError(f"a bid is a number or a word, got {bid!r}")
            return cls(int(d["seat"]), bid, d.get("board_level"), _note(d.get("note")))

        return _parsed("a bid", data, read)

    def to_dict(self) -> JSON:
        out: JSON = {"seat": self.seat, "bid": self.bid}
        if self.board_level is not None:
            out["board_level"] = self.board_level
        if self.note is not None:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class JokerSwap:
    seat: int
    discarded: str
    drawn: str

    @classmethod
    def from_dict(cls, data: Any) -> JokerSwap:
        return _parsed(
            "joker_swap",
            data,
            lambda d: cls(int(d["seat"]), str(d["discarded"]), str(d["drawn"])),
        )

    def to_dict(self) -> JSON:
        return {"seat": self.seat, "discarded": self.discarded, "drawn": self.drawn}


@dataclass(frozen=True)
class TrickRecord:
    leader: int
    plays: tuple[tuple[int, str], ...]  # (seat, card) in play order
    winner: int | None  # None for the unfinished trick of a forfeited game
    legal: tuple[tuple[str, ...], ...] | None = None  # per play, with --record-legal
    notes: tuple[str | None, ...] | None = None  # per play, the player's note; only if any

    @classmethod
    def from_dict(cls, data: Any) -> TrickRecord:
        def read(d: JSON) -> TrickRecord:
            plays = tuple((int(seat), str(card)) for seat, card in d["plays"])
            legal = tuple(tuple(map(str, a)) for a in d["legal"]) if "legal" in d else None
            notes = tuple(map(_note, d["notes"])) if "notes" in d else None
            if notes is not None and len(notes) != len(plays):
                raise ValueError(f"{len(notes)} notes for {len(plays)} plays")
            return cls(int(d["leader"]), plays, d["winner"], legal, notes)

        return _parsed("a trick", data, read)

    def to_dict(self) -> JSON:
        out: JSON = {
            "leader": self.leader,
            "plays": [[seat, card] for seat, card in self.plays],
            "winner": self.winner,
        }
        if self.legal is not None:
            out["legal"] = [list(allowed) for allowed in self.legal]
        if self.notes is not None:
            out["notes"] = list(self.notes)
        return out


@dataclass(frozen=True)
class Dealing:
    """One dealing: a deal played, a redeal (all passed), or the last of a forfeited game."""

    number: int  # the deal's number; a redeal keeps it
    hand_size: int
    dealer: int
    hands: tuple[tuple[str, ...], ...]  # by seat
    stock: tuple[str, ...]
    turned: str
    trump: str | None
    joker_swap: JokerSwap | None
    bids: tuple[BidRecord, ...]
    leader: int | None
    tricks: tuple[TrickRecord, ...]
    tricks_won: tuple[int, ...]  # by seat
    points: tuple[int, int] | None  # by team; None for a redeal or an unfinished dealing
    totals: tuple[int, int] | None  # the running totals after it
    redeal: bool = False

    @classmethod
    def from_dict(cls, data: Any) -> Dealing:
        def read(d: JSON) -> Dealing:
            swap = d["joker_swap"]
            return cls(
                number=int(d["number"]),
                hand_size=int(d["hand_size"]),
                dealer=int(d["dealer"]),
                hands=tuple(tuple(map(str, h)) for h in d["hands"]),
                stock=tuple(map(str, d["stock"])),
                turned=str(d["turned"]),
                trump=d["trump"],
                joker_swap=None if swap is None else JokerSwap.from_dict(swap),
                bids=tuple(BidRecord.from_dict(b) for b in d["bids"]),
                leader=d["leader"],
                tricks=tuple(TrickRecord.from_dict(t) for t in d["tricks"]),
                tricks_won=tuple(map(int, d["tricks_won"])),
                points=None if d["points"] is None else _pair(d["points"]),
                totals=None if d["totals"] is None else _pair(d["totals"]),
                redeal=d.get("redeal") is True,
            )

        return _parsed("a dealing", data, read)

    def to_dict(self) -> JSON:
        out: JSON = {
            "number": self.number,
            "hand_size": self.hand_size,
            "dealer": self.dealer,
            "hands": [list(h) for h in self.hands],
            "stock": list(self.stock),
            "turned": self.turned,
            "trump": self.trump,
            "joker_swap": None if self.joker_swap is None else self.joker_swap.to_dict(),
            "bids": [b.to_dict() for b in self.bids],
            "leader": self.leader,
            "tricks": [t.to_dict() for t in self.tricks],
            "tricks_won": list(self.tricks_won),
            "points": None if self.points is None else list(self.points),
            "totals": None if self.totals is None else list(self.totals),
        }
        if self.redeal:
            out["redeal"] = True
        return out


@dataclass(frozen=True)
class GameResult:
    totals: tuple[int, int]  # by team
    winner: int | None  # None for a draw
    forfeit: Forfeit | None = None

    @classmethod
    def from_dict(cls, data: Any) -> GameResult:
        def read(d: JSON) -> GameResult:
            forfeit = None if d["forfeit"] is None else Forfeit.from_dict(d["forfeit"])
            return cls(_pair(d["totals"]), d["winner"], forfeit)

        return _parsed("the result", data, read)

    def to_dict(self) -> JSON:
        forfeit = None if self.forfeit is None else self.forfeit.to_dict()
        return {"totals": list(self.totals), "winner": self.winner, "forfeit": forfeit}


@dataclass(frozen=True)
class Replay:
    """A whole game: who played, every dealing, and how it ended."""

    seed: int | None  # None: the deals were not seeded
    rules: Rules
    players: tuple[Player, ...]  # by seat
    first_dealer: int
    deals: tuple[Dealing, ...]
    result: GameResult
    version: int = VERSION  # how ``seed`` deals: see VERSIONS

    @classmethod
    def from_dict(cls, data: Any) -> Replay:
        def read(d: JSON) -> Replay:
            if d["format"] != FORMAT or d["version"] not in VERSIONS:
                raise ValueError(f"not a {FORMAT} of version {' or '.join(map(str, VERSIONS))}")
            return cls(
                seed=d["seed"],
                rules=Rules.from_dict(d["rules"]),
                players=tuple(Player.from_dict(p) for p in d["players"]),
                first_dealer=int(d["first_dealer"]),
                deals=tuple(Dealing.from_dict(r) for r in d["deals"]),
                result=GameResult.from_dict(d["result"]),
                version=d["version"],
            )

        return _parsed("the replay", data, read)

    def to_dict(self) -> JSON:
        return {
            "format": FORMAT,
            "version": self.version,
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "players": [p.to_dict() for p in self.players],
            "first_dealer": self.first_dealer,
            "deals": [r.to_dict() for r in self.deals],
            "result": self.result.to_dict(),
        }

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.players]

    def notes_only_of(self, seats: Collection[int]) -> Replay:
        """This replay with the notes of ``seats`` alone (none if empty): what a viewer who
        is not every bot's owner may see. Bots' notes are their owners' (docs/web.md)."""

        def bid(b: BidRecord) -> BidRecord:
            return b if b.note is None or b.seat in seats else replace(b, note=None)

        def trick(t: TrickRecord) -> TrickRecord:
            if t.notes is None:
                return t
            by_play = zip(t.plays, t.notes, strict=True)
            kept = tuple(n if seat in seats else None for (seat, _), n in by_play)
            return replace(t, notes=kept if any(n is not None for n in kept) else None)

        deals = tuple(
            replace(d, bids=tuple(map(bid, d.bids)), tricks=tuple(map(trick, d.tricks)))
            for d in self.deals
        )
        players = tuple(p if p.seat in seats else replace(p, notes_cut=None) for p in self.players)
        return replace(self, deals=deals, players=players)

    @property
    def forfeit(self) -> Forfeit | None:
        return self.result.forfeit
