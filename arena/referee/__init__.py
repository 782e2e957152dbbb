"""The referee: runs one game between four players and says how it ended."""

from .faults import (
    BotFault,
    CrashFault,
    IllegalFault,
    ProtocolFault,
    StartupFault,
    TimeoutFault,
)  # fmt: skip
from .game import DealObserver, GameOutcome, Player, run_game
from .remote import RemotePlayer, Timing

__all__ = [
    "BotFault", "CrashFault", "DealObserver", "GameOutcome", "IllegalFault", "Player",
    "ProtocolFault", "RemotePlayer", "StartupFault", "TimeoutFault", "Timing", "run_game",
]  # fmt: skip
