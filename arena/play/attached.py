"""A bot the author started (``python bot.py --port PORT``, e.g. under a debugger), played
by ``arena play tcp://127.0.0.1:PORT``: reached on this host's loopback only, never started
nor stopped by the platform, and given a generous deadline per call instead of the usual
limits (a breakpoint stops its clock, not the game). Only ``arena play`` accepts one: the
ladder's bots always run in its own sandbox.
"""

from __future__ import annotations

import dataclasses
import re
import socket
import time

from arena.bots.limits import Limits

SCHEME = "tcp://"
DEFAULT_TIMEOUT_S = 300  # per call: time to step through a decision, not for ever
_ADDRESS = re.compile(r"tcp://(127\.0\.0\.1|localhost):([0-9]{1,5})")
_LOG_NOTE = b"(a bot already running: its output is where it was started)\n"


class AttachError(ValueError):
    """A ``tcp://`` spec that is malformed, not on this host's loopback, or unanswered."""


def is_attached(spec: str) -> bool:
    return spec.startswith(SCHEME)


def attached_address(spec: str) -> str:
    """The gRPC target of ``tcp://127.0.0.1:PORT`` once something listens there."""
    match = _ADDRESS.fullmatch(spec)
    if match is None or not 0 < int(match[2]) < 65536:
        raise AttachError(f"{spec}: a running bot is tcp://127.0.0.1:PORT (this host's only)")
    port = int(match[2])
    if not _listening(port):
        raise AttachError(
            f"nothing listens at {spec}: start the bot first with python bot.py --port {port}"
        )
    return f"127.0.0.1:{port}"


def relaxed(limits: Limits, timeout_s: int) -> Limits:
    """The limits of an attached bot: ``timeout_s`` for Hello, each decision and each
    notification (the bank as usual on top), unpaced (a pace would hold every notification
    that long); the sandbox's own limits do not reach it."""
    ms = timeout_s * 1000
    return dataclasses.replace(limits, move_ms=ms, notify_ms=ms, startup_ms=ms, pace_ms=0)


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2.0).close()
    except OSError:
        return False
    return True


class AttachedBot:
    """A ``RunningBot`` the platform did not start: it is dialled at its address, so it has
    no socket to check, and its process is the author's, so ``stop`` leaves it running."""

    def __init__(self, address: str) -> None:
        self.address = address
        self._started_at = time.monotonic()

    def open_socket(self, deadline: float) -> int:
        raise NotImplementedError("an attached bot is dialled at its address")

    def output(self) -> bytes:
        return _LOG_NOTE

    @property
    def started_at(self) -> float:
        return self._started_at

    def died(self) -> str | None:
        """Its port refusing connections is all there is to tell (a debugger's pause
        still accepts them)."""
        port = int(self.address.rsplit(":", 1)[1])
        return None if _listening(port) else f"nothing listens at {self.address} any more"

    def freeze(self) -> None:
        """The author's process is theirs to pause."""

    def thaw(self) -> None:
        """Nothing was frozen."""

    def wait_frozen(self) -> None:
        """Nothing was frozen."""

    def stop(self) -> None:
        """The author stops it."""
