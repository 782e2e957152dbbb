"""Bots as local child processes: ``python bot.py`` serving on a Unix socket.

Two strengths (docs/operating.md compares them with docker):

* ``none``: a plain child process in its own session. No limits; for debugging a bot.
* ``process``: the same under rlimits (address space, CPU seconds, processes, file size --
  a bound on each file it writes to the disk --, open files) via ``prlimit``, and, where the
  platform can make them, in new network, PID and mount namespaces via ``unshare``: no
  network at all, a /proc showing only its own processes, and when the bot's first process
  is killed the kernel kills everything it started, setsid() or not.

Both read the bot's stdout and stderr from a pipe (``output``), and check its socket before
it is dialled (``bot_socket``).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from arena.limits import Limits

from .base import SOCKET_NAME, describe_exit
from .bot_socket import open_socket
from .errors import SandboxError
from .leftovers import Sweeper, sweep_scratch
from .output import CHUNK, OutputCapture

# Tried in order; the first that runs `true` on this machine is used. Root may make
# namespaces directly; anyone else needs a user namespace first. A mount namespace of its
# own gives the bot a /proc of its own PID namespace: no other process's environment.
_UNSHARE = ["unshare", "--net", "--pid", "--mount", "--fork", "--kill-child", "--mount-proc"]
_ISOLATIONS = ([*_UNSHARE], ["unshare", "--user", "--map-root-user", *_UNSHARE[1:]])


@functools.cache
def namespace_prefix() -> tuple[str, ...]:
    """The ``unshare`` command line that isolates a bot here, or () if none works."""
    for prefix in _ISOLATIONS:
        if shutil.which(prefix[0]) is None:
            continue
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            done = subprocess.run([*prefix, "true"], capture_output=True, timeout=10)
            if done.returncode == 0:
                return tuple(prefix)
    return ()


def rlimit_prefix(limits: Limits) -> list[str]:
    if shutil.which("prlimit") is None:
        raise SandboxError("the process sandbox needs prlimit (util-linux), which is missing")
    return [
        "prlimit",
        f"--as={limits.memory_mb << 20}",
        f"--cpu={limits.cpu_seconds()}",
        f"--nproc={limits.pids}",
        f"--fsize={limits.tmp_mb << 20}",  # its output is a pipe: this bounds its files
        f"--nofile={limits.open_files}",
        "--",
    ]


@dataclass
class BotProcess:
    """A started bot: where it listens, what it wrote, and how it ended."""

    proc: subprocess.Popen[bytes]
    socket_path: Path
    capture: OutputCapture
    started_at: float = field(default_factory=time.monotonic)

    def open_socket(self, deadline: float) -> int:
        return open_socket(self.socket_path, os.geteuid(), deadline, self.died)

    def output(self) -> bytes:
        if self.proc.poll() is not None:
            self.capture.ended(wait_s=2.0)  # what it wrote as it died is on its way
        return self.capture.captured()

    def died(self) -> str | None:
        code = self.proc.poll()
        return None if code is None else describe_exit(code)

    # No freezer here: a signal (SIGSTOP) would miss what the bot moved out of its group.
    def freeze(self) -> None:
        pass

    def thaw(self) -> None:
        pass

    def stop(self) -> None:
        """Kill the bot and everything it started; wait for it."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        # What it started is dead too (or, without a PID namespace, outlives it holding the
        # pipe: then the reader, a daemon thread, ends with the platform).
        self.capture.ended(wait_s=1.0)


@dataclass
class ProcessSandbox:
    """``confined=False`` is the ``none`` backend, ``True`` the ``process`` backend.

    Bots are started from one long-lived thread with a parent-death signal (``setpriv
    --pdeathsig``), so if the platform itself is killed its bots die with it.
    """

    confined: bool = True
    python: str | None = None  # the interpreter that runs bot.py (default: this one)
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = "process" if self.confined else "none"
        # The parent-death signal fires when the *thread* that started the child ends.
        self._spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-spawn")
        self._sweeper = Sweeper(sweep_scratch)  # what killed platform processes left here

    @property
    def isolated(self) -> bool:
        """Whether bots get their own network and PID namespaces here."""
        return self.confined and bool(namespace_prefix())

    def start(self, bot_dir: Path, workdir: Path, limits: Limits) -> BotProcess:
        workdir.mkdir(parents=True, exist_ok=True)
        socket_path = workdir / SOCKET_NAME
        command = [self.python or sys.executable, "bot.py"]
        if self.confined:
            command = [*rlimit_prefix(limits), *namespace_prefix(), *command]
        env = {
            "ARENA_SOCKET": str(socket_path),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "HOME": str(workdir),
            "TMPDIR": str(workdir),
        }
        if shutil.which("setpriv"):
            command = ["setpriv", "--pdeathsig", "KILL", "--", *command]

        def spawn() -> subprocess.Popen[bytes]:
            return subprocess.Popen(
                command,
                cwd=bot_dir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

        try:
            proc = self._spawner.submit(spawn).result()
        except OSError as e:
            raise SandboxError(f"cannot start {command[0]}: {e.strerror}") from None
        pipe = proc.stdout
        assert pipe is not None
        fd = pipe.fileno()
        capture = OutputCapture(lambda: os.read(fd, CHUNK), limits.output_bytes, workdir.name)
        return BotProcess(proc, socket_path, capture)

    def close(self) -> None:
        self._sweeper.stop()
        self._spawner.shutdown(wait=True)
