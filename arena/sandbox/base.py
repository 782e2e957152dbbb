"""What every sandbox backend offers: start a bot, tell how it died, stop it for good."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Protocol

from arena.bots.limits import Limits

SOCKET_NAME = "bot.sock"  # in the bot's own run directory, which only it can write


class RunningBot(Protocol):
    """A started bot. Nothing the bot writes is followed: its socket is checked before it
    is dialled, its output is read from a stream the platform holds."""

    def open_socket(self, deadline: float) -> int:
        """An ``O_PATH`` descriptor of the bot's socket, checked (``bot_socket``), once it
        is made; the caller dials it through ``/proc/self/fd/N`` and closes it. Raises
        ``SocketFault`` (the bot's start-up fault) if it is anything else, or none is made
        by ``deadline`` (a ``time.monotonic()`` value)."""
        ...

    def output(self) -> bytes:
        """Its stdout and stderr so far (all of it, if it has ended): the first
        ``Limits.output_bytes``, then a line saying how many more were dropped."""
        ...

    @property
    def started_at(self) -> float:
        """``time.monotonic()`` when it was started, moved on by any time it has waited
        frozen since (``turns``): its start-up time counts from here."""
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

    def wait_frozen(self) -> None:
        """Return once the last ``freeze`` has taken hold (every one of its threads stopped;
        a freeze is asynchronous), or after a short bound; at once where nothing freezes."""
        ...

    def stop(self) -> None:
        """Kill it and everything it started, and release what it held. Idempotent."""
        ...


class Sandbox(Protocol):
    name: str

    def start(self, bot_dir: Path, workdir: Path, limits: Limits) -> RunningBot:
        """Start the bot's command (its ``manifest``'s; ``python3 bot.py`` bare) from
        ``bot_dir`` (read-only to it), serving on a socket in a run directory of its own
        (``workdir`` is the platform's, for the bot's files as the backend needs). Raises
        ``SandboxError`` if the platform cannot; a bot that can't start is not an error here
        (its Hello will fail)."""
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
