"""A uid (and gid) of its own for every bot, in the docker and the process sandbox alike.

The kernel counts some quotas per uid, whatever the namespaces: POSIX message-queue bytes
(``RLIMIT_MSGQUEUE``), inotify instances and watches, pipe buffer pages, processes. Bots
sharing a uid could signal each other through how much of a quota is taken (one bit per
trick, noise-free), and any one of them could use a quota up for all the others. So no two
bots share one: a uid is drawn at random from a range of 2**24 unused on a host (above its
users, below the subordinate ranges of /etc/subuid), never one held by another bot of this
platform process; bots of other platform processes on the host (other workers) draw from the
same range, and two of eight bots collide with a probability of about 2e-6.
"""

from __future__ import annotations

import secrets
import threading

BOT_UID_BASE = 40_000_000
BOT_UID_SPAN = 1 << 24

_held: set[int] = set()
_lock = threading.Lock()


def claim_uid() -> int:
    """A uid no running bot of this process has; ``release_uid`` it when the bot is gone."""
    with _lock:
        while True:
            uid = BOT_UID_BASE + secrets.randbelow(BOT_UID_SPAN)
            if uid not in _held:
                _held.add(uid)
                return uid


def release_uid(uid: int) -> None:
    with _lock:
        _held.discard(uid)
