"""A bot's notes on its decisions, as the referee keeps them: inert, cut to size, counted.

A note comes with a bid or a play (the reply's ``note``). Bots are hostile: whatever one
sends, the referee keeps at most ``NOTE_MAX_CHARS`` characters of a note, with every control
character shown as an escape, and at most ``NOTES_PER_GAME`` notes of a seat in a game; what
it cuts it counts (the replay's ``notes_cut``). A note never faults a bot: only a reply
beyond the channel's size, like any other, is a protocol fault. The SDK cuts to the same
figures (``arena_sdk.bot``), so a bot that keeps to them loses nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.engine.replay import NotesCut
from arena.host.inert import inert

NOTE_MAX_CHARS = 160
NOTES_PER_GAME = 100


@dataclass
class NoteTaker:
    """One seat's notes in one game: what is kept of each, and how many were cut."""

    kept: int = 0
    truncated: int = 0
    dropped: int = 0

    def take(self, text: str) -> str | None:
        """What the replay keeps of ``text``, or None (no note, or past the game's count)."""
        if not text:
            return None
        if self.kept >= NOTES_PER_GAME:
            self.dropped += 1
            return None
        self.kept += 1
        # Cut before making inert (a flood costs no more than its first characters), and
        # after: an escape takes several characters.
        shown = inert(text[: NOTE_MAX_CHARS + 1])
        if len(shown) > NOTE_MAX_CHARS:
            self.truncated += 1
            shown = shown[:NOTE_MAX_CHARS]
        return shown

    def cut(self) -> NotesCut:
        return NotesCut(self.truncated, self.dropped)
