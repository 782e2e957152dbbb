"""Cards as small ints and hands as bitmasks, with a `Card` value type at the edges.

A card is an int in ``0..53``: ``suit * 13 + rank`` for the 52 suited cards (rank 0 is the
two, rank 12 the ace; suits in the order S, H, D, C), then ``BB = 52`` (Big Blooper) and
``LB = 53`` (Little Blooper). A set of cards is an int with bit ``c`` set for card ``c``,
so "does this hand hold a heart?" is one ``&``.

>>> parse_card("TS"), card_name(parse_card("TS"))
(8, 'TS')
>>> Card.parse("AH").rank, Card.parse("AH").suit
('A', 'H')
>>> [card_name(c) for c in cards_of(mask_of([parse_card("2C"), BB]))]
['2C', 'BB']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

SUITS = "SHDC"
RANKS = "23456789TJQKA"
SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
BB = 52
LB = 53
DECK_SIZE = 54
JOKERS = (1 << BB) | (1 << LB)

SUIT_MASKS: tuple[int, ...] = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))

_NAMES = [r + s for s in SUITS for r in RANKS] + ["BB", "LB"]
_INDEX = {name: i for i, name in enumerate(_NAMES)}


class CardError(ValueError):
    """A card name that is not one of the 54 cards."""


def card_name(card: int) -> str:
    return _NAMES[card]


def parse_card(name: str) -> int:
    try:
        return _INDEX[name.upper()]
    except (KeyError, AttributeError):
        raise CardError(f"not a card: {name!r} (expected e.g. 'TS', 'AH', 'BB', 'LB')") from None


def suit_of(card: int) -> int | None:
    """The printed suit of a card; jokers have none (they join the trump suit, if any)."""
    return None if card >= BB else card // 13


def mask_of(cards: Iterable[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _suit_table(suit: int) -> tuple[tuple[int, ...], ...]:
    """Every 13-bit pattern of ``suit`` -> its cards, lowest first. Each pattern's cards are
    its lowest card before those of the pattern without it (built earlier): five times
    faster than testing 13 bits a pattern, and this runs whenever the engine is imported."""
    table: list[tuple[int, ...]] = [()] * (1 << 13)
    for m in range(1, 1 << 13):
        table[m] = (13 * suit + (m & -m).bit_length() - 1, *table[m & (m - 1)])
    return tuple(table)


# For each suit, every 13-bit pattern of that suit -> its cards: turning a hand mask into a
# list is then four lookups, the hottest step of a playout (``legal_actions``).
_SUIT_CARDS = tuple(_suit_table(s) for s in range(4))


def cards_of(mask: int) -> list[int]:
    """The cards of a mask, lowest int first (suits S, H, D, C; two to ace; then BB, LB)."""
    spades, hearts, diamonds, clubs = _SUIT_CARDS
    out = [
        *spades[mask & 8191],
        *hearts[mask >> 13 & 8191],
        *diamonds[mask >> 26 & 8191],
        *clubs[mask >> 39 & 8191],
    ]
    if mask >> BB:
        if mask >> BB & 1:
            out.append(BB)
        if mask >> LB & 1:
            out.append(LB)
    return out


def trump_mask(trump: int | None) -> int:
    """Every card that counts as trump: the trump suit plus both jokers; nothing without trump."""
    return 0 if trump is None else SUIT_MASKS[trump] | JOKERS


def power(card: int, trump: int | None, led_suit: int | None) -> int:
    """How strongly ``card`` bids for a trick: trumps beat the led suit, which beats the rest.

    ``led_suit`` is the suit of the first card; a joker lead counts as a lead of trump.
    """
    if card >= BB:
        return 100 + (14 if card == BB else 13)
    suit, rank = divmod(card, 13)
    if suit == trump:
        return 100 + rank
    if suit == led_suit:
        return 50 + rank
    return rank - 50


@dataclass(frozen=True, order=True)
class Card:
    """One card as a value: ``Card.parse("QD")``; ``str()`` gives the name back."""

    index: int

    @classmethod
    def parse(cls, name: str) -> Card:
        return cls(parse_card(name))

    @property
    def rank(self) -> str:
        """``'2'`` … ``'A'``, or ``'BB'`` / ``'LB'`` for a joker."""
        return _NAMES[self.index] if self.is_joker else RANKS[self.index % 13]

    @property
    def suit(self) -> str | None:
        """``'S'``, ``'H'``, ``'D'`` or ``'C'``; ``None`` for a joker."""
        s = suit_of(self.index)
        return None if s is None else SUITS[s]

    @property
    def is_joker(self) -> bool:
        return self.index >= BB

    def __str__(self) -> str:
        return _NAMES[self.index]
