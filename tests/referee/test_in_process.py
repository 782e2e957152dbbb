"""The referee over players in this process: whole games, a fault mid-game and one at start-up,
in milliseconds (the same referee the sandboxed bots' ``RemotePlayer`` plays through)."""

from __future__ import annotations

import random

from arena.engine import Observation, Rules
from arena.engine.events import DealEnded, Event, GameEnded, TrickEnded
from arena.referee.faults import CrashFault, StartupFault
from arena.referee.game import bot_seed, run_game


class Player:
    """Plays a random legal action from its seeded ``rng``; faults as told to."""

    def __init__(self, seat: int, *, crash_at: int | None = None, no_hello: bool = False):
        self.seat = seat
        self.crash_at = crash_at  # the decision (counted from 1) on which its code raises
        self.no_hello = no_hello
        self.greeted_with: int | None = None
        self.decisions = 0
        self.heard: list[Event] = []
        self.rng = random.Random()

    def hello(self, bot_seed: int, rules: Rules) -> None:
        if self.no_hello:
            raise StartupFault(self.seat, "p", "never answered Hello")
        self.greeted_with = bot_seed
        self.rng.seed(bot_seed)

    def choose(self, obs: Observation) -> int:
        self.decisions += 1
        if self.decisions == self.crash_at:
            raise CrashFault(self.seat, "p", "its code raised")
        return self.rng.choice(obs.legal_actions)

    def notify(self, event: Event) -> None:
        self.heard.append(event)


def test_a_whole_game_is_told_to_every_player_and_repeats_with_its_seed() -> None:
    players = [Player(seat) for seat in range(4)]
    outcome = run_game(players, seed=7)
    assert outcome.forfeit is None and outcome.state.is_terminal()
    assert [p.greeted_with for p in players] == [bot_seed(7, seat) for seat in range(4)]
    deals = outcome.state.deals
    a, b = outcome.state.totals
    for p in players:
        assert sum(isinstance(e, DealEnded) for e in p.heard) == len(deals)
        assert sum(isinstance(e, TrickEnded) for e in p.heard) == sum(len(d.tricks) for d in deals)
        assert p.heard[-1] == GameEnded((a, b), outcome.winner, "normal")
    again = run_game([Player(seat) for seat in range(4)], seed=7)
    assert again.state.totals == outcome.state.totals


def test_a_fault_mid_game_forfeits_it_for_the_seat_s_team() -> None:
    players = [Player(seat, crash_at=5 if seat == 1 else None) for seat in range(4)]
    outcome = run_game(players, seed=3)
    assert outcome.forfeit is not None
    assert (outcome.forfeit.seat, outcome.forfeit.reason) == (1, "crash")
    assert outcome.winner == 0 and not outcome.state.is_terminal()
    assert players[1].decisions == 5
    a, b = outcome.state.totals
    for p in players:  # everyone hears the end, with the fault as its reason
        assert p.heard[-1] == GameEnded((a, b), 0, "crash")


def test_a_seat_that_never_answers_hello_forfeits_before_deal_1() -> None:
    players = [Player(seat, no_hello=seat == 2) for seat in range(4)]
    outcome = run_game(players, seed=1)
    assert outcome.forfeit is not None
    assert (outcome.forfeit.seat, outcome.forfeit.reason) == (2, "startup")
    assert outcome.winner == 1
    assert [p.greeted_with is not None for p in players] == [True, True, False, False]
    assert all(p.decisions == 0 for p in players)
