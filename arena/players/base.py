"""The one thing the referee asks of a player."""

from __future__ import annotations

from typing import Protocol

from arena.engine import Observation


class Player(Protocol):
    name: str

    def choose(self, obs: Observation) -> int:
        """Return one of ``obs.legal_actions`` (a bid while bidding, a card in play)."""
        ...
