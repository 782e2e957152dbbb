"""Plain-text views of cards, bids and deals, shared by the CLI's commands."""

from __future__ import annotations

from collections.abc import Sequence

from .engine import BOARD, DealRecord, bid_name, card_name
from .engine.bids import BOARD_NAMES
from .engine.cards import SUITS

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def trump_text(record: DealRecord) -> str:
    if record.trump is None:
        return f"no trump (turned {card_name(record.turned)})"
    suit = SUITS[record.trump]
    return f"trump {SUIT_SYMBOLS[suit]} (turned {card_name(record.turned)})"


def bids_text(record: DealRecord, names: Sequence[str]) -> str:
    parts = []
    level = 0
    for seat, action in record.bids:
        if action == BOARD:
            level += 1
            parts.append(f"{names[seat]} {BOARD_NAMES[min(level, 4) - 1]}")
        else:
            parts.append(f"{names[seat]} {bid_name(action)}")
    return ", ".join(parts)


def tricks_text(record: DealRecord) -> str:
    """Each trick as its cards from the leader, the winner's card marked with ``*``."""
    out = []
    for trick in record.tricks:
        cards = []
        for i, card in enumerate(trick.cards):
            mark = "*" if trick.seat_of(i) == trick.winner else ""
            cards.append(card_name(card) + mark)
        out.append(" ".join(cards))
    return " | ".join(out)


def deal_lines(record: DealRecord, names: Sequence[str]) -> list[str]:
    head = (
        f"Deal {record.number:2d} · {record.hand_size:2d} cards · dealer {names[record.dealer]}"
        f" · {trump_text(record)}"
    )
    if record.joker_swap is not None:
        swap = record.joker_swap
        head += f" · {names[swap.seat]} swaps {card_name(swap.discarded)}"
    lines = [head, f"   bids: {bids_text(record, names)}"]
    if record.redeal:
        lines.append("   all passed: redeal")
        return lines
    lines.append(f"   tricks: {tricks_text(record)}")
    won = record.tricks_won
    points = record.points or (0, 0)
    totals = record.totals or (0, 0)
    lines.append(
        f"   tricks won {won[0] + won[2]}-{won[1] + won[3]} · points {points[0]:+d} {points[1]:+d}"
        f" · totals {totals[0]} {totals[1]}"
    )
    return lines
