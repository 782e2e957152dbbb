"""Write a Back Alley bot: subclass ``Bot``, answer ``bid`` and ``play``, call ``run``.

>>> from arena_sdk import Bot, run
>>> class MyBot(Bot):
...     def bid(self, obs): return obs.legal_bids[0]
...     def play(self, obs): return obs.legal_plays[0]
"""

__version__ = "1.0.0"

import os

# gRPC's C core serves through its EventEngine listener by default; with the older poller
# a bot's server wakes fewer threads per call and spends about a fifth less CPU on it
# (bench/README.md, "The SDK's cheaper calls and cards"). Read once, as gRPC starts: it
# holds when the SDK is imported before grpc (as a bot's own imports begin), and a bot's
# environment that sets GRPC_EXPERIMENTS keeps its own.
os.environ.setdefault("GRPC_EXPERIMENTS", "-event_engine_listener")

from .bot import Bot, DealResult, GameResult, Limits
from .cards import Bid, Card, CardError
from .observation import Contract, JokerSwap, Observation, Play, SeatBid, Trick
from .server import IllegalDecisionError, run

__all__ = [
    "Bid", "Bot", "Card", "CardError", "Contract", "DealResult", "GameResult",
    "IllegalDecisionError", "JokerSwap", "Limits", "Observation", "Play", "SeatBid", "Trick",
    "__version__", "run",
]  # fmt: skip
