"""The referee: runs one game between four players and returns what happened."""

from .game import DealObserver, run_game

__all__ = ["DealObserver", "run_game"]
