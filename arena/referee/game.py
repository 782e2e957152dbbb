"""Run one game: ask the seat to move for an action, apply it, until the game is over."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arena.engine import DealRecord, GameState, Rules, observe
from arena.players import Player

DealObserver = Callable[[DealRecord], None]


def run_game(
    players: Sequence[Player],
    seed: int,
    rules: Rules | None = None,
    *,
    record_legal: bool = False,
    on_deal: DealObserver | None = None,
) -> GameState:
    """Play a full game; ``on_deal`` hears of every dealing as it finishes (redeals too)."""
    if len(players) != 4:
        raise ValueError(f"a game needs 4 players, got {len(players)}")
    state = GameState.new(seed, rules, record_legal=record_legal)
    reported = 0
    while not state.is_terminal():
        seat = state.current_player()
        state.apply(players[seat].choose(observe(state, seat)))
        if on_deal is not None:
            finished = len(state.deals) - (0 if state.is_terminal() else 1)
            for record in state.deals[reported:finished]:
                on_deal(record)
            reported = max(reported, finished)
    return state
