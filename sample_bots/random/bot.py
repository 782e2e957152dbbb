"""A bot that bids and plays uniformly at random among the legal options.

Its randomness comes from ``self.rng``, which the referee seeds for each game, so it plays
a given game the same way every time.
"""

from __future__ import annotations

from arena_sdk import Bid, Bot, Card, Observation, run


class RandomBot(Bot):
    name = "random"

    def bid(self, obs: Observation) -> Bid:
        return self.rng.choice(obs.legal_bids)

    def play(self, obs: Observation) -> Card:
        return self.rng.choice(obs.legal_plays)


if __name__ == "__main__":
    run(RandomBot())
