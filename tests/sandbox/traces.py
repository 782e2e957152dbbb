"""What one test's ``arena`` command left running: its bots' processes and containers, told
from those of any other test, worker or test run on the same machine (which may be playing
at that very moment), so that a "nothing left behind" check sees only its own.

* A bot process is one with ``ARENA_SOCKET`` in its environment. It is the test's when its
  environment or command line, or one of its ancestors' command lines, names the directory
  the test gave the command as its ``TMPDIR``: the game's scratch directory is made there,
  and the process sandbox's ``bwrap`` names the bot's copy of its code in it. A confined bot
  cannot leave bwrap's process tree (its pid namespace: an orphan's new parent is bwrap's
  init), and an unconfined one's socket is in the scratch directory.
* A bot container is labelled with the host and pid of the platform process that started it
  (``arena.sandbox.owner``): the test's are those of the command it ran.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:  # gone meanwhile, or not ours to read
        return None


def _parent(pid: str) -> str | None:
    stat = _read(Path("/proc", pid, "stat"))
    if stat is None:
        return None
    fields = stat.rpartition(b")")[2].split()  # after "PID (COMM)": state, ppid, ...
    return fields[1].decode() if len(fields) > 1 else None


def _lineage(pid: str) -> Iterator[bytes]:
    """The command lines of ``pid`` and its ancestors (pid 1's last)."""
    for _ in range(64):  # deeper than any process tree here
        cmdline = _read(Path("/proc", pid, "cmdline"))
        if cmdline is not None:
            yield cmdline
        parent = _parent(pid)
        if parent is None or parent in ("0", pid):
            return
        pid = parent


def bot_processes(tmpdir: Path) -> list[str]:
    """Command lines of the bot processes of the commands whose ``TMPDIR`` was ``tmpdir``."""
    mark = f"{tmpdir}/".encode()  # what is in it: not tmpdir2's
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        environ, cmdline = _read(proc / "environ"), _read(proc / "cmdline")
        if environ is None or cmdline is None or b"ARENA_SOCKET=" not in environ:
            continue
        if mark in environ or any(mark in line for line in _lineage(proc.name)):
            found.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
    return found


def bot_containers(pid: int) -> list[str]:
    """Names of the bot containers (running or not) that the platform process ``pid`` of this
    host started."""
    from arena.sandbox.docker import OWNER_LABEL
    from arena.sandbox.docker_engine import docker_client

    client = docker_client()
    try:
        owner = f"{OWNER_LABEL}={socket.gethostname()}:{pid}"
        listed = client.containers.list(all=True, filters={"label": owner}, ignore_removed=True)
        return [c.name or "" for c in listed]
    finally:
        client.close()
