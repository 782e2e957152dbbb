"""Run the real ``arena`` console script as a subprocess, the way a user does."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


def arena_executable() -> Path:
    """The ``arena`` script installed next to this Python, else the one on ``PATH``."""
    beside = Path(sys.executable).parent / "arena"
    if beside.is_file():
        return beside
    found = shutil.which("arena")
    if found is None:
        raise RuntimeError("the arena console script is not installed (pip install -e .)")
    return Path(found)


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "COLUMNS")}
    env["NO_COLOR"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"  # the output has '·' and suit symbols
    # Tests of the game and its output use the quick process sandbox; tests/sandbox runs
    # the same commands in containers, and tests the default choice itself.
    env.setdefault("ARENA_SANDBOX", "process")
    return env


def run_arena(
    *args: object,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
    pids: list[int] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``arena ARGS...``, with ``env``'s variables added to the environment; never raises on
    a non-zero exit status (the tests check it). ``timeout``: raises ``TimeoutExpired`` (the
    test fails) if the command runs longer, for a test of what must not wait. ``pids``: the
    command's pid is added to it, as it starts (the bot containers it starts are labelled
    with it: tests/sandbox/traces.py)."""
    command = [str(arena_executable()), *(str(a) for a in args)]
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",
        env=_environment() | (env or {}),
        cwd=cwd,
    ) as proc:
        if pids is not None:
            pids.append(proc.pid)
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:  # as subprocess.run does: killed, then raised
            proc.kill()
            proc.communicate()
            raise
        except BaseException:  # interrupted, say: not waited for
            proc.kill()
            raise
    return subprocess.CompletedProcess(command, proc.returncode, stdout, stderr)


def error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The one line a failed command writes to stderr (asserting that it is one line)."""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{result.stderr}"
    assert result.stderr.endswith("\n")
    assert lines[0].startswith("error: "), lines[0]
    return lines[0]
