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

A freeze takes hold asynchronously: each of the cgroup's threads stops on its own way back
to user space, so a thread waiting for a CPU stops only once it gets one. ``wait_frozen``
waits until every one has (cgroup v2's ``cgroup.events`` says ``frozen 1``, and wakes a
``poll`` when it changes; v1's ``freezer.state`` reads ``FROZEN``, looked at again and
again), so that the referee asks the next bot only once the last one is still.

The same cgroup counts the CPU time of its processes (``cpu_ms``: v1's ``cpuacct.usage``,
v2's ``cpu.stat``), what a bot's start-up allowance is measured with.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .leftovers import alive

CGROUP_ROOT = Path("/sys/fs/cgroup")
HOST_CGROUP_ROOT = Path("/host/sys/fs/cgroup")  # the host's, in compose.yaml's worker


@dataclass(frozen=True)
class Freezer:
    """One cgroup's freezer file, what to write to it to freeze and to thaw, where to read
    whether a freeze has taken hold, and the file that counts its CPU time."""

    path: Path
    frozen: bytes
    thawed: bytes
    state: Path  # v1: freezer.state; v2: cgroup.events
    cpu: Path | None = None  # v1: cpuacct.usage (ns); v2: cpu.stat (usage_usec)
    # The freezer, state and CPU files, each opened once until ``close``: the referee
    # freezes, thaws and looks at the state around every decision, a starting bot's watch
    # reads its CPU time a hundred times a second, and an open and a close each time cost
    # the platform more CPU than the reads and writes. Used under the lock, so that a ``close``
    # never lets a write reach a descriptor number another file has since been given.
    _fds: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)
    _lock: threading.Lock = field(
        default_factory=threading.Lock, init=False, repr=False, compare=False
    )

    def freeze(self) -> None:
        self._write(self.frozen)

    def thaw(self) -> None:
        self._write(self.thawed)

    def close(self) -> None:
        """Close its files; from then on writes do nothing and it reads as frozen."""
        with self._lock:
            for fd in self._fds.values():
                if fd >= 0:
                    os.close(fd)
            self._fds.update(write=-1, read=-1, cpu=-1)

    def __del__(self) -> None:  # one never closed (its bot never stopped) leaks nothing
        self.close()

    def _fd(self, use: str) -> int:
        """The descriptor for ``use`` (``write``: the freezer file, ``read``: the state,
        ``cpu``: the CPU time), opened the first time; under the lock. ``OSError`` once
        closed."""
        fd = self._fds.get(use)
        if fd is None:
            path = {"write": self.path, "read": self.state, "cpu": self.cpu}[use]
            if path is None:
                raise OSError(f"no {use} file")
            flags = os.O_WRONLY if use == "write" else os.O_RDONLY
            fd = self._fds[use] = os.open(path, flags | os.O_CLOEXEC)
        if fd < 0:
            raise OSError("the freezer was closed")
        return fd

    def _write(self, state: bytes) -> None:
        # A container that is gone has no cgroup left to write: nothing to freeze or thaw.
        with self._lock, contextlib.suppress(OSError):
            os.write(self._fd("write"), state)

    def is_frozen(self) -> bool:
        """Whether every thread of the cgroup is stopped (a cgroup that is gone: yes)."""
        with self._lock:
            try:
                return _frozen_in(os.pread(self._fd("read"), 4096, 0))
            except OSError:
                return True

    def wait_frozen(self, timeout_s: float) -> bool:
        """Wait until a freeze asked for has taken hold; False if it has not within
        ``timeout_s`` (a thread stuck in the kernel, say)."""
        deadline = time.monotonic() + timeout_s
        if self.state.name == "cgroup.events":
            return self._poll_events(deadline)
        pause = 50e-6  # v1 tells no one: look again, less and less often
        while not self.is_frozen():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(pause, left))
            pause = min(pause * 2, 1e-3)
        return True

    def _poll_events(self, deadline: float) -> bool:
        try:
            fd = os.open(self.state, os.O_RDONLY)
        except OSError:
            return True  # gone
        try:
            poller = select.poll()
            poller.register(fd, select.POLLPRI | select.POLLERR)
            while True:
                # Reading arms the notification: a change after it wakes the poll.
                if _frozen_in(os.pread(fd, 4096, 0)):
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                poller.poll(max(1, int(left * 1000)))
        except OSError:
            return True
        finally:
            os.close(fd)

    def cpu_ms(self) -> float | None:
        """The CPU time its processes have used, in ms; None if it cannot be read (or the
        freezer was closed)."""
        if self.cpu is None:
            return None
        with self._lock:
            try:
                text = os.pread(self._fd("cpu"), 4096, 0).decode()
            except (OSError, UnicodeDecodeError):
                return None
        if self.cpu.name == "cpuacct.usage":
            return int(text) / 1e6
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) / 1e3
        return None


def _frozen_in(text: bytes) -> bool:
    if text.startswith((b"FROZEN", b"FREEZING", b"THAWED")):  # v1's freezer.state
        return text.startswith(b"FROZEN")
    return b"frozen 1" in text  # v2's cgroup.events


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
    return cgroup_freezer(lines, root, lambda path: container_id in path)


def cgroup_freezer(
    lines: list[str], root: Path = CGROUP_ROOT, mine: Callable[[str], bool] = lambda _: True
) -> Freezer | None:
    """The freezer of the cgroup that the lines of a ``/proc/PID/cgroup`` name (those whose
    path is ``mine``), with its CPU time's file, or None if this process may not write it."""
    dirs: dict[str, Path] = {}
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if not mine(path):  # not it (another pid namespace's process of that pid)
            continue
        for controller in controllers.split(","):  # "" for v2's line
            dirs[controller] = root / controllers / path.lstrip("/")
    found = None
    if "freezer" in dirs:  # cgroup v1
        cpu = dirs.get("cpuacct")
        found = v1_freezer(dirs["freezer"], cpu / "cpuacct.usage" if cpu else None)
    elif "" in dirs and _is_v2(root):  # v2 at the root
        found = v2_freezer(dirs[""])
    return found if found is not None and os.access(found.path, os.W_OK) else None


def _by_id(container_id: str, root: Path) -> Freezer | None:
    """Found by the container's id in a cgroup tree mounted at ``root``."""
    if len(container_id) != 64 or not all(c in "0123456789abcdef" for c in container_id):
        return None  # only an engine's full id names a directory
    places = (f"docker/{container_id}", f"system.slice/docker-{container_id}.scope")
    if _is_v2(root):
        candidates = [v2_freezer(root / place) for place in places]
    else:
        candidates = [
            v1_freezer(root / "freezer" / place, root / "cpuacct" / place / "cpuacct.usage")
            for place in places
        ]
    return next((found for found in candidates if os.access(found.path, os.W_OK)), None)


def _is_v2(root: Path) -> bool:
    return (root / "cgroup.controllers").exists()


def v1_freezer(cgroup: Path, cpu: Path | None) -> Freezer:
    """A cgroup v1 freezer directory's freezer, with ``cpuacct.usage`` at ``cpu``."""
    return Freezer(cgroup / "freezer.state", b"FROZEN", b"THAWED", cgroup / "freezer.state", cpu)


def v2_freezer(cgroup: Path) -> Freezer:
    """A cgroup v2 directory's freezer (``cgroup.freeze``, ``cgroup.events``, ``cpu.stat``)."""
    events, cpu = cgroup / "cgroup.events", cgroup / "cpu.stat"
    return Freezer(cgroup / "cgroup.freeze", b"1", b"0", events, cpu)


# The process sandbox's bots' cgroups, one per bot (``HOST-PID-N``: the platform process
# that made it), in this group at the top of each hierarchy used.
BOTS_GROUP = "arena-bots"


@dataclass(frozen=True)
class BotCgroup:
    """A cgroup made for one bot of the process sandbox: its freezer and where to join it
    (one directory under cgroup v2, the freezer's and cpuacct's under v1)."""

    freezer: Freezer
    dirs: tuple[Path, ...]
    # Whether the cgroup's memory controller holds its processes to the bot's memory (the
    # kernel's OOM killer ends it beyond): then the address-space rlimit need not.
    memory_bounded: bool = False

    def joined(self, command: list[str]) -> list[str]:
        """``command``, run by a shell that first moves itself into the cgroup: everything
        the bot ever runs is in it from its start."""
        joins = "".join(f'echo $$ >"${i}" && ' for i in range(1, len(self.dirs) + 1))
        script = f'{joins}shift {len(self.dirs)} && exec "$@"'
        return ["sh", "-c", script, "sh", *(str(d / "cgroup.procs") for d in self.dirs), *command]

    def oom_killed(self) -> bool:
        """Whether the kernel killed one of its processes for passing its memory bound
        (v1's ``memory.oom_control``, v2's ``memory.events``: ``oom_kill N``)."""
        if not self.memory_bounded:
            return False
        for cgroup in self.dirs:
            for name in ("memory.oom_control", "memory.events"):
                with contextlib.suppress(OSError, ValueError):
                    for line in (cgroup / name).read_text().splitlines():
                        key, _, value = line.partition(" ")
                        if key == "oom_kill" and int(value) > 0:
                            return True
        return False

    def remove(self, wait_s: float = 1.0) -> None:
        """Remove it once its processes are gone (a killed process leaves it a moment later)."""
        deadline = time.monotonic() + wait_s
        for cgroup in self.dirs:
            while True:
                try:
                    cgroup.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() >= deadline:
                        break  # left to the next sweep, once this process is gone
                    time.sleep(0.02)


def make_bot_cgroup(
    name: str, root: Path = CGROUP_ROOT, memory_bytes: int | None = None
) -> BotCgroup | None:
    """A new cgroup for a bot, or None where this process cannot make one (not root, no
    freezer). With ``memory_bytes``, its memory controller (where this machine has one this
    process may use) bounds its resident memory and swap to that."""
    if os.geteuid() != 0:
        return None
    memory: Path | None = None
    if _is_v2(root):
        dirs: tuple[Path, ...] = (root / BOTS_GROUP / name,)
        freezer = v2_freezer(dirs[0])
        memory = dirs[0]
    elif (root / "freezer").is_dir():
        cpu = root / "cpuacct" / BOTS_GROUP / name
        has_cpu = (root / "cpuacct").is_dir()
        dirs = (root / "freezer" / BOTS_GROUP / name, *((cpu,) if has_cpu else ()))
        freezer = v1_freezer(dirs[0], cpu / "cpuacct.usage" if has_cpu else None)
        if memory_bytes is not None and (root / "memory").is_dir():
            memory = root / "memory" / BOTS_GROUP / name
            dirs = (*dirs, memory)
    else:
        return None
    made = BotCgroup(freezer, dirs)
    try:
        for cgroup in dirs:
            cgroup.mkdir(parents=True)
    except OSError:
        made.remove(wait_s=0)
        return None
    if memory_bytes is None or memory is None:
        return made
    return BotCgroup(freezer, dirs, _bound_memory(memory, memory_bytes, v2=_is_v2(root)))


def _bound_memory(cgroup: Path, limit: int, *, v2: bool) -> bool:
    """Hold ``cgroup`` to ``limit`` bytes of memory, and as much swap (none beyond it):
    whether it took (a v2 parent may not delegate its memory controller)."""
    files = (("memory.max", "memory.swap.max"), ("memory.limit_in_bytes",
             "memory.memsw.limit_in_bytes"))[not v2]  # fmt: skip
    try:
        (cgroup / files[0]).write_text(str(limit))
    except OSError:
        return False
    with contextlib.suppress(OSError):  # absent without swap accounting
        (cgroup / files[1]).write_text("0" if v2 else str(limit))
    return True


def sweep_bot_cgroups(host: str, root: Path = CGROUP_ROOT) -> None:
    """Remove the bot cgroups left by platform processes of ``host`` that are gone. Their
    bots are killed first: a platform killed while a bot was frozen leaves it frozen, its
    parent-death signal pending until it is thawed (cgroup v1), so it is thawed to die."""
    tops = [root / BOTS_GROUP, *(root / c / BOTS_GROUP for c in ("freezer", "cpuacct", "memory"))]
    for top in tops:
        with contextlib.suppress(OSError):
            for cgroup in top.iterdir():
                owner, _, pid = cgroup.name.rpartition("-")[0].rpartition("-")
                if owner == host and pid.isdigit() and not alive(int(pid)):
                    _kill_and_thaw(cgroup)
                    with contextlib.suppress(OSError):
                        cgroup.rmdir()  # fails while its processes are still going: next time


def _kill_and_thaw(cgroup: Path) -> None:
    with contextlib.suppress(OSError, ValueError):
        for pid in (cgroup / "cgroup.procs").read_text().split():
            with contextlib.suppress(OSError):
                os.kill(int(pid), signal.SIGKILL)
    for name, thawed in (("freezer.state", "THAWED"), ("cgroup.freeze", "0")):
        with contextlib.suppress(OSError):
            (cgroup / name).write_text(thawed)
