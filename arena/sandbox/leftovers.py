"""What a killed platform process leaves on its host, and the sweep that removes it.

A game's scratch directory (its bots' files) is named after the host and the process that
made it; every live sandbox backend looks, now and every ``SWEEP_S`` seconds, for scratch
directories whose process on this host is gone (killed, say), and removes them, as the
docker backend does with such processes' containers. A process that runs on is never
touched: a directory whose owner cannot be told is left alone.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

SWEEP_S = 30.0  # a killed worker's leftovers are gone within a minute
_PREFIX = "arena-game"
_SEPARATOR = "+"  # never in a host name
log = logging.getLogger("arena.sandbox")


def scratch_dir() -> tempfile.TemporaryDirectory[str]:
    """A fresh scratch directory of this process (in the system's temporary directory)."""
    return tempfile.TemporaryDirectory(prefix=scratch_prefix())


def scratch_prefix() -> str:
    """How this process's scratch directories are named (a glob's start)."""
    return _SEPARATOR.join((_PREFIX, socket.gethostname(), str(os.getpid()), ""))


def sweep_scratch(parent: Path | None = None) -> None:
    """Remove the scratch directories under ``parent`` (default: the temporary directory)
    whose process on this host has ended."""
    top = parent or Path(tempfile.gettempdir())
    host = socket.gethostname()
    with contextlib.suppress(OSError):
        for path in top.glob(f"{_PREFIX}{_SEPARATOR}*"):
            parts = path.name.split(_SEPARATOR)
            ours = len(parts) == 4 and parts[1] == host and parts[2].isdigit()
            if ours and not alive(int(parts[2])):
                shutil.rmtree(path, ignore_errors=True)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Sweeper:
    """Calls ``sweep`` at once, then every ``period_s``, in a daemon thread until ``stop``."""

    def __init__(self, sweep: Callable[[], None], period_s: float = SWEEP_S) -> None:
        self._sweep = sweep
        self._period_s = period_s
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="arena-sweep", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                self._sweep()
            except Exception as e:  # the next sweep may do better; the games go on
                log.warning("a sweep for leftovers failed: %s: %s", type(e).__name__, e)
            if self._stopped.wait(self._period_s):
                return

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join()


__all__ = ["SWEEP_S", "Sweeper", "alive", "scratch_dir", "scratch_prefix", "sweep_scratch"]
