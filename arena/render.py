"""Plain-text views of cards, bids and deals, shared by the CLI's commands."""

from __future__ import annotations

from collections.abc import Sequence

from .competition.statistics import Statistics
from .engine import BOARD, DealRecord, bid_name, card_name
from .engine.bids import BOARD_NAMES
from .engine.cards import SUITS
from .engine.replay import Forfeit
from .host.inert import inert
from .read_model import plural

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
        f"Deal {record.number:2d} · {record.hand_size:2d} {_cards(record.hand_size)}"
        f" · dealer {names[record.dealer]}"
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


def forfeit_lines(forfeit: Forfeit, label: str) -> list[str]:
    """The forfeit line, then where it happened when that is known."""
    lines = [inert(f"forfeit: seat {forfeit.seat} ({label}) {forfeit.reason}: {forfeit.detail}")]
    if forfeit.place is not None:
        lines.append(inert(f"   where: {forfeit.place.situation}"))
    return lines


def forfeit_where(forfeit: Forfeit) -> str:
    """Deal and trick, short, for one-line summaries: ``' in deal 2, trick 1'``."""
    place = forfeit.place
    if place is None:
        return ""
    if place.deal is None:
        return " at start-up"
    trick = f", trick {place.trick}" if place.trick is not None else ", bidding"
    return f" in deal {place.deal}{trick if place.step != 'notify' else ''}"


def log_tail(log: bytes, lines: int = 15) -> list[str]:
    """A bot's last ``lines`` lines of output (its traceback, when it crashed), inert: decoded
    whatever the bytes, control characters escaped, each line cut at 300 characters."""
    text = log.decode("utf-8", errors="replace").rstrip("\n")
    if not text:
        return []
    tail = text.splitlines()[-lines:]
    return [inert(line[:300] + ("…" if len(line) > 300 else "")) for line in tail]


def statistics_lines(name: str, stats: Statistics) -> list[str]:
    """Two lines for one bot: its figures, then its contracts made by its own bid."""
    per_deal = stats.points_per_deal
    parts = [
        plural(stats.games, "seat-game"),  # two seats of a game: 2
        f"{stats.deals} deals",
        "no points per deal" if per_deal is None else f"{per_deal:+.1f} points per deal",
    ]
    if stats.forfeits:  # only when there are some: "forfeit" in the output means one
        parts.append("forfeits: " + ", ".join(f"{n} {r}" for r, n in stats.forfeits.items()))
    if stats.mean_think_ms is not None and stats.think_max_ms is not None:
        parts.append(f"think {stats.mean_think_ms:.1f} ms mean, {stats.think_max_ms:.1f} ms max")
    bids = [f"{'pass' if bid == 0 else bid} {t.made}/{t.bid}" for bid, t in stats.contracts.items()]
    if stats.boards.bid:
        bids.append(f"board {stats.boards.made}/{stats.boards.bid}")
    return [
        inert(f"{name}: " + " · ".join(parts)),
        "   contracts made/bid, by own bid: " + (" · ".join(bids) or "none"),
    ]


def _cards(count: int) -> str:
    return "card" if count == 1 else "cards"
