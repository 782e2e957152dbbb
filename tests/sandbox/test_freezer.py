"""Bots not on turn are frozen: they take no CPU from the bot on turn (issue 15, item 3).

A real game in containers (``arena play --sandbox docker``): seat 0's bot ticks in a
background thread from its Hello on, once per millisecond at most, and logs the count at
each decision; the other seats sleep 10 ms per decision. Frozen between its calls, the
ticking bot can tick only while the referee waits for its own answers, so its ticks are
bounded by its own think time, not by the game's length (several times more).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.cli.runner import run_arena

TICKING_BOT = """
import threading
import time
from arena_sdk import Bot, run

ticks = 0


def tick():
    global ticks
    while True:
        time.sleep(0.001)
        ticks += 1


class Ticking(Bot):
    def on_game_start(self, seat, limits):
        threading.Thread(target=tick, daemon=True).start()

    def bid(self, obs):
        print("ticks", ticks, flush=True)
        return obs.legal_bids[0]

    def play(self, obs):
        print("ticks", ticks, flush=True)
        return obs.legal_plays[0]

if __name__ == "__main__":
    run(Ticking())
"""

SLOW_BOT = """
import time
from arena_sdk import Bot, run

class Slow(Bot):
    def bid(self, obs):
        time.sleep(0.01)
        return obs.legal_bids[0]

    def play(self, obs):
        time.sleep(0.01)
        return obs.legal_plays[0]

if __name__ == "__main__":
    run(Slow())
"""


def timing_row(stdout: str, seat: int) -> list[str]:
    for line in stdout.splitlines():
        cells = [c.strip() for c in re.split(r"[│|]", line) if c.strip()]
        if cells and cells[0] == str(seat) and len(cells) >= 7:
            return cells
    raise AssertionError(f"no timing row for seat {seat} in:\n{stdout}")


@pytest.mark.docker
@pytest.mark.skipif(os.geteuid() != 0, reason="the cgroup freezer's files are root's")
def test_a_bot_not_on_turn_is_frozen(tmp_path: Path) -> None:
    for name, source in (("ticking", TICKING_BOT), ("slow", SLOW_BOT)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "bot.py").write_text(source)
    ticking, slow = tmp_path / "ticking", tmp_path / "slow"
    result = run_arena(
        "play", ticking, slow, slow, slow, "--seed", 2, "--sandbox", "docker",
        "--logs", tmp_path / "logs",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "forfeit:" not in result.stdout, result.stdout
    row = timing_row(result.stdout, 0)
    decisions, mean_ms = int(row[3]), float(row[4])
    counts = re.findall(r"^ticks (\d+)$", (tmp_path / "logs" / "seat0.log").read_text(), re.M)
    assert len(counts) == decisions
    ticks = int(counts[-1])
    # Each tick is at least 1 ms of the bot running; it runs only during its own calls
    # (and as each thaw and freeze takes hold: allowed 3 ms per call, a loaded machine's).
    think_ms = decisions * mean_ms
    # Unfrozen it would tick through the others' sleeps too (3 x 10 ms per decision of its
    # own), a few times its think time: so this fails if it is not frozen (checked).
    assert ticks <= think_ms + 3 * decisions, (ticks, think_ms)


# Ticks from its import on, and says how many it had when it began to serve (``run``) and at
# each call: between the two it only waited for its first call.
EARLY_TICKING_BOT = """
import threading
import time
from arena_sdk import Bot, run

ticks = 0


def tick():
    global ticks
    while True:
        time.sleep(0.001)
        ticks += 1


class Ticking(Bot):
    def bid(self, obs):
        print("ticks", ticks, flush=True)
        return obs.legal_bids[0]

    def play(self, obs):
        print("ticks", ticks, flush=True)
        return obs.legal_plays[0]

if __name__ == "__main__":
    threading.Thread(target=tick, daemon=True).start()
    time.sleep(0.2)
    print("serving at", ticks, flush=True)
    run(Ticking())
"""


@pytest.mark.docker
@pytest.mark.skipif(os.geteuid() != 0, reason="the cgroup freezer's files are root's")
def test_a_bot_started_ahead_waits_frozen_for_its_game(tmp_path: Path) -> None:
    for name, source in (("ticking", EARLY_TICKING_BOT), ("slow", SLOW_BOT)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "bot.py").write_text(source)
    ticking, slow = tmp_path / "ticking", tmp_path / "slow"
    # Game 2's bots start as game 1 begins (arena play's pipeline), and wait for it to end.
    result = run_arena(
        "play", ticking, slow, slow, slow, "--seed", 2, "--games", 2, "--sandbox", "docker",
        "--logs", tmp_path / "logs",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "forfeit:" not in result.stdout, result.stdout
    first_game = (tmp_path / "logs" / "game1-seat0.log").read_text()
    decisions = len(re.findall(r"^ticks \d+$", first_game, re.M))
    second_game = (tmp_path / "logs" / "game2-seat0.log").read_text()
    serving = int(re.findall(r"^serving at (\d+)$", second_game, re.M)[0])
    first_call = int(re.findall(r"^ticks (\d+)$", second_game, re.M)[0])
    # Awake while game 1 played, it would tick through the three slow seats' sleeps (at
    # least 30 ms per decision of its own there); frozen once its socket was made, only
    # until the freeze took hold and through its Hello. Bounded by a third of the former.
    assert first_call - serving <= 10 * decisions, (first_call - serving, decisions)
