"""Bots that go wrong on purpose, written as a bot author would write them (with the SDK)
or below it (raw gRPC, for answers the SDK would refuse to send)."""

from __future__ import annotations

from pathlib import Path

# Raw gRPC: legal until deal 2, then a card it holds that is not legal (or one it lacks).
ILLEGAL_IN_DEAL_2 = """
import os
from concurrent import futures

import grpc
from backalley.v1 import player_pb2 as pb


def hello(request, context):
    return pb.HelloResponse(protocol_version=1, bot_name="raw").SerializeToString()


def bid(request, context):
    request = pb.DecisionRequest.FromString(request)
    return pb.BidResponse(bid=request.legal_bids[0]).SerializeToString()


def play(request, context):
    request = pb.DecisionRequest.FromString(request)
    legal = list(request.legal_plays)
    if request.observation.deal_number < 2:
        return pb.PlayResponse(card=legal[0]).SerializeToString()
    held = [c for c in request.observation.hand if c not in legal]
    card = held[0] if held else next(c for c in ("AS", "2C", "BB") if c not in legal)
    return pb.PlayResponse(card=card).SerializeToString()


same = lambda b: b
handlers = {
    "Hello": grpc.unary_unary_rpc_method_handler(hello, same, same),
    "Bid": grpc.unary_unary_rpc_method_handler(bid, same, same),
    "Play": grpc.unary_unary_rpc_method_handler(play, same, same),
    "Notify": grpc.unary_unary_rpc_method_handler(lambda r, c: b"", same, same),
}
server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
server.add_generic_rpc_handlers(
    [grpc.method_handlers_generic_handler("backalley.v1.Player", handlers)]
)
server.add_insecure_port("unix:" + os.environ["ARENA_SOCKET"])
server.start()
server.wait_for_termination()
"""

# The SDK: raises in deal 2 (its traceback names this file and the line of the raise).
RAISES_IN_DEAL_2 = """
from arena_sdk import Bot, run


class Fragile(Bot):
    name = "fragile"

    def bid(self, obs):
        return obs.legal_bids[0]

    def play(self, obs):
        if obs.deal_number == 2:
            raise ValueError("no idea what to play")
        return obs.legal_plays[0]


if __name__ == "__main__":
    run(Fragile())
"""

SYNTAX_ERROR = """
from arena_sdk import Bot, run


class Broken(Bot):
    def bid(self, obs)
        return obs.legal_bids[0]
"""


def write_bot(directory: Path, source: str) -> Path:
    directory.mkdir(parents=True)
    (directory / "bot.py").write_text(source)
    return directory
