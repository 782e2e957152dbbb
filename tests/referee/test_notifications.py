"""Notification time is the bot's own: a hook's time past ``notify_ms`` drains its bank.

Real bots (SDK bots whose ``on_trick`` sleeps) played by the real ``arena play``; the
others are the sample ``random`` bot, which wants no notifications.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.cli.runner import run_arena

SLEEPY_BOT = """
import time
from arena_sdk import Bot, run

class Sleepy(Bot):
    def bid(self, obs):
        return obs.legal_bids[0]

    def play(self, obs):
        return obs.legal_plays[0]

    def on_trick(self, trick):
        time.sleep({seconds})

if __name__ == "__main__":
    run(Sleepy())
"""

TRICKS_AT_LEAST = 150  # a game's 25 deals have 181 tricks, fewer only if a redeal ends it


def sleepy_bot(tmp_path: Path, seconds: float) -> Path:
    bot = tmp_path / "sleepy"
    bot.mkdir()
    (bot / "bot.py").write_text(SLEEPY_BOT.format(seconds=seconds))
    return bot


def bank_left(stdout: str, seat: int) -> float:
    """The 'bank left ms' column of the timing table's row for ``seat``."""
    for line in stdout.splitlines():
        cells = [c.strip() for c in re.split(r"[│|]", line) if c.strip()]
        if cells and cells[0] == str(seat) and len(cells) >= 7:
            return float(cells[-1])
    raise AssertionError(f"no timing row for seat {seat} in:\n{stdout}")


def test_time_in_notifications_is_drawn_from_the_bank(tmp_path: Path) -> None:
    bot = sleepy_bot(tmp_path, 0.02)  # 20 ms per trick: 15 ms past notify_ms, each time
    result = run_arena("play", bot, "random", "random", "random", "--seed", 3)
    assert result.returncode == 0, result.stderr
    assert "forfeit:" not in result.stdout, result.stdout
    assert bank_left(result.stdout, 0) <= 10_000 - TRICKS_AT_LEAST * 15, result.stdout
    assert bank_left(result.stdout, 1) > 9_000, result.stdout  # random: no notifications


def test_a_bot_that_sleeps_in_notifications_times_out_when_its_bank_is_spent(
    tmp_path: Path,
) -> None:
    bot = sleepy_bot(tmp_path, 0.25)
    replay = tmp_path / "game.json"
    result = run_arena(
        "play", bot, "random", "random", "random", "--seed", 3, "--replay", replay,
        "--move-ms", 300, "--bank-ms", 1000,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    forfeits = [line for line in result.stdout.splitlines() if line.startswith("forfeit:")]
    assert forfeits == [
        f"forfeit: seat 0 ({bot}) timeout: no answer to a notification within "
        + forfeits[0].rsplit("within ", 1)[-1]
    ], result.stdout
    # The bank ran out after four tricks of 245 ms each: at most ~1 s, never the move time.
    allowed_ms = int(forfeits[0].rsplit("within ", 1)[-1].removesuffix(" ms"))
    assert allowed_ms < 300, forfeits[0]
    data = json.loads(replay.read_text())
    assert data["result"]["forfeit"]["reason"] == "timeout"
    assert data["result"]["forfeit"]["seat"] == 0
    tricks = sum(len(deal["tricks"]) for deal in data["deals"])
    assert tricks <= 5, tricks
