"""Everything a bot is held to, in one value (like chess.engine.Limit)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# The pace of the ladder's and every stored tournament's tables whose stored limits give
# none, unless $ARENA_LADDER_PACE_MS says otherwise (bench/think_channel.py, operating.md).
LADDER_PACE_MS = 50


@dataclass(frozen=True)
class Limits:
    move_ms: int = 1000  # per decision before the bank is drawn on
    bank_ms: int = 10_000  # for the whole game, spent only beyond move_ms (and notify_ms)
    notify_ms: int = 5  # per notification before the bank is drawn on: a round trip, no more
    startup_ms: int = 10_000  # to start and answer Hello (its clock stops while it waits frozen)
    # CPU a bot may spend starting while its table starts (and, started ahead, while the game
    # before is played); beyond it, frozen until its Hello, it goes on starting alone.
    startup_cpu_ms: int = 500
    memory_mb: int = 512
    cpus: float = 1.0
    pids: int = 64  # processes and threads
    open_files: int = 256
    output_bytes: int = 1 << 20  # captured stdout + stderr per bot per game
    tmp_mb: int = 16  # the writable /tmp (docker: a tmpfs; it counts against memory_mb)
    # The table's pace (0: none). With one, every call's result reaches the other seats only
    # at a whole number of paces past its free time (a decision's free time is then the pace,
    # not move_ms), the paces beyond it taken from the bank: how long a bot thinks is no
    # signal to its partner unless it pays for it ("Channels between partners", operating.md).
    pace_ms: int = 0

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if value <= 0 and not (name == "pace_ms" and value == 0):
                raise ValueError(f"limit {name} must be > 0, got {value}")
        if self.pace_ms > self.move_ms:
            raise ValueError(f"pace_ms ({self.pace_ms}) must be <= move_ms ({self.move_ms})")

    @property
    def decision_ms(self) -> int:
        """A decision's free time, before the bank is drawn on: the pace if there is one."""
        return self.pace_ms or self.move_ms

    def cpu_seconds(self, decisions: int = 250) -> int:
        """A CPU-time ceiling for a whole game: every decision at its limit plus the bank and
        start-up, on every allowed CPU. A backstop for a process backend; the clock that
        matters is the referee's per-call deadline."""
        wall_ms = self.startup_ms + self.bank_ms + decisions * self.move_ms
        return int(wall_ms * self.cpus / 1000) + 1


def ladder_pace_ms() -> int:
    """The deployment's pace for stored tournaments: $ARENA_LADDER_PACE_MS, else the default."""
    return int(os.environ.get("ARENA_LADDER_PACE_MS") or LADDER_PACE_MS)


def stored_limits(stored: Mapping[str, Any]) -> Limits:
    """A stored tournament's limits: the defaults at the ladder's pace, for what is not given."""
    return Limits(**{"pace_ms": ladder_pace_ms(), **stored})
