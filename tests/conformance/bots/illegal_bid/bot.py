"""Breaks `legal-bid`: bids more tricks than it holds (the SDK refuses to send it)."""

from arena_sdk import Bid, Bot, run


class IllegalBid(Bot):
    def bid(self, obs):
        return Bid.number_of(obs.hand_size + 1)

    def play(self, obs):
        return obs.legal_plays[0]


if __name__ == "__main__":
    run(IllegalBid())
