"""Freeze and thaw a container's processes with its cgroup's freezer, between its calls.

A bot that is not being called has nothing to do; frozen, it cannot take CPU from the bot
on turn (spinning threads, say), nor signal a partner running at the same moment. Writing
the freezer file costs microseconds, ``docker pause`` milliseconds.

The container's cgroup is found from its first process's ``/proc/PID/cgroup`` (written by
the kernel, not the bot): cgroup v1's ``freezer`` hierarchy (``freezer.state``) or the v2
unified one (``cgroup.freeze``). The path must name the container.

A platform in a container of its own (compose.yaml's worker, driving its host's engine)
sees neither the host's pids nor its cgroup tree there. compose.yaml binds the host's
``/sys/fs/cgroup`` at ``HOST_CGROUP_ROOT``, where the bot's cgroup is found by its container
id, at the engine's default place for it: ``docker/ID`` (the cgroupfs driver) or
``system.slice/docker-ID.scope`` (systemd's). Neither found, there is no freezer and freezing
does nothing.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
HOST_CGROUP_ROOT = Path("/host/sys/fs/cgroup")  # the host's, in compose.yaml's worker


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


def container_freezer(
    pid: int,
    container_id: str,
    root: Path = CGROUP_ROOT,
    host_root: Path = HOST_CGROUP_ROOT,
) -> Freezer | None:
    """The freezer of container ``container_id`` (``pid``: its first process, as the engine
    numbers it), or None if this machine offers none that this process may write."""
    return _by_pid(pid, container_id, root) or _by_id(container_id, host_root)


def _by_pid(pid: int, container_id: str, root: Path) -> Freezer | None:
    """Found from ``/proc/PID/cgroup``: where this process sees the engine's pids."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if container_id not in path:  # not it (another pid namespace's process of that pid)
            continue
        if "freezer" in controllers.split(","):  # cgroup v1
            found = _v1(root / "freezer" / path.lstrip("/"))
        elif controllers == "" and _is_v2(root):  # v2 at the root
            found = _v2(root / path.lstrip("/"))
        else:
            continue
        if os.access(found.path, os.W_OK):
            return found
    return None


def _by_id(container_id: str, root: Path) -> Freezer | None:
    """Found by the container's id in a cgroup tree mounted at ``root``."""
    if len(container_id) != 64 or not all(c in "0123456789abcdef" for c in container_id):
        return None  # only an engine's full id names a directory
    places = (f"docker/{container_id}", f"system.slice/docker-{container_id}.scope")
    if _is_v2(root):
        candidates = [_v2(root / place) for place in places]
    else:
        candidates = [_v1(root / "freezer" / place) for place in places]
    return next((found for found in candidates if os.access(found.path, os.W_OK)), None)


def _is_v2(root: Path) -> bool:
    return (root / "cgroup.controllers").exists()


def _v1(cgroup: Path) -> Freezer:
    return Freezer(cgroup / "freezer.state", b"FROZEN", b"THAWED")


def _v2(cgroup: Path) -> Freezer:
    return Freezer(cgroup / "cgroup.freeze", b"1", b"0")
