"""Write a Back Alley bot: subclass ``Bot``, answer ``bid`` and ``play``, call ``run``.

>>> from arena_sdk import Bot, run
>>> class MyBot(Bot):
...     def bid(self, obs): return obs.legal_bids[0]
...     def play(self, obs): return obs.legal_plays[0]
"""

__version__ = "1.0.0"

from .bot import Bot, DealResult, GameResult, Limits
from .cards import Bid, Card, CardError
from .observation import Contract, JokerSwap, Observation, Play, SeatBid, Trick
from .server import IllegalDecisionError, run

__all__ = [
    "Bid", "Bot", "Card", "CardError", "Contract", "DealResult", "GameResult",
    "IllegalDecisionError", "JokerSwap", "Limits", "Observation", "Play", "SeatBid", "Trick",
    "__version__", "run",
]  # fmt: skip
