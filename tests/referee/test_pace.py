"""The table's pace, attacked as partners who talk by think time would.

Real games through ``arena play`` (the process sandbox): seats 0 and 2 the partners of
``bench/think_signals/bot.py`` (seat 0 sleeps 30 ms to send a 1, once per trick; seat 2 times
each trick between its own ``on_trick`` notifications and prints what it saw), seats 1 and 3
a bot that plays its first legal card and ends the game when deal ``DEALS + 1``
begins (it exits), so that a game is a handful of deals.
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.bots.limits import LADDER_PACE_MS
from tests.cli.runner import error_line, run_arena
from tests.referee.test_notifications import bank_left

ROOT = Path(__file__).resolve().parents[2]
SIGNALLER = ROOT / "bench" / "think_signals" / "bot.py"
DEALS = 6  # 13 + 12 + ... + 8 tricks: 57 bits, one per trick after each deal's first

QUITTER = """
import os
import time
from arena_sdk import Bid, Bot, run

class Quitter(Bot):
    def bid(self, obs):
        if obs.deal_number > {deals}:
            os._exit(1)  # at once: a crash ends the game
        time.sleep({sleep_ms} / 1000)
        return next((b for b in obs.legal_bids if b != Bid.PASS), obs.legal_bids[0])

    def play(self, obs):
        time.sleep({sleep_ms} / 1000)
        return obs.legal_plays[0]

if __name__ == "__main__":
    run(Quitter())
"""


def quitter(tmp_path: Path, deals: int, sleep_ms: float = 0) -> Path:
    bot = tmp_path / f"quitter-{deals}-{sleep_ms}"
    bot.mkdir()
    (bot / "bot.py").write_text(QUITTER.format(deals=deals, sleep_ms=sleep_ms))
    return bot


def signaller(tmp_path: Path, free_ms: int) -> Path:
    bot = tmp_path / f"signaller-{free_ms}"
    bot.mkdir(exist_ok=True)
    (bot / "bot.py").write_text(
        SIGNALLER.read_text().replace("FREE_MS = 30", f"FREE_MS = {free_ms}")
    )
    return bot


def signal_game(tmp_path: Path, pace_ms: int, free_ms: int) -> Signals:
    """Play one short game at ``pace_ms``, seat 0 sleeping ``free_ms`` for a 1 (at most half
    the free time): the bits seat 0 sent and the gaps seat 2 timed, by (deal, trick)."""
    logs = tmp_path / f"logs-{pace_ms}"
    bot, other = signaller(tmp_path, free_ms), quitter(tmp_path, DEALS)
    result = run_arena(
        "play", bot, other, bot, other, "--seed", 5, "--pace-ms", pace_ms, "--logs", logs
    )
    assert result.returncode == 0, result.stderr
    assert re.search(r"^forfeit: seat [13] .* crash", result.stdout, re.M), result.stdout
    sent_text, seen_text = (logs / "seat0.log").read_text(), (logs / "seat2.log").read_text()
    sent = {
        (int(d), int(t)): int(b)
        for d, t, b in re.findall(r"^sent (\d+) (\d+) (\d)$", sent_text, re.M)
    }
    seen = {
        (int(d), int(t)): int(ns)
        for d, t, ns in re.findall(r"^trick (\d+) (\d+) (\d+)$", seen_text, re.M)
    }
    gaps = {
        (d, t): (ns - seen[(d, t - 1)]) / 1e6 for (d, t), ns in seen.items() if (d, t - 1) in seen
    }
    amplitude = min(free_ms, (pace_ms or 1000) / 2)
    return Signals({k: b for k, b in sent.items() if k in gaps}, gaps, amplitude)


@dataclass
class Signals:
    sent: dict[tuple[int, int], int]  # the bits whose trick the receiver timed
    gaps: dict[tuple[int, int], float]  # ms
    amplitude_ms: float  # what the sender adds for a 1, known to both partners

    def decoded_right(self) -> int:
        """The bits the receiver gets right deciding blind, by the better of two cuts: the
        median gap, and the 10th percentile plus half the amplitude."""
        values = sorted(self.gaps.values())
        cuts = (statistics.median(values), values[len(values) // 10] + self.amplitude_ms / 2)
        return max(
            sum((self.gaps[key] > cut) == bool(bit) for key, bit in self.sent.items())
            for cut in cuts
        )

    def chance_bound(self) -> float:
        """What a receiver that learns nothing gets right with probability under 1e-5.

        Blind, it calls a share q of the bits 1 whatever was sent: q * ones + (1 - q) * zeros
        right on average, at most the larger of the two counts, and a spread of at most
        sqrt(n) / 2; 4.75 of it is 1e-6 per cut, two cuts."""
        ones = sum(self.sent.values())
        n = len(self.sent)
        return max(ones, n - ones) + 4.75 * math.sqrt(n) / 2


@pytest.fixture(scope="module")
def paced(tmp_path_factory: pytest.TempPathFactory) -> Signals:
    return signal_game(tmp_path_factory.mktemp("paced"), LADDER_PACE_MS, free_ms=30)


def test_think_time_says_nothing_to_a_partner_at_the_ladders_pace(
    tmp_path: Path, paced: Signals
) -> None:
    assert len(paced.sent) >= 50, paced
    assert paced.decoded_right() <= paced.chance_bound(), paced
    # The same partners at no pace, a 1 a 300 ms sleep: the channel the pace closes is there.
    # (A 100 ms sleep was lost in a loaded machine's jitter: decoded at chance at a load of 8
    # on two cores, the suite in three processes.)
    unpaced = signal_game(tmp_path, 0, free_ms=300)
    assert unpaced.decoded_right() > unpaced.chance_bound(), unpaced


def test_the_pace_holds_every_answer_back_from_the_other_seats(paced: Signals) -> None:
    """Four decisions lie between two of the receiver's trick notifications, each held to
    the pace, so the receiver never sees a trick in less than four paces (a lower bound:
    however slow the machine, it cannot fail by being slow)."""
    assert min(paced.gaps.values()) >= 4 * LADDER_PACE_MS, sorted(paced.gaps.values())[:5]


def test_time_past_the_pace_is_paid_from_the_bank_in_whole_paces(tmp_path: Path) -> None:
    """A bot over the pace but well within move_ms pays a pace per decision: move_ms is not
    its free time any more, the pace is."""
    slow, fast = quitter(tmp_path, 2, sleep_ms=30), quitter(tmp_path, 2)
    result = run_arena("play", slow, fast, fast, fast, "--seed", 5, "--pace-ms", 20)
    assert result.returncode == 0, result.stderr
    decisions = next(
        int(cells[3])
        for line in result.stdout.splitlines()
        if (cells := [c.strip() for c in re.split(r"[│|]", line) if c.strip()])[:1] == ["0"]
        and len(cells) >= 7
    )
    left = bank_left(result.stdout, 0)
    assert decisions >= 20, result.stdout
    assert left <= 10_000 - 20 * decisions, result.stdout
    assert left % 20 == 0, result.stdout
    # Fast: over the pace only when the machine's load delays a round trip, a pace each time
    # (a loaded host did so 2 times in 27), never a pace a decision as the slow one pays.
    fast_left = bank_left(result.stdout, 1)
    assert fast_left % 20 == 0, result.stdout
    assert 10_000 - fast_left < (10_000 - left) / 4, result.stdout


def test_a_pace_over_the_move_time_is_refused() -> None:
    result = run_arena("play", "random", "random", "random", "random", "--pace-ms", 2000)
    assert result.returncode == 2
    assert error_line(result) == "error: pace_ms (2000) must be <= move_ms (1000)"
