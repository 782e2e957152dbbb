"""The bot's socket, checked before anyone dials it.

The bot makes its socket in a directory it can write, so what is there is the bot's doing:
a symbolic link (to a host socket, say), a directory, a fifo, a file of another owner. The
platform opens the name without following it (``O_PATH | O_NOFOLLOW``), checks what it got
(a socket, owned by the bot's uid), and dials that very inode through ``/proc/self/fd/N``,
so nothing the bot controls is resolved again afterwards.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

POLL_S = 0.02  # how often to look for a socket still to be made: a local lstat is cheap


class SocketFault(Exception):
    """What the bot left in place of its socket, or that it made none in time: its fault."""

    def __init__(self, detail: str, *, missing: bool = False) -> None:
        super().__init__(detail)
        self.missing = missing  # none made by the deadline: the caller says how long it had


def open_socket(path: Path, uid: int, deadline: float, died: Callable[[], str | None]) -> int:
    """An ``O_PATH`` descriptor of the socket at ``path`` once it is there (the caller closes
    it), or ``SocketFault`` if it is not a socket owned by ``uid``, or is not there by
    ``deadline`` (a ``time.monotonic()`` value), or the bot ``died`` first."""
    while True:
        try:
            fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            how = died()
            if how is not None:
                raise SocketFault(f"{how} before making its socket") from None
            if time.monotonic() >= deadline:
                raise SocketFault("made no socket", missing=True) from None
            time.sleep(POLL_S)
            continue
        except OSError as e:
            raise SocketFault(f"its socket {path.name} cannot be opened: {e.strerror}") from None
        try:
            _check(os.fstat(fd), path.name, uid)
        except BaseException:
            os.close(fd)
            raise
        return fd


def _check(found: os.stat_result, name: str, uid: int) -> None:
    if not stat.S_ISSOCK(found.st_mode):
        raise SocketFault(f"left a {_kind(found.st_mode)} as {name}, not a socket")
    if found.st_uid != uid:
        raise SocketFault(f"its {name} is owned by uid {found.st_uid}, not the bot's {uid}")


def _kind(mode: int) -> str:
    kinds = {
        stat.S_IFLNK: "symbolic link",
        stat.S_IFDIR: "directory",
        stat.S_IFIFO: "fifo",
        stat.S_IFREG: "regular file",
        stat.S_IFCHR: "character device",
        stat.S_IFBLK: "block device",
    }
    return kinds.get(stat.S_IFMT(mode), "file of an unknown type")


def dial_path(fd: int) -> str:
    """The path to dial a socket held by ``fd``: resolved by the kernel to that inode only."""
    return f"/proc/self/fd/{fd}"


__all__ = ["SocketFault", "dial_path", "open_socket"]
