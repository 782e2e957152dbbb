"""What a killed platform process leaves on its host, and the sweep that removes it.

A game's scratch directory (its bots' files) holds a note of the host and the process that
made it; every live sandbox backend looks, now and every ``SWEEP_S`` seconds, for scratch
directories whose process on this host is gone (killed, say), and removes them, as the
docker backend does with such processes' containers. A process that runs on is never
touched: a directory whose owner cannot be told is left alone.

A platform process in a container of the engine it starts bots in (a worker of compose.yaml)
is a host of its own (its hostname, its pids), which no other worker can look into. So it
also names its container and that container's start (``ID STARTED_AT``), which any process
that drives the same engine can check: once that container is stopped, removed, or started
again, whatever it left is an orphan, whoever finds it.
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
from dataclasses import dataclass
from pathlib import Path

SWEEP_S = 30.0  # a killed worker's leftovers are gone within a minute
OWNER_FILE = ".arena-owner"  # "HOST PID": who made the directory it is in
log = logging.getLogger("arena.sandbox")


def scratch_dir() -> tempfile.TemporaryDirectory[str]:
    """A fresh scratch directory of this process (in the system's temporary directory).

    Its name stays short (``arena-XXXXXXXX``): a process bot's socket path is in it, and a
    socket path has at most 107 bytes; its owner is written inside."""
    made = tempfile.TemporaryDirectory(prefix="arena-")
    mark_owner(Path(made.name))
    return made


@dataclass(frozen=True)
class Containers:
    """The engine's view of platform processes in its containers, for the sweep."""

    here: str | None  # ``ID STARTED_AT`` of this process's container, if it runs in one
    gone: Callable[[str], bool]  # whether the container run ``ID STARTED_AT`` has ended


def mark_owner(directory: Path, container: str | None = None) -> None:
    """Say in ``directory`` that this process of this host (in ``container``: ``ID
    STARTED_AT``, if it runs in one of the engine's) made it: swept once it is gone."""
    owner = f"{socket.gethostname()} {os.getpid()}"
    (directory / OWNER_FILE).write_text(f"{owner} {container}\n" if container else f"{owner}\n")


def owner_gone(host: str, pid: str, container: str | None, engine: Containers | None) -> bool:
    """Whether the platform process that left something has ended: its container's run
    (``ID STARTED_AT``, when it ran in one of the engine's, not this one) is over; else, if
    it ran on this host, its pid is gone. Unknown owners are alive."""
    if container and engine is not None and container != engine.here:
        return engine.gone(container)
    return host == socket.gethostname() and pid.isdigit() and not alive(int(pid))


def sweep_scratch(parent: Path | None = None, engine: Containers | None = None) -> None:
    """Remove the directories under ``parent`` (default: the temporary directory) marked by
    a platform process that has ended."""
    top = parent or Path(tempfile.gettempdir())
    with contextlib.suppress(OSError):
        for path in top.glob(f"arena-*/{OWNER_FILE}"):
            if _marked_gone(path, engine):
                shutil.rmtree(path.parent, ignore_errors=True)


def _marked_gone(marker: Path, engine: Containers | None) -> bool:
    try:  # not followed, and read with a bound: a process bot may have been at it
        fd = os.open(marker, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        try:
            text = os.read(fd, 300).decode(errors="replace")
        finally:
            os.close(fd)
    except OSError:
        return False
    fields = text.split()  # "HOST PID" or "HOST PID ID STARTED_AT"
    if len(fields) not in (2, 4):
        return False
    return owner_gone(fields[0], fields[1], " ".join(fields[2:]) or None, engine)


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


__all__ = [
    "OWNER_FILE",
    "SWEEP_S",
    "Containers",
    "Sweeper",
    "alive",
    "mark_owner",
    "owner_gone",
    "scratch_dir",
    "sweep_scratch",
]
