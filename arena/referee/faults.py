"""What a bot can do wrong. A fault ends the game; the faulting seat's team loses."""

from __future__ import annotations

from typing import ClassVar

from arena.engine.replay_format import ForfeitReason


class BotFault(Exception):
    """A bot broke the contract; ``reason`` is what the replay records (each subclass has
    its own)."""

    reason: ClassVar[ForfeitReason]

    def __init__(self, seat: int, bot: str, detail: str, *, answer: int | None = None) -> None:
        self.seat = seat
        self.bot = bot
        self.detail = detail
        self.answer = answer  # the illegal action it answered, if that was the fault
        super().__init__(f"seat {seat} ({bot}) {self.reason}: {detail}")


class TimeoutFault(BotFault):
    reason = ForfeitReason.TIMEOUT


class CrashFault(BotFault):
    """The process died or the bot's code raised."""

    reason = ForfeitReason.CRASH


class IllegalFault(BotFault):
    """A well-formed answer that is not one of the legal options."""

    reason = ForfeitReason.ILLEGAL


class ProtocolFault(BotFault):
    """A malformed answer, an unknown card, or the wrong protocol version."""

    reason = ForfeitReason.PROTOCOL


class StartupFault(BotFault):
    """Never came up: no socket, or no answer to Hello in time."""

    reason = ForfeitReason.STARTUP
