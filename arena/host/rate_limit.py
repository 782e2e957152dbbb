"""Events per key in a sliding hour, and the one-line refusal past the limit: the server's
per-user submissions, comparisons and token creations, and failed sign-ins per address on the
server and on the web. Standard library only, so both front ends use it."""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque


class LimitReached(Exception):
    """A call refused by one of the limits; the message names it. One line."""


class RateLimit:
    """At most ``per_hour`` events per key in any hour (a sliding window)."""

    def __init__(self, what: str, per_hour: int, limit: str) -> None:
        self.what = what
        self.limit = limit
        self.per_hour = per_hour
        self._lock = threading.Lock()
        self._times: dict[str, deque[float]] = defaultdict(deque)

    def take(self, key: str) -> None:
        """Count one event of ``key``'s, or refuse it if the hour already has its limit."""
        self._check(key, take=True)

    def check(self, key: str) -> None:
        """Refuse if ``key`` has had its limit this hour; count nothing."""
        self._check(key, take=False)

    def _check(self, key: str, *, take: bool) -> None:
        now = time.monotonic()
        with self._lock:
            times = self._times[key]
            while times and times[0] <= now - 3600:
                times.popleft()
            if len(times) >= self.per_hour:
                wait = int(times[0] + 3600 - now) + 1
                raise LimitReached(
                    f"at most {self.per_hour} {self.what} per hour ({self.limit}):"
                    f" try again in {wait} s"
                )
            if take:
                times.append(now)
            elif not times:
                del self._times[key]  # a check keeps no empty entry: keys stay bounded
