"""How people read versions: ``bot vN``, and a team as ``a v1`` or ``a v1 + b v2``."""

from __future__ import annotations

from arena.read_model import Entrant
from arena.store import Store


class Labels:
    """Labels for version ids, each looked up in the store once."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.known: dict[int, Entrant] = {}

    def __call__(self, version_id: int) -> str:
        return self.entrant(version_id).label

    def entrant(self, version_id: int) -> Entrant:
        if version_id not in self.known:
            version = self.store.version(version_id)
            bot = self.store.bot_by_id(version.bot_id)
            self.known[version_id] = Entrant(bot.name, version.number)
        return self.known[version_id]

    def team(self, a: int, c: int) -> str:
        """A partnership: one label for two copies of one entry (format ``pairs``)."""
        return self(a) if a == c else f"{self(a)} + {self(c)}"
