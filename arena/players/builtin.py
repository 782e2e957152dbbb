"""In-process players: ``random`` and ``heuristic``.

Each is deterministic for a given seed, so a game between built-in players is a pure
function of the game seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from arena.engine import BB, BOARD, PASS, Observation, Phase, bid_number, number_bid
from arena.engine.cards import power, suit_of


class UnknownPlayerError(ValueError):
    pass


class RandomPlayer:
    """Uniform over the legal actions."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "random"
        self._rng = random.Random(seed)

    def choose(self, obs: Observation) -> int:
        return self._rng.choice(obs.legal_actions)


def _is_trump(card: int, trump: int | None) -> bool:
    return trump is not None and (card >= BB or card // 13 == trump)


def _rank(card: int) -> int:
    return 13 + (card == BB) if card >= BB else card % 13


class HeuristicPlayer:
    """Bids its likely winners (aces, kings, high trumps); plays to take what it needs.

    Not strong: it is a baseline that beats ``random`` and is easy to read.
    """

    def __init__(self, seed: int = 0) -> None:
        self.name = "heuristic"

    def choose(self, obs: Observation) -> int:
        return self._bid(obs) if obs.phase is Phase.BIDDING else self._play(obs)

    def _bid(self, obs: Observation) -> int:
        trump = obs.trump
        winners = 0.0
        for card in obs.hand:
            if _is_trump(card, trump):
                winners += 1.0 if _rank(card) >= 10 else 0.4
            elif card % 13 == 12:
                winners += 0.9
            elif card % 13 == 11:
                winners += 0.4
        n = round(winners)
        if obs.hand_size >= 3 and n >= obs.hand_size:
            return BOARD
        n = min(n, obs.hand_size - 1)
        action = number_bid(n) if n >= 1 else PASS
        return action if action in obs.legal_actions else PASS

    def _play(self, obs: Observation) -> int:
        legal = obs.legal_actions
        trump = obs.trump
        plays = obs.current_trick.plays
        ours = [a for s, a in obs.bids if s % 2 == obs.team]
        taken = obs.tricks_won[obs.seat] + obs.tricks_won[obs.partner]
        need_more = BOARD in ours or taken < sum(bid_number(a) for a in ours)
        if not plays:  # lead the strongest card when tricks are needed, else the weakest
            by_strength = sorted(legal, key=lambda c: power(c, trump, suit_of(c)))
            return by_strength[-1] if need_more else by_strength[0]
        led = plays[0][1]
        led_suit = trump if _is_trump(led, trump) else suit_of(led)

        def strength(card: int) -> int:
            return power(card, trump, led_suit)

        best_seat, best = max(plays, key=lambda p: strength(p[1]))
        winning = [c for c in legal if strength(c) > strength(best)]
        if not need_more or best_seat == obs.partner or not winning:
            return min(legal, key=strength)  # duck, or cover partner by staying low
        return min(winning, key=strength)  # win as cheaply as possible


BUILTIN_PLAYERS: dict[str, Callable[[int], RandomPlayer | HeuristicPlayer]] = {
    "random": RandomPlayer,
    "heuristic": HeuristicPlayer,
}


def make_player(name: str, seed: int) -> RandomPlayer | HeuristicPlayer:
    try:
        return BUILTIN_PLAYERS[name](seed)
    except KeyError:
        known = ", ".join(sorted(BUILTIN_PLAYERS))
        raise UnknownPlayerError(f"unknown bot {name!r} (known: {known})") from None
