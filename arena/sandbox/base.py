"""What every sandbox backend offers: start a bot, tell how it died, stop it for good."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Protocol

from arena.limits import Limits

SOCKET_NAME = "bot.sock"  # in the bot's own directory, shared with the referee
LOG_NAME = "bot.log"  # the bot's stdout and stderr, capped at Limits.output_bytes


class RunningBot(Protocol):
    """A started bot. ``socket_path`` and ``log_path`` are on the referee's side."""

    @property
    def socket_path(self) -> Path: ...

    @property
    def log_path(self) -> Path: ...

    @property
    def started_at(self) -> float:
        """``time.monotonic()`` when it was started: its start-up time counts from here."""
        ...

    def died(self) -> str | None:
        """How it ended (``exit status 1``, ``killed by signal 9 (SIGKILL)``, ``out of
        memory ...``), or None while it runs."""
        ...

    def freeze(self) -> None:
        """Stop its processes (between the referee's calls, so it takes no CPU from the bot
        on turn) until ``thaw``; a no-op where the backend cannot."""
        ...

    def thaw(self) -> None: ...

    def stop(self) -> None:
        """Kill it and everything it started, and release what it held. Idempotent."""
        ...


class Sandbox(Protocol):
    name: str

    def start(self, bot_dir: Path, workdir: Path, limits: Limits) -> RunningBot:
        """Start ``python bot.py`` from ``bot_dir`` (read-only to it), serving on
        ``workdir/bot.sock``. Raises ``SandboxError`` if the platform cannot; a bot that
        can't start is not an error here (its Hello will fail)."""
        ...

    def close(self) -> None:
        """Release the backend (after every bot it started was stopped)."""
        ...


def describe_exit(code: int) -> str:
    """``exit status 1`` for a code, ``killed by signal 9 (SIGKILL)`` for a negative one."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "unknown"
        return f"killed by signal {-code} ({name})"
    return f"exit status {code}"
