"""A bot's stdout and stderr, read by the platform from a stream it holds (a pipe, or a
container's attached streams), never from a file the bot could replace.

The reader keeps the first ``limit`` bytes and reads and drops the rest, so the bot never
sees a write fail, however much it writes; the kept log ends with a line saying how much
was dropped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

CHUNK = 1 << 16
DROPPED = "\n[arena: {dropped} more bytes dropped here, past the limit of {limit} bytes]\n"


class OutputCapture:
    """Reads ``read()`` (a chunk, ``b""`` at the end) in a thread of its own until it ends."""

    def __init__(self, read: Callable[[], bytes], limit: int, name: str) -> None:
        self._read = read
        self._limit = limit
        self._kept = bytearray()
        self._dropped = 0
        self._lock = threading.Lock()
        # A daemon: a stream some leftover process holds open must not keep the platform up.
        self._thread = threading.Thread(target=self._run, name=f"arena-out-{name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                chunk = self._read()
            except (OSError, ValueError):  # the stream was closed under us: it ended
                return
            if not chunk:
                return
            with self._lock:
                room = self._limit - len(self._kept)
                self._kept += chunk[: max(0, room)]
                self._dropped += max(0, len(chunk) - max(0, room))

    def ended(self, wait_s: float = 0.0) -> bool:
        """Whether the stream has ended, waiting up to ``wait_s`` for it."""
        self._thread.join(wait_s)
        return not self._thread.is_alive()

    def captured(self) -> bytes:
        """What was kept so far, with the dropped-bytes line if anything was dropped."""
        with self._lock:
            kept, dropped = bytes(self._kept), self._dropped
        if dropped:
            kept += DROPPED.format(dropped=dropped, limit=self._limit).encode()
        return kept


class Frames:
    """The payloads of a Docker attach stream (no tty): 8-byte headers, stream and length."""

    def __init__(self, recv: Callable[[int], bytes]) -> None:
        self._recv = recv

    def _exactly(self, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = self._recv(min(CHUNK, size - len(data)))
            if not chunk:
                return b""
            data += chunk
        return data

    def read(self) -> bytes:
        header = self._exactly(8)
        if not header:
            return b""
        size = int.from_bytes(header[4:8], "big")
        return self._exactly(size) if size else self.read()


__all__ = ["DROPPED", "Frames", "OutputCapture"]
