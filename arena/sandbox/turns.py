"""When a started bot may run: its start-up allowance, then only its own calls.

From its start a bot runs while its table starts (and, started ahead, while the game before
is played) until it is up (its socket made) or has spent ``Limits.startup_cpu_ms`` of CPU,
whichever comes first; then it waits frozen until the referee's first call (Hello), which
thaws it: a bot still starting goes on alone, in its turn. Its start-up clock
(``started_at``) does not run while it waits frozen. From its Hello on it is frozen between
the referee's calls, and ``wait_frozen`` tells the referee when a freeze has taken hold.

Where there is no freezer (``Freezer`` None), nothing is frozen and nothing waits.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from .freezer import Freezer

UP_POLL_S = 0.01  # how often a starting bot's socket and CPU time are looked at
# The longest the referee waits for a freeze to take hold before it asks the next bot: a
# thread in the kernel (or one throttled by its CPU quota) stops only when it next runs.
FREEZE_WAIT_S = 0.1


class Turns:
    """One bot's freezer, driven by its sandbox's watch (``hold``) and the referee."""

    def __init__(self, freezer: Freezer | None, started_at: float) -> None:
        self.freezer = freezer
        self._start = started_at
        self._lock = threading.Lock()
        self._called = False  # the referee's first call (Hello's thaw) has come
        self._stopped = False
        self._held_at: float | None = None  # frozen before its first call, since then
        self._held_s = 0.0  # how long it waited frozen before its first call
        self._asked = False  # a freeze asked for, not yet seen to have taken hold

    @property
    def started_at(self) -> float:
        """Its start, moved on by the time it waited frozen before its first call."""
        held = self._held_s
        if self._held_at is not None:
            held += time.monotonic() - self._held_at
        return self._start + held

    def hold(self, up: Callable[[], bool], allowance_ms: int) -> None:
        """Freeze the bot once it is ``up`` or its CPU time reaches ``allowance_ms``, unless
        the referee has called it first (run in a thread of its own). It watches until then,
        however long: a bot that sleeps past its start-up time, then spins while the game
        before its own is played, is frozen as well."""
        freezer = self.freezer
        if freezer is None:
            return
        while not self._called and not self._stopped:
            spent = freezer.cpu_ms()
            if up() or (spent is not None and spent >= allowance_ms):
                with self._lock:
                    if not self._called and not self._stopped:
                        self._freeze()
                        self._held_at = time.monotonic()
                return
            time.sleep(UP_POLL_S)

    def freeze(self) -> None:
        with self._lock:
            self._first_call()
            if not self._stopped:
                self._freeze()

    def thaw(self) -> None:
        with self._lock:
            self._first_call()
            if self.freezer is not None:
                self.freezer.thaw()
                self._asked = False

    def wait_frozen(self) -> None:
        """Return once the last freeze asked for has taken hold (at most ``FREEZE_WAIT_S``)."""
        if self._asked and self.freezer is not None:
            self.freezer.wait_frozen(FREEZE_WAIT_S)
            self._asked = False

    def stop(self) -> None:
        """No more freezing: thawed, so that its processes can die of a kill."""
        with self._lock:
            self._stopped = True
            if self.freezer is not None:
                self.freezer.thaw()
                self.freezer.close()

    def _first_call(self) -> None:
        if not self._called:
            self._called = True
            if self._held_at is not None:
                self._held_s += time.monotonic() - self._held_at
                self._held_at = None

    def _freeze(self) -> None:
        if self.freezer is not None:
            self.freezer.freeze()
            self._asked = True
