"""Referee one game: greet the four bots (``hello``), then ask the seat to move, apply
its answer, tell everyone what happened.

A bot fault ends the game at once with a forfeit: the faulting seat's team loses.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from arena.engine import DealRecord, GameState, Observation, Rules, observe
from arena.engine.events import DealEnded, Event, GameEnded, TrickEnded
from arena.engine.replay import Forfeit
from arena.engine.seeds import bot_seed
from arena.engine.situation import fault_place, startup_place

from .faults import BotFault

DealObserver = Callable[[DealRecord], None]


class Player(Protocol):
    def hello(self, bot_seed: int, rules: Rules) -> None:
        """Say Hello to the bot, or raise a ``BotFault`` (its start-up fault)."""
        ...

    def choose(self, obs: Observation) -> int:
        """One of ``obs.legal_actions``, or raise a ``BotFault``."""
        ...

    def notify(self, event: Event) -> None:
        """Tell the bot what happened, or raise a ``BotFault``."""
        ...


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
    on_begin: Callable[[], None] | None = None,
) -> GameOutcome:
    """Greet the players, then play a full game, or until a bot faults; ``on_deal`` hears
    of every finished dealing.

    ``on_begin`` is called once every bot has answered Hello (or one failed to, which
    forfeits the game before deal 1: no one is told of its end), as the game's play begins."""
    if len(players) != 4:
        raise ValueError(f"a game needs 4 players, got {len(players)}")
    state = GameState.new(seed, rules, record_legal=record_legal)
    startup = _greet(players, seed, state.rules)
    if on_begin is not None:
        on_begin()
    if startup is not None:
        return GameOutcome(state, startup)
    try:
        while not state.is_terminal():
            record = state.current_deal
            tricks = len(record.tricks)
            seat = state.current_player()
            state.apply(players[seat].choose(observe(state, seat)))
            if len(record.tricks) > tricks:
                _tell(players, TrickEnded(record.number, record.tricks[-1], record.trump))
            if state.current_deal is not record or state.is_terminal():
                if on_deal is not None:
                    on_deal(record)
                _tell(players, DealEnded(record))
        outcome = GameOutcome(state, None)
    except BotFault as fault:
        place = fault_place(state, fault.seat, fault.bot, fault.answer)
        outcome = GameOutcome(state, Forfeit(fault.seat, fault.reason, fault.detail, place))
    a, b = state.totals
    end = GameEnded((a, b), outcome.winner, outcome.reason)
    for player in players:
        with contextlib.suppress(BotFault):  # the result stands even if a bot can't hear it
            player.notify(end)
    return outcome


def _greet(players: Sequence[Player], seed: int, rules: Rules) -> Forfeit | None:
    """Say Hello to every seat in order; the start-up forfeit of the first that fails, if
    one does (no later seat is greeted)."""
    for seat, player in enumerate(players):
        try:
            player.hello(bot_seed(seed, seat), rules)
        except BotFault as fault:
            place = startup_place(fault.seat, fault.bot)
            return Forfeit(fault.seat, fault.reason, fault.detail, place)
    return None


def _tell(players: Sequence[Player], event: Event) -> None:
    for player in players:
        player.notify(event)
