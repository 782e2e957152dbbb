"""Bids as actions: they share one int action space with cards (cards are 0..53).

>>> bid_name(PASS), bid_name(number_bid(3)), bid_name(BOARD)
('pass', 3, 'board')
>>> parse_bid("board") == BOARD, parse_bid(4) == number_bid(4)
(True, True)
"""

from __future__ import annotations

from .cards import DECK_SIZE, card_name

PASS = 54
BOARD = 67
MAX_NUMBER = 12  # 13 cards allow at most 12
NUM_ACTIONS = 68
BOARD_NAMES = ("board", "double board", "triple board", "quadruple board")

BidName = int | str


def number_bid(n: int) -> int:
    return PASS + n


def is_bid(action: int) -> bool:
    return PASS <= action <= BOARD


def bid_number(action: int) -> int:
    """Tricks a bid adds to its team's numeric contract: pass and board add 0."""
    return action - PASS if PASS < action < BOARD else 0


def bid_name(action: int) -> BidName:
    """``'pass'``, ``'board'`` or the number, as written in replays."""
    if action == PASS:
        return "pass"
    if action == BOARD:
        return "board"
    return action - PASS


class BidError(ValueError):
    """A bid that is not pass, board or a number 1..12."""


def parse_bid(value: object) -> int:
    if value == "pass":
        return PASS
    if value == "board":
        return BOARD
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_NUMBER:
        return PASS + value
    raise BidError(f"not a bid: {value!r} (expected 'pass', 'board' or a number 1..12)")


def legal_bid_mask(hand_size: int) -> int:
    """Pass, 1 .. hand_size - 1, or board, as a mask over action ints."""
    numbers = ((1 << (hand_size - 1)) - 1) << (PASS + 1)
    return (1 << PASS) | numbers | (1 << BOARD)


def action_name(action: int) -> str:
    """A readable name for any action: ``'play QH'``, ``'bid 3'``, ``'pass'``, ``'bid board'``."""
    if 0 <= action < DECK_SIZE:
        return f"play {card_name(action)}"
    if action == PASS:
        return "pass"
    if is_bid(action):
        return f"bid {bid_name(action)}"
    return f"take unknown action {action}"
