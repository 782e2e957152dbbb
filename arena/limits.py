"""Everything a bot is held to, in one value (like chess.engine.Limit)."""

from __future__ import annotations

from dataclasses import dataclass


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

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if value <= 0:
                raise ValueError(f"limit {name} must be > 0, got {value}")

    def cpu_seconds(self, decisions: int = 250) -> int:
        """A CPU-time ceiling for a whole game: every decision at its limit plus the bank and
        start-up, on every allowed CPU. A backstop for a process backend; the clock that
        matters is the referee's per-call deadline."""
        wall_ms = self.startup_ms + self.bank_ms + decisions * self.move_ms
        return int(wall_ms * self.cpus / 1000) + 1
