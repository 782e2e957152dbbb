"""A hostile bot that tries to deal the game itself, as an author who read the platform's
code would: it captures its ``bot_seed`` (by swapping the SDK's ``random.Random``), turns it
back into a game seed as version 1 allowed (``seed * 4 + seat``), takes it as the seed, and
searches the small seeds for one that deals it its own first hand; each candidate is dealt
both ways (version 1's one generator, version 2's seed per dealing). At each of its bids it
prints, as one JSON line, the hands it predicts for every seat, from the candidate that
dealt its own hand, if any. Played first-legal so that the game is cheap."""

from __future__ import annotations

import hashlib
import json
import random
import types

import arena_sdk.server as sdk_server
from arena_sdk import Bid, Bot, Card, Observation, run

SEARCHED = 4000  # small seeds tried: `arena play --seed N` with a small N is one of them
CAPTURED: list[int] = []


class _Capturing(random.Random):
    def __init__(self, x: object = None) -> None:
        if isinstance(x, int):
            CAPTURED.append(x)
        super().__init__(x)


sdk_server.random = types.SimpleNamespace(Random=_Capturing)  # type: ignore[attr-defined]

NAMES = [r + s for s in "SHDC" for r in "23456789TJQKA"] + ["BB", "LB"]


def _deal(rng: random.Random, dealer: int, n: int) -> list[list[str]]:
    keys = [rng.random() for _ in range(54)]
    deck = sorted(range(54), key=keys.__getitem__)
    hands: list[list[str]] = [[], [], [], []]
    for i in range(n * 4):
        hands[(dealer + 1 + i) % 4].append(NAMES[deck[i]])
    return hands


def _digest(purpose: str, *numbers: int) -> bytes:
    text = ":".join(str(n) for n in numbers)
    return hashlib.sha256(f"backalley/{purpose}/{text}".encode()).digest()


class Scheme:
    """One guess of how the game was dealt: a seed and a dealing method."""

    def __init__(self, seed: int, version: int) -> None:
        self.seed, self.version = seed, version
        if version == 1:
            self.rng = random.Random(seed)
            self.first_dealer = self.rng.randrange(4)
        else:
            self.first_dealer = _digest("first-dealer", seed)[0] % 4
        self.dealt: list[list[list[str]]] = []

    def hands(self, dealing: int, n: int) -> list[list[str]]:
        """The hands of the 1-based ``dealing`` (every earlier one dealt first)."""
        while len(self.dealt) < dealing:
            k = len(self.dealt) + 1
            dealer = (self.first_dealer + k - 1) % 4
            if self.version == 1:
                rng = self.rng
            else:
                rng = random.Random(int.from_bytes(_digest("dealing", self.seed, k), "big"))
            self.dealt.append(_deal(rng, dealer, n))
        return self.dealt[dealing - 1]


class Dealer(Bot):
    name = "dealer"

    def on_game_start(self, seat: int, limits: object) -> None:
        self.dealing = 0
        self.schemes: list[Scheme] = []

    def _candidates(self, hand: set[str], n: int) -> list[Scheme]:
        bot_seed = CAPTURED[-1] if CAPTURED else 0
        guesses = {(bot_seed - self.seat) // 4, bot_seed}
        schemes = [Scheme(s, v) for s in guesses for v in (1, 2)]
        for seed in range(SEARCHED):
            for version in (1, 2):
                scheme = Scheme(seed, version)
                if set(scheme.hands(1, n)[self.seat]) == hand:
                    schemes.insert(0, scheme)
        return schemes

    def bid(self, obs: Observation) -> Bid:
        self.dealing += 1  # every seat bids once in each dealing, redeals included
        hand = {str(c) for c in obs.hand}
        if self.dealing == 1:
            self.schemes = self._candidates(hand, obs.hand_size)
        fitting = [
            s for s in self.schemes if set(s.hands(self.dealing, obs.hand_size)[self.seat]) == hand
        ]
        best = (fitting or self.schemes)[0]
        predicted = best.hands(self.dealing, obs.hand_size)
        line = {"dealing": self.dealing, "fits": bool(fitting), "predicted": predicted}
        print(json.dumps(line), flush=True)
        return obs.legal_bids[0]

    def play(self, obs: Observation) -> Card:
        return obs.legal_plays[0]


if __name__ == "__main__":
    run(Dealer())
