"""Where a player went wrong, in words: the deal, the trick, what was on the table.

>>> from arena.engine import GameState, parse_card
>>> state = GameState.new(1)
>>> where = fault_place(state, state.current_player(), "mybot")
>>> where.deal, where.trick, where.step
(1, None, 'bid')
>>> where.situation.startswith("deal 1 (13 cards")
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .bids import PASS, bid_name
from .cards import SUITS, card_name
from .state import GameState, Phase

STEPS = ("startup", "bid", "play", "notify")


@dataclass(frozen=True)
class FaultPlace:
    """Where a fault happened: ``deal`` is the deal number (None before the first),
    ``dealing`` its 1-based place among the game's dealings, ``trick`` 1-based within the
    dealing (None in the bidding), ``step`` one of ``STEPS``, ``situation`` the whole story."""

    deal: int | None
    dealing: int | None
    trick: int | None
    step: str
    situation: str

    def to_dict(self) -> dict[str, Any]:
        """The replay forfeit's optional keys (docs/replay.md): absent ones do not apply."""
        out: dict[str, Any] = {}
        for key in ("deal", "dealing", "trick"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        out["step"] = self.step
        out["situation"] = self.situation
        return out


def startup_place(seat: int, name: str) -> FaultPlace:
    return FaultPlace(None, None, None, "startup", f"before deal 1: seat {seat} ({name}) starting")


def _bid_word(action: int) -> str:
    return "passed" if action == PASS else f"bid {bid_name(action)}"


def _legal_words(actions: list[int]) -> str:
    return " ".join(card_name(a) if a < PASS else str(bid_name(a)) for a in actions)


def fault_place(state: GameState, seat: int, name: str, answer: int | None = None) -> FaultPlace:
    """Where ``seat`` (called ``name``) faulted in ``state``, the state it was asked to move
    in; ``answer`` is what it answered, if it answered something illegal."""
    record = state.current_deal
    dealing = len(state.deals)
    trump = "no trump" if record.trump is None else f"trump {SUITS[record.trump]}"
    cards = "card" if record.hand_size == 1 else "cards"
    head = f"deal {record.number} ({record.hand_size} {cards}, {trump})"
    who = f"seat {seat} ({name})"
    if state.is_terminal() or state.current_player() != seat:
        trick = len(record.tricks) or None
        at = f", after trick {trick}" if trick else ""
        text = f"{head}{at}: {who} while being told what happened"
        return FaultPlace(record.number, dealing, trick, "notify", text)
    legal = _legal_words(state.legal_actions())
    if state.phase is Phase.BIDDING:
        before = ", ".join(f"seat {s} {_bid_word(a)}" for s, a in record.bids)
        did = "to bid" if answer is None else _answered(answer)
        text = f"{head}, bidding: {before + '; ' if before else ''}{who} {did}, legal were {legal}"
        return FaultPlace(record.number, dealing, None, "bid", text)
    current = state.trick
    trick = len(record.tricks) + 1
    plays = [
        f"seat {current.seat_of(i)} {'led' if i == 0 else 'played'} {card_name(c)}"
        for i, c in enumerate(current.cards)
    ]
    did = ("to lead" if not plays else "to play") if answer is None else _answered(answer)
    before = ", ".join(plays)
    text = (
        f"{head}, trick {trick}: {before + '; ' if before else ''}{who} {did}, legal were {legal}"
    )
    return FaultPlace(record.number, dealing, trick, "play", text)


def _answered(action: int) -> str:
    if 0 <= action < PASS:
        return f"played {card_name(action)}"
    return _bid_word(action) if PASS <= action <= PASS + 13 else f"answered action {action}"
