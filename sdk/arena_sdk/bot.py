"""The class a bot author subclasses."""

from __future__ import annotations

import random
from dataclasses import dataclass

from .cards import Bid, Card
from .observation import Observation, Trick

# What the referee keeps of a bot's notes (docs/sdk.md): the first NOTE_MAX_CHARS characters
# of each, and NOTES_PER_GAME noted decisions per game; the SDK cuts to the same, so what a bot
# sends is what its replay shows.
NOTE_MAX_CHARS = 160
NOTES_PER_GAME = 100


@dataclass(frozen=True)
class Limits:
    move_ms: int  # per decision, before the bank is drawn on
    bank_ms: int  # for the whole game


@dataclass(frozen=True)
class DealResult:
    deal_number: int
    redeal: bool  # all four passed: the same hand size is dealt again
    tricks_won: tuple[int, ...]  # per seat
    points: tuple[int, int]  # per team, this deal
    totals: tuple[int, int]  # per team, running


@dataclass(frozen=True)
class GameResult:
    totals: tuple[int, int]
    winner: int | None  # team, None for a draw
    reason: str  # "normal", or why the game was forfeited


class Bot:
    """Subclass it and answer ``bid`` and ``play``; the hooks are optional.

    ``self.rng`` is seeded by the referee for each game, so a bot that draws its randomness
    from it plays a given game the same way every time. ``self.seat``, ``self.limits`` and
    ``self.rules`` (the game's rule parameters, e.g. ``{"max_redeals": 5}``) are set before
    the first decision.
    """

    # What the bot calls itself in Hello (arena play's "name" column) and in its "serving on"
    # line; the class name if empty. The ladder and replays name it as submitted or given.
    name: str = ""

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.seat = -1
        self.limits = Limits(move_ms=1000, bank_ms=10_000)
        self.rules: dict[str, int] = {}  # rule parameters of this game, e.g. max_redeals
        self._note_parts: list[str] = []  # this decision's notes so far
        self._notes_sent = 0  # noted decisions this game

    def note(self, text: object) -> None:
        """Attach ``text`` to the decision being made (call it from ``bid`` or ``play``):
        the replay shows it beside that step, to you (the bot's owner) and to operators only.

        Several notes in one decision are joined with " · ". Plain text, cut to
        ``NOTE_MAX_CHARS`` characters; after ``NOTES_PER_GAME`` noted decisions in a game
        the rest are dropped. A note costs the decision nothing but its bytes."""
        parts = self._note_parts
        # Beyond the cap nothing more is kept: a note in a loop grows nothing.
        if self._notes_sent < NOTES_PER_GAME and sum(map(len, parts)) <= NOTE_MAX_CHARS:
            parts.append(str(text)[: NOTE_MAX_CHARS + 1])

    def _take_note(self) -> str:
        """The note of the decision just made ("" if none), counted against the game's cap."""
        parts, self._note_parts = self._note_parts, []
        text = " · ".join(p for p in parts if p)[:NOTE_MAX_CHARS]
        if text:
            self._notes_sent += 1
        return text

    def bid(self, obs: Observation) -> Bid:
        """Return one of ``obs.legal_bids``."""
        raise NotImplementedError("a bot must define bid(self, obs)")

    def play(self, obs: Observation) -> Card:
        """Return one of ``obs.legal_plays``."""
        raise NotImplementedError("a bot must define play(self, obs)")

    def on_game_start(self, seat: int, limits: Limits) -> None:
        """A new game begins; ``self.seat``, ``self.limits`` and ``self.rng`` are set."""

    def on_trick(self, trick: Trick) -> None:
        """A trick was completed (all four plays and the winner)."""

    def on_deal_end(self, result: DealResult) -> None:
        """A deal was scored, or redealt after four passes."""

    def on_game_end(self, result: GameResult) -> None:
        """The game is over."""

    @classmethod
    def wants_notifications(cls) -> bool:
        """Whether this bot overrides a hook; if not, the referee need not call them."""
        return any(
            getattr(cls, hook) is not getattr(Bot, hook)
            for hook in ("on_trick", "on_deal_end", "on_game_end")
        )
