"""Cards and bids as values.

>>> c = Card.parse("TS", trump="S")
>>> c.rank, c.suit, c.is_trump, str(c)
('T', 'S', True, 'TS')
>>> Card.parse("BB", trump="H").suit, Card.parse("BB", trump="H").rank_value
(None, 14)
>>> Card.parse("AS") == "AS", "AS" in (Card.parse("AS"),)
(True, True)
>>> str(Bid.number_of(3)), str(Bid.PASS), Bid.parse("board") == Bid.BOARD
('3', 'pass', True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Literal, TypeVar, overload

SUITS = "SHDC"
RANKS = "23456789TJQKA"
JOKERS = ("BB", "LB")
ALL_CARDS: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS) + JOKERS


T = TypeVar("T")


class cached(Generic[T]):
    """``functools.cached_property`` without its per-access lock (Python 3.11 takes one):
    the first read computes the value and stores it on the instance, where later reads find
    it as a plain attribute (this descriptor, having no ``__set__``, steps aside)."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> cached[T]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...
    def __get__(self, obj: object | None, owner: type | None = None) -> T | cached[T]:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.compute(obj)
        return value


class CardError(ValueError):
    """Not one of the 54 card names."""


@dataclass(frozen=True, eq=False)
class Card:
    """One card. Equal cards have equal names; ``is_trump`` says whether it is trump this deal.

    A card also equals its name, so ``"AS" in obs.legal_plays`` works.
    """

    name: str
    is_trump: bool = False

    # is_joker, rank, suit and rank_value are computed once per card: every card of every
    # deal is made below, with them, so a bot reads plain attributes (a heuristic reads them
    # hundreds of times a decision).

    def __eq__(self, other: object) -> bool:
        if other.__class__ is Card or isinstance(other, Card):
            return self.name == other.name
        if isinstance(other, str):
            return self.name == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.name)

    @classmethod
    def parse(cls, name: str, trump: str | None = None) -> Card:
        """The card called ``name`` in a deal whose trump suit is ``trump`` (None: no trump)."""
        try:
            return _CARDS[name, trump]
        except (KeyError, TypeError):
            raise CardError(
                f"not a card: {name!r} (expected e.g. 'TS', 'AH', 'BB', 'LB')"
            ) from None

    @cached
    def is_joker(self) -> bool:
        return self.name in JOKERS

    @cached
    def rank(self) -> str:
        """``'2'`` … ``'A'``; ``'BB'`` or ``'LB'`` for a joker."""
        return self.name if self.is_joker else self.name[0]

    @cached
    def suit(self) -> str | None:
        """``'S'``, ``'H'``, ``'D'`` or ``'C'``; ``None`` for a joker (it counts as trump)."""
        return None if self.is_joker else self.name[1]

    @cached
    def rank_value(self) -> int:
        """0 for a two … 12 for an ace; 13 for LB and 14 for BB."""
        if self.is_joker:
            return 14 if self.name == "BB" else 13
        return RANKS.index(self.name[0])

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Card({self.name!r})"


# Every card in every kind of deal, made once: parsing is a lookup (it runs per card per
# decision) and the values are immutable, so sharing them is safe.
_CARDS: dict[tuple[str, str | None], Card] = {
    (name, trump): Card(name, trump is not None and (name in JOKERS or name[1] == trump))
    for name in ALL_CARDS
    for trump in (None, *SUITS)
}
for _card in _CARDS.values():
    for _name in ("is_joker", "rank", "suit", "rank_value"):
        getattr(_card, _name)  # computed once, kept on the card
del _card, _name

# The same cards by trump, then by name: a deal's cards are then one lookup each.
CARDS_BY_TRUMP: dict[str | None, dict[str, Card]] = {
    trump: {name: _CARDS[name, trump] for name in ALL_CARDS} for trump in (None, *SUITS)
}

BidKind = Literal["pass", "number", "board"]


@dataclass(frozen=True)
class Bid:
    """A bid: pass, a number of tricks, or board (all the tricks, with partner)."""

    kind: BidKind
    number: int = 0  # tricks, for kind "number"

    PASS: ClassVar[Bid]
    BOARD: ClassVar[Bid]

    @classmethod
    def number_of(cls, n: int) -> Bid:
        return _NUMBERS[n] if 1 <= n <= 12 else cls("number", n)

    @classmethod
    def parse(cls, value: str | int) -> Bid:
        """``'pass'``, ``'board'``, or a number of tricks."""
        if value == "pass":
            return cls.PASS
        if value == "board":
            return cls.BOARD
        if isinstance(value, int) and not isinstance(value, bool):
            return cls.number_of(value)
        raise ValueError(f"not a bid: {value!r} (expected 'pass', 'board' or a number)")

    @property
    def tricks(self) -> int:
        """What this bid adds to a numeric team contract (pass and board: 0)."""
        return self.number if self.kind == "number" else 0

    def __str__(self) -> str:
        return str(self.number) if self.kind == "number" else self.kind


Bid.PASS = Bid("pass")
Bid.BOARD = Bid("board")
_NUMBERS = {n: Bid("number", n) for n in range(1, 13)}
