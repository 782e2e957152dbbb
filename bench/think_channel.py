"""How much partners can say by how long they think, at each table pace, and what a pace costs.

A pair of partner bots (``bench/think_signals/bot.py``, seats 0 and 2; the sample
``heuristic`` at 1 and 3) plays whole games through ``arena.play.tables.play_game``: seat 0
sends one bit per trick (after each deal's first) in how long it takes to play, seat 2 times
each trick between its own ``on_trick`` notifications, as a bot can. Two senders:

* ``free``: a 1 is a sleep of 30 ms (at most half the free time per decision): no bank
  spent, unless the machine delays the answer past the free time;
* ``bank``: a 1 is one pace past the free time, paid from the bank while it lasts (paced only).

The receiver decodes blind, from its gaps alone: a 1 if the gap is over the median, or over
the 10th percentile plus half the amplitude it expects (the sender's 30 ms, or one pace); the
better of the two counts. Information = bits x (1 - H(error rate)) (a binary symmetric
channel: 0 at chance). Beside it, at each pace, the cost: games of four ``heuristic`` bots, one
table at a time and ``--concurrency`` tables at once (a paced table mostly waits, so more
fit), their wall time and games per hour, the most bank an honest seat spent (the machine's
delays past the pace); and the noise-free bound of a sender that spends
its whole bank: log2 C(D + Q, Q) bits for D decisions and Q = bank / pace paces.

Pace 0 is the reference, the table as it was. Run from the repo root:
``python bench/think_channel.py [--paces 0,20,50,100] [--sandbox process] [--seed S]``.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.bots.limits import Limits
from arena.play.bot_specs import BotSpec
from arena.play.tables import GameSettings, PlayedGame, play_game, play_many
from arena.sandbox import Sandbox, SandboxError, open_sandbox

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "bench" / "think_signals" / "bot.py"
HEURISTIC = BotSpec("heuristic", ROOT / "sample_bots" / "heuristic")
FREE_MS = 30  # the bot's FREE_MS
DEALS = 25


@dataclass
class Channel:
    bits: int
    right: int

    @property
    def information(self) -> float:
        """Bits through a binary symmetric channel of this error rate: 0 at chance."""
        if not self.bits:
            return 0.0
        error = 1 - self.right / self.bits
        entropy = -sum(p * math.log2(p) for p in (error, 1 - error) if p > 0)
        return self.bits * (1 - entropy)


def channel_bot(top: Path, mode: str) -> BotSpec:
    directory = top / f"think-{mode}"
    directory.mkdir(exist_ok=True)
    text = BOT.read_text().replace('MODE = "free"', f'MODE = "{mode}"')
    (directory / "bot.py").write_text(text)
    return BotSpec(f"think-{mode}", directory)


def decode(sender_log: str, receiver_log: str, amplitude_ms: float) -> Channel:
    """What the receiver makes of its gaps, scored against what the sender sent."""
    sent = {
        (int(d), int(t)): int(b)
        for d, t, b in re.findall(r"^sent (\d+) (\d+) (\d)$", sender_log, re.M)
    }
    seen = {
        (int(d), int(t)): int(ns)
        for d, t, ns in re.findall(r"^trick (\d+) (\d+) (\d+)$", receiver_log, re.M)
    }
    gaps = {
        key: (ns - seen[(key[0], key[1] - 1)]) / 1e6
        for key, ns in seen.items()
        if key in sent and (key[0], key[1] - 1) in seen
    }
    if len(gaps) < 10:
        return Channel(len(gaps), 0)
    values = sorted(gaps.values())
    thresholds = (statistics.median(values), values[len(values) // 10] + amplitude_ms / 2)
    right = max(
        sum((gap > cut) == bool(sent[key]) for key, gap in gaps.items()) for cut in thresholds
    )
    return Channel(len(gaps), right)


def bound_bits(decisions: int, bank_ms: int, pace_ms: int) -> float:
    """Noise-free: the sequences of paces a bank of Q paces can spread over D decisions."""
    quanta = bank_ms // pace_ms
    return math.log2(math.comb(decisions + quanta, quanta))


def log_text(game: PlayedGame, seat: int) -> str:
    return game.logs[seat].read_text(errors="replace")


def signal_game(
    sandbox: Sandbox, top: Path, mode: str, pace: int, seed: int
) -> tuple[Channel, float]:
    bot = channel_bot(top, mode)
    limits = Limits(pace_ms=pace)
    logs = top / f"logs-{mode}-{pace}"
    game = play_game(
        [bot, HEURISTIC, bot, HEURISTIC], seed, sandbox, GameSettings(limits=limits, logs_dir=logs)
    )
    if (forfeit := game.outcome.forfeit) is not None:  # what was said until then still counts
        print(f"  ({mode} at pace {pace}: seat {forfeit.seat} forfeits, {forfeit.detail})")
    amplitude = pace if mode == "bank" else min(FREE_MS, limits.decision_ms / 2)
    sender = next(p for p in game.players if p.seat == 0)
    return decode(
        log_text(game, 0), log_text(game, 2), amplitude
    ), limits.bank_ms - sender.timing.bank_ms


@dataclass
class Cost:
    pace: int
    seconds: float  # one game alone
    decisions: int  # of seat 0 in it
    spent_ms: float  # the most bank a seat spent in it: honest bots over the pace
    per_hour: float  # games per hour, ``concurrency`` at once


def cost(sandbox: Sandbox, pace: int, seed: int, concurrency: int) -> Cost:
    settings = GameSettings(limits=Limits(pace_ms=pace))
    start = time.monotonic()
    game = play_game([HEURISTIC] * 4, seed, sandbox, settings)
    alone = time.monotonic() - start
    start = time.monotonic()
    seeds = range(seed, seed + concurrency)
    play_many(
        [HEURISTIC] * 4, seeds, sandbox, duplicate=False, concurrency=concurrency, settings=settings
    )
    per_hour = concurrency * 3600 / (time.monotonic() - start)
    spent = max(settings.limits.bank_ms - p.timing.bank_ms for p in game.players)
    return Cost(pace, alone, game.players[0].timing.decisions, spent, per_hour)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--paces", default="0,20,50,100", help="comma-separated, in ms")
    parser.add_argument("--sandbox", default="process")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=4, help="tables at once, for the cost")
    args = parser.parse_args()
    paces = [int(p) for p in args.paces.split(",")]
    try:
        sandbox = open_sandbox(args.sandbox)
    except SandboxError as e:
        sys.exit(f"error: {e}")
    loads = [os.getloadavg()[0]]
    bank = Limits().bank_ms
    print(f"sandbox {args.sandbox}, seed {args.seed}, bank {bank} ms, load {loads[0]:.2f}")
    print(
        f"{'pace ms':>7} {'sender':>6} {'bits':>5} {'right':>5} {'info/game':>9}"
        f" {'info/deal':>9} {'bank spent ms':>13}"
    )
    costs = []
    try:
        with tempfile.TemporaryDirectory(prefix="think-channel-") as top:
            for pace in paces:
                for mode in ("free", "bank") if pace else ("free",):
                    channel, spent = signal_game(sandbox, Path(top), mode, pace, args.seed)
                    info = channel.information
                    print(
                        f"{pace:>7} {mode:>6} {channel.bits:>5} {channel.right:>5}"
                        f" {info:>9.1f} {info / DEALS:>9.2f} {spent:>13.0f}",
                        flush=True,
                    )
                costs.append(cost(sandbox, pace, args.seed, args.concurrency))
                loads.append(os.getloadavg()[0])
    finally:
        sandbox.close()
    n = args.concurrency
    print(
        f"{'pace ms':>7} {'game s':>7} {'games/hour':>10} {f'x{n} games/hour':>15}"
        f" {'bank spent ms':>13} {'bank bound bits/game':>20}"
    )
    for c in costs:
        bound = f"{bound_bits(c.decisions, bank, c.pace):.0f}" if c.pace else "unbounded"
        print(
            f"{c.pace:>7} {c.seconds:>7.1f} {3600 / c.seconds:>10.0f} {c.per_hour:>15.0f}"
            f" {c.spent_ms:>13.0f} {bound:>20}"
        )
    print(f"load {min(loads):.2f}-{max(loads):.2f} (1-minute averages through the run)")


if __name__ == "__main__":
    main()
