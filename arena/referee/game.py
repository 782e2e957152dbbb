"""Referee one game: greet the four bots (``hello``), then ask the seat to move, apply
its answer, tell everyone what happened.

A bot fault ends the game at once with a forfeit: the faulting seat's team loses.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from arena.engine import DealRecord, GameState, Observation, Rules, observe
from arena.engine.events import DealEnded, Event, GameEnded, TrickEnded
from arena.engine.notes import NotePlace, note_place
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


@runtime_checkable
class NotingPlayer(Player, Protocol):
    def take_note(self) -> str | None:
        """The note the bot attached to the decision it just made (as the referee keeps
        it: ``referee.notes``), or None."""
        ...


@dataclass
class GameOutcome:
    state: GameState
    forfeit: Forfeit | None
    notes: dict[NotePlace, str] = field(default_factory=dict)  # the bots', by decision

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
    notes: dict[NotePlace, str] = {}
    noting = [p if isinstance(p, NotingPlayer) else None for p in players]
    try:
        while not state.is_terminal():
            record = state.current_deal
            tricks = len(record.tricks)
            seat = state.current_player()
            taker = noting[seat]
            place = None if taker is None else note_place(state)
            state.apply(players[seat].choose(observe(state, seat)))
            if taker is not None and place is not None and (note := taker.take_note()):
                notes[place] = note
            if len(record.tricks) > tricks:
                _tell(players, TrickEnded(record.number, record.tricks[-1], record.trump))
            if state.current_deal is not record or state.is_terminal():
                if on_deal is not None:
                    on_deal(record)
                _tell(players, DealEnded(record))
        outcome = GameOutcome(state, None, notes)
    except BotFault as fault:
        where = fault_place(state, fault.seat, fault.bot, fault.answer)
        outcome = GameOutcome(state, Forfeit(fault.seat, fault.reason, fault.detail, where), notes)
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
