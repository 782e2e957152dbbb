"""What every player of a game is told as it happens: a trick ended, a deal ended, the
game ended.

The referee tells each player (``arena.referee.Player.notify``); how an event reaches a
bot is the player's concern (``RemotePlayer`` encodes it as the protocol's
``Notification``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .state import DealRecord, Trick


@dataclass(frozen=True, slots=True)
class TrickEnded:
    deal: int  # the deal's number
    trick: Trick
    trump: int | None


@dataclass(frozen=True, slots=True)
class DealEnded:
    record: DealRecord


@dataclass(frozen=True, slots=True)
class GameEnded:
    totals: tuple[int, int]
    winner: int | None  # the winning team, None for a tie
    reason: str  # "normal", or the forfeit's reason


Event = TrickEnded | DealEnded | GameEnded
