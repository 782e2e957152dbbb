"""How people read versions: ``bot vN``, and a team as ``a v1`` or ``a v1 + b v2``; and a
stored version as its row."""

from __future__ import annotations

from arena.read_model import Entrant, VersionRow
from arena.store import BotVersion, Store


def version_row(
    store: Store, version: BotVersion, bot: str | None = None, validation: str | None = None
) -> VersionRow:
    """A stored version as every front end reads it; ``bot`` (its name) and ``validation``
    (its validation game's status) when the caller has them already."""
    if bot is None:
        bot = store.bot_by_id(version.bot_id).name
    if validation is None:
        validation = store.validation_statuses().get(version.id or 0, "")
    return VersionRow(
        bot, version.number, version.status, version.reason or "", version.content_hash,
        validation,
    )  # fmt: skip


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
