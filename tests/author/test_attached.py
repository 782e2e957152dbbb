"""``arena play tcp://127.0.0.1:PORT``: a bot the author started with ``python bot.py --port
PORT`` (as under a debugger) plays a seat with its time limits relaxed, a warning said once;
the platform leaves its process running; only ``arena play`` takes one."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.author.bots import write_bot
from tests.cli.runner import error_line, run_arena
from tests.sdk.botproc import free_port

# Slower than the limits given below on its first bid, as a bot stopped at a breakpoint is.
SLOW_FIRST_BID = """
import time

from arena_sdk import Bot, run


class Paused(Bot):
    name = "paused"
    paused = False

    def bid(self, obs):
        if not self.paused:
            self.paused = True
            time.sleep(PAUSE_S)
        return obs.legal_bids[0]

    def play(self, obs):
        return obs.legal_plays[0]


if __name__ == "__main__":
    run(Paused())
"""
PAUSE_S = 2.0
SERVING = re.compile(r"serving on 127\.0\.0\.1:(\d+)")


def start_bot(bot_dir: Path) -> tuple[subprocess.Popen[str], str]:
    """``python bot.py --port 0`` started as an author would; the address it says it took."""
    process = subprocess.Popen(
        [sys.executable, "-u", str(bot_dir / "bot.py"), "--port", "0"],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    line = process.stderr.readline()
    served = SERVING.search(line)
    assert served is not None, line
    return process, f"tcp://127.0.0.1:{served[1]}"


@pytest.fixture
def paused_bot(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    source = SLOW_FIRST_BID.replace("PAUSE_S", str(PAUSE_S))
    process, address = start_bot(write_bot(tmp_path / "paused", source))
    yield process, address
    process.terminate()
    process.wait()


TIGHT = ("--move-ms", 500, "--bank-ms", 1000)  # the pause is beyond these


def test_a_running_bot_plays_with_relaxed_limits(
    paused_bot: tuple[subprocess.Popen[str], str], tmp_path: Path
) -> None:
    process, address = paused_bot
    result = run_arena(
        "play", address, "random", "random", "random", "--seed", 5, "--games", 2, *TIGHT,
        "--fail-on-forfeit", 0,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert warnings == [
        f"warning: {address} is a bot already running: each of its calls may take 300 s,"
        " not the ladder's limits"
    ]
    games = [line for line in result.stdout.splitlines() if line.startswith("game seed")]
    assert len(games) == 2 and not any("forfeit by seat 0" in line for line in games), games
    # Its pause was waited for: its longest decision is the pause (2 s), not the limit.
    mine = next(line for line in result.stdout.splitlines() if line.startswith(f"  {address}:"))
    longest = re.search(r"think [0-9.]+ ms mean, ([0-9.]+) ms max", mine)
    assert longest is not None and float(longest[1]) >= PAUSE_S * 1000, mine
    assert process.poll() is None  # the author's process: the platform left it running
    # The same bot started by the platform is held to those limits, and times out.
    started = run_arena("play", tmp_path / "paused", "random", "random", "random", "--seed", 5,
                        *TIGHT)  # fmt: skip
    assert "forfeit: seat 0" in started.stdout and "timeout" in started.stdout, started.stdout


def test_the_relaxed_deadline_is_still_a_deadline(
    paused_bot: tuple[subprocess.Popen[str], str],
) -> None:
    _, address = paused_bot
    result = run_arena("play", address, "random", "random", "random", "--seed", 5,
                       "--attach-timeout", 1, "--bank-ms", 300)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert re.search(r"forfeit: seat 0 .*timeout", result.stdout), result.stdout
    assert "no answer to a bid within 1300 ms" in result.stdout, result.stdout


def test_bad_running_bots_are_refused(paused_bot: tuple[subprocess.Popen[str], str]) -> None:
    _, address = paused_bot
    cases = {
        ("play", "tcp://10.0.0.1:5000", "random", "random", "random"):
            "tcp://10.0.0.1:5000: a running bot is tcp://127.0.0.1:PORT (this host's only)",
        ("play", "tcp://127.0.0.1:x", "random", "random", "random"):
            "tcp://127.0.0.1:x: a running bot is tcp://127.0.0.1:PORT (this host's only)",
        ("play", address, address, "random", "random"):
            "a bot already running plays one seat: give each tcp:// address once",
        ("play", address, "random", "random", "random", "--games", 2, "--concurrency", 2):
            "a bot already running plays one game at a time: leave out --concurrency",
        ("play", address, "random", "random", "random", "--attach-timeout", 0):
            "--attach-timeout must be >= 1 second, got 0",
        ("compare", address, "random", "--max-pairs", 1):
            f"{address}: only arena play takes a bot that is already running",
    }  # fmt: skip
    for args, message in cases.items():
        result = run_arena(*args)
        assert result.returncode == 2 and error_line(result) == f"error: {message}", args
    free = free_port()  # nothing listens on a port just let go
    nobody = run_arena("play", f"tcp://127.0.0.1:{free}", "random", "random", "random")
    assert nobody.returncode == 2
    assert error_line(nobody) == (
        f"error: nothing listens at tcp://127.0.0.1:{free}: start the bot first with"
        f" python bot.py --port {free}"
    )
