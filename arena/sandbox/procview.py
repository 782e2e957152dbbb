"""A container's own view of /proc: lxcfs's files, mounted over the host's.

The kernel's /proc/meminfo, stat, loadavg and uptime describe the whole host, even inside a
container: two partners' bots could signal each other through them (one allocates 256 MiB
or not, the other reads MemAvailable). lxcfs (a FUSE filesystem, Debian's ``lxcfs``; ``./run``
starts it as ``lxcfs -l /var/lib/lxcfs``) serves the same files computed from the reading
process's own cgroup: its memory limit and use, its CPU time, its own load and uptime.

Other files show the host's free memory as well and lxcfs has no view of them: they are
masked (``MASKED_PATHS``, given to the engine with its own defaults, which it would
otherwise replace), as are the host's counters of files, inodes, pressure, locks and I/O.
Still host-wide under runc: the counters in /proc/stat past its cpu lines (forks, context
switches, interrupts, running processes) and ``sysinfo(2)`` (docs/operating.md, "Channels
between partners", lists what remains; gVisor closes them).

Where lxcfs does not serve them (not installed, not running, an engine on another host)
bots see the host's files, as without it; ``proc_view_binds`` then gives no mounts.
"""

from __future__ import annotations

import os
from pathlib import Path

LXCFS_DIR = Path("/var/lib/lxcfs")
PROC_FILES = ("meminfo", "stat", "loadavg", "uptime")
# The engine's default masked paths (moby's oci defaults), then the host's free memory by
# other names: a file masked reads as empty, a directory as an empty one.
MASKED_PATHS = (
    "/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
    "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
    "/sys/firmware", "/sys/devices/virtual/powercap",
    "/proc/vmstat", "/proc/zoneinfo", "/proc/buddyinfo", "/proc/pagetypeinfo",
    "/sys/devices/system/node",
    # Host-wide counters a bot moves in its turn and its partner reads in its own (issue 23):
    # open files and inodes (file-nr 14/16 bits, inode-nr 11/16), pressure, locks, I/O.
    "/proc/sys/fs", "/proc/pressure", "/proc/locks", "/proc/diskstats", "/proc/interrupts",
    "/proc/softirqs", "/proc/swaps", "/proc/slabinfo", "/proc/sys/kernel/random/entropy_avail",
)  # fmt: skip


def proc_view_binds(root: Path = LXCFS_DIR) -> dict[str, dict[str, str]]:
    """The docker binds that put lxcfs's files over the container's /proc ones, or none."""
    sources = [root / "proc" / name for name in PROC_FILES]
    if not all(os.access(source, os.R_OK) for source in sources):
        return {}
    return {
        str(source): {"bind": f"/proc/{name}", "mode": "ro"}
        for source, name in zip(sources, PROC_FILES, strict=True)
    }
