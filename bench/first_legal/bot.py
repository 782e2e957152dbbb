"""The cheapest legal bot: the first legal option, always."""

from arena_sdk import Bid, Bot, Card, Observation, run


class FirstLegal(Bot):
    name = "first-legal"

    def bid(self, obs: Observation) -> Bid:
        return obs.legal_bids[0]

    def play(self, obs: Observation) -> Card:
        return obs.legal_plays[0]


if __name__ == "__main__":
    run(FirstLegal())
