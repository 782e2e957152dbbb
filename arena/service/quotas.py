"""What the server grants each caller, in one place: ``arena server`` sets each field with an
option of the same name (``--max-calls``, ...), and ``docs/operating.md`` says what each is for.

Every refusal is RESOURCE_EXHAUSTED with a one-line message naming the limit, so a caller
knows which one it met. The counters live in the server process: a second server on the
same database counts its own callers.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields

from arena.host.rate_limit import LimitReached, RateLimit

__all__ = ["Gate", "LimitReached", "RateLimit", "ServiceLimits"]


@dataclass(frozen=True)
class ServiceLimits:
    max_calls: int = 32  # calls in progress at once, all callers together
    max_calls_per_user: int = 8  # ... by one caller (a user, or an address without a token)
    max_uploads: int = 8  # uploads in progress at once, all users together
    max_uploads_per_user: int = 2
    upload_idle_s: float = 20.0  # the longest wait for an upload's next part
    upload_total_s: float = 120.0  # the longest an upload may take, all its parts
    submits_per_hour: int = 30  # per user
    compares_per_hour: int = 30  # per user
    max_batch: int = 16  # a compare's pairs queued ahead of its verdict
    max_pairs: int = 2000  # a compare's pairs at most
    tokens_per_hour: int = 10  # token creations per user
    failed_auths_per_hour: int = 30  # wrong or expired tokens per address; then refused

    def __post_init__(self) -> None:
        for f in fields(self):
            if not getattr(self, f.name) > 0:
                raise ValueError(f"--{f.name.replace('_', '-')} must be > 0")


class Gate:
    """At most ``total`` holders at once, and ``per_key`` per key."""

    def __init__(self, what: str, total: int, per_key: int) -> None:
        self.what = what
        self.total = total
        self.per_key = per_key
        self._lock = threading.Lock()
        self._held: dict[str, int] = defaultdict(int)
        self._all = 0

    @contextmanager
    def hold(self, key: str) -> Iterator[None]:
        with self._lock:
            if self._all >= self.total:
                raise LimitReached(
                    f"the server has its limit of {self.total} {self.what} in progress"
                    f" (max_{self.what}): try again later"
                )
            if self._held[key] >= self.per_key:
                raise LimitReached(
                    f"you have your limit of {self.per_key} {self.what} in progress"
                    f" (max_{self.what}_per_user): wait for one to end"
                )
            self._all += 1
            self._held[key] += 1
        try:
            yield
        finally:
            with self._lock:
                self._all -= 1
                self._held[key] -= 1
                if not self._held[key]:
                    del self._held[key]

    @property
    def in_progress(self) -> int:
        return self._all
