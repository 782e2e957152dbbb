"""Partners that talk by think time: seat 0 sends a bit per trick in how long it takes to
play, seat 2 times each trick between its own ``on_trick`` notifications.

``bench/think_channel.py`` (and its test) copy this file with other values of the constants
below. The bits are a fixed pseudo-random sequence, one per trick after a deal's first (whose
time includes the bidding): each side prints what it sent or saw, the bench decodes.
"""

import random
import time

from arena_sdk import Bid, Bot, Card, DealResult, Limits, Observation, Trick, run

NAME = "think-channel"
# free: a 1 is a sleep of FREE_MS, at most half the free time: no bank, unless the machine
# delays the answer past the free time; bank: a 1 is the free time plus 1 ms: one pace of
# bank, while the bank holds two.
MODE = "free"
FREE_MS = 30
SENDER, RECEIVER = 0, 2


def bit(deal: int, trick: int) -> int:
    return random.Random(deal * 100 + trick).getrandbits(1)


class ThinkChannel(Bot):
    name = NAME

    def on_game_start(self, seat: int, limits: Limits) -> None:
        self.deal, self.trick = 1, 0  # the receiver's count: deals ended, tricks this deal

    def bid(self, obs: Observation) -> Bid:
        # Never a pass: four passes redeal, which would shift the two sides' deal counts.
        return next((b for b in obs.legal_bids if b != Bid.PASS), obs.legal_bids[0])

    def play(self, obs: Observation) -> Card:
        trick = len(obs.tricks) + 1
        if obs.seat == SENDER and trick > 1:
            sent = bit(obs.deal_number, trick)
            free = self.limits.move_ms
            if sent and MODE == "free":
                time.sleep(min(FREE_MS, free / 2) / 1000)
            elif sent and obs.time_left_ms >= 2 * free:
                time.sleep((free + 1) / 1000)
            elif sent:
                sent = 0  # the bank is spent: nothing more can be said
            print(f"sent {obs.deal_number} {trick} {sent}", flush=True)
        return obs.legal_plays[0]

    def on_trick(self, trick: Trick) -> None:
        now = time.monotonic_ns()
        self.trick += 1
        if self.seat == RECEIVER:
            print(f"trick {self.deal} {self.trick} {now}", flush=True)

    def on_deal_end(self, result: DealResult) -> None:
        self.deal, self.trick = self.deal + 1, 0


if __name__ == "__main__":
    run(ThinkChannel())
