"""Referee one game: ask the seat to move, apply its answer, tell everyone what happened.

A bot fault ends the game at once with a forfeit: the faulting seat's team loses.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from backalley.v1 import player_pb2 as pb

from arena.engine import DealRecord, GameState, Observation, Rules, observe
from arena.engine.replay import Forfeit
from arena.engine.situation import fault_place

from . import protocol
from .faults import BotFault

DealObserver = Callable[[DealRecord], None]


class Player(Protocol):
    def choose(self, obs: Observation) -> int:
        """One of ``obs.legal_actions``, or raise a ``BotFault``."""
        ...

    def notify(self, event: pb.Notification) -> None: ...


@dataclass
class GameOutcome:
    state: GameState
    forfeit: Forfeit | None

    @property
    def winner(self) -> int | None:
        if self.forfeit is not None:
            return 1 - self.forfeit.seat % 2
        return self.state.winner()

    @property
    def reason(self) -> str:
        return "normal" if self.forfeit is None else self.forfeit.reason


def run_game(
    players: Sequence[Player],
    seed: int,
    rules: Rules | None = None,
    *,
    record_legal: bool = False,
    on_deal: DealObserver | None = None,
) -> GameOutcome:
    """Play a full game, or until a bot faults; ``on_deal`` hears of every finished dealing."""
    if len(players) != 4:
        raise ValueError(f"a game needs 4 players, got {len(players)}")
    state = GameState.new(seed, rules, record_legal=record_legal)
    try:
        while not state.is_terminal():
            record = state.current_deal
            tricks = len(record.tricks)
            seat = state.current_player()
            state.apply(players[seat].choose(observe(state, seat)))
            if len(record.tricks) > tricks:
                _tell(players, protocol.trick_ended(record.number, record.tricks[-1], record.trump))
            if state.current_deal is not record or state.is_terminal():
                if on_deal is not None:
                    on_deal(record)
                _tell(players, protocol.deal_ended(record))
        outcome = GameOutcome(state, None)
    except BotFault as fault:
        place = fault_place(state, fault.seat, fault.bot, fault.answer)
        outcome = GameOutcome(state, Forfeit(fault.seat, fault.reason, fault.detail, place))
    end = protocol.game_ended(list(state.totals), outcome.winner, outcome.reason)
    for player in players:
        with contextlib.suppress(BotFault):  # the result stands even if a bot can't hear it
            player.notify(end)
    return outcome


def _tell(players: Sequence[Player], event: pb.Notification) -> None:
    for player in players:
        player.notify(event)
