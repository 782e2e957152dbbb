"""A bot that thinks a fixed time per decision, then plays a fixed legal option.

``bench/tournament.py`` copies it with other values of the three constants below, so that
its entries are distinct versions whose bots all take ``THINK_MS`` per decision.
"""

import time

from arena_sdk import Bid, Bot, Card, Observation, run

NAME = "thinking"
THINK_MS = 20  # slept, not computed: the bot's time, not its CPU
PICK = 0  # the index among the legal options: 0 the first, -1 the last


class Thinking(Bot):
    name = NAME

    def bid(self, obs: Observation) -> Bid:
        time.sleep(THINK_MS / 1000)
        return obs.legal_bids[PICK]

    def play(self, obs: Observation) -> Card:
        time.sleep(THINK_MS / 1000)
        return obs.legal_plays[PICK]


if __name__ == "__main__":
    run(Thinking())
