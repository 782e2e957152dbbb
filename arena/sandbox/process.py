"""A bot as a local child process: ``python bot.py`` serving on a Unix socket.

The process gets its own session (so the whole group can be killed) and a minimal
environment; stdout and stderr go to one log file beside its socket.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass
class BotProcess:
    """A started bot: where it listens, where it logs, and how it ended."""

    proc: subprocess.Popen[bytes]
    socket_path: Path
    log_path: Path

    def exited(self) -> bool:
        return self.proc.poll() is not None

    def exit_description(self) -> str:
        """``exit status 1`` / ``killed by signal 9 (SIGKILL)`` / ``running``."""
        code = self.proc.poll()
        if code is None:
            return "running"
        if code < 0:
            return f"killed by signal {-code} ({signal.Signals(-code).name})"
        return f"exit status {code}"

    def stop(self) -> None:
        """Kill the bot and everything it started; wait for it."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


def start_process(bot_dir: Path, workdir: Path, python: str | None = None) -> BotProcess:
    """Start ``python bot.py`` in ``bot_dir``, serving on ``workdir/bot.sock``."""
    workdir.mkdir(parents=True, exist_ok=True)
    socket_path = workdir / "bot.sock"
    log_path = workdir / "bot.log"
    env = {
        "ARENA_SOCKET": str(socket_path),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "HOME": str(workdir),
    }
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [python or sys.executable, "bot.py"],
            cwd=bot_dir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return BotProcess(proc, socket_path, log_path)
