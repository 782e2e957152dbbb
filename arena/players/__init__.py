"""Players: anything that picks an action from one seat's observation.

The built-in players here run in-process; they are the opponents ``arena play`` knows
by name.
"""

from .base import Player
from .builtin import BUILTIN_PLAYERS, HeuristicPlayer, RandomPlayer, UnknownPlayerError, make_player

__all__ = [
    "BUILTIN_PLAYERS", "HeuristicPlayer", "Player", "RandomPlayer", "UnknownPlayerError",
    "make_player",
]  # fmt: skip
