"""Freeze and thaw a container's processes with its cgroup's freezer, between its calls.

A bot that is not being called has nothing to do; frozen, it cannot take CPU from the bot
on turn (spinning threads, say), nor signal a partner running at the same moment. Writing
the freezer file costs microseconds, ``docker pause`` milliseconds.

The container's cgroup is found from its first process's ``/proc/PID/cgroup`` (written by
the kernel, not the bot): cgroup v1's ``freezer`` hierarchy (``freezer.state``) or the v2
unified one (``cgroup.freeze``). The path must name the container, else (a platform inside a
container of its own, with another view of the cgroups) there is no freezer and freezing
does nothing.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class Freezer:
    """One cgroup's freezer file and what to write to it to freeze and to thaw."""

    path: Path
    frozen: bytes
    thawed: bytes

    def freeze(self) -> None:
        self._write(self.frozen)

    def thaw(self) -> None:
        self._write(self.thawed)

    def _write(self, state: bytes) -> None:
        # A container that is gone has no cgroup left to write: nothing to freeze or thaw.
        with contextlib.suppress(OSError):
            fd = os.open(self.path, os.O_WRONLY)
            try:
                os.write(fd, state)
            finally:
                os.close(fd)


def container_freezer(pid: int, container_id: str, root: Path = CGROUP_ROOT) -> Freezer | None:
    """The freezer of the cgroup holding process ``pid`` of container ``container_id``, or
    None if this machine offers none that this process may write."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if container_id not in path:
            continue
        if "freezer" in controllers.split(","):  # cgroup v1
            found = Freezer(
                root / "freezer" / path.lstrip("/") / "freezer.state", b"FROZEN", b"THAWED"
            )
        elif controllers == "" and (root / "cgroup.controllers").exists():  # v2 at the root
            found = Freezer(root / path.lstrip("/") / "cgroup.freeze", b"1", b"0")
        else:
            continue
        if os.access(found.path, os.W_OK):
            return found
    return None
