"""Can bots not on turn take CPU from the bot on turn? The think time of heuristic bots beside
two opponents spinning in background threads, against the same table with quiet opponents.

In one run, interleaved round by round (the machine is shared and noisy), whole games in the
docker sandbox through ``arena.play.play_game``, seats 0 and 2 the sample ``heuristic`` bot
and seats 1 and 3:

* ``quiet``: ``heuristic`` too;
* ``spinning``: ``heuristic`` with two threads that spin from its start to its end;

each with the bots frozen between their calls (the platform as it is: ``RunningBot.freeze``)
and, for reference, never frozen. The figure is the mean think time of seats 0 and 2 (the
referee's time per call, all their decisions of the round's game), and the ratio
spinning / quiet, frozen: the target is at most 1.2. Beside them: the load average, and the
freezer's cost, as the referee's own time in ``thaw`` + ``freeze`` per call (the first
freeze of each bot, which looks its cgroup up, apart).

Run from the repo root: ``python bench/fairness.py [--rounds R] [--seed S]``. Needs a Docker
engine, the bot image, and root (the freezer's files are root's). Exit status 1 if the bench
could not run; missing the target is not an error.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from arena.bot_specs import BotSpec
from arena.limits import Limits
from arena.play import GameSettings, play_game
from arena.sandbox import RunningBot, Sandbox, SandboxError, open_sandbox

ROOT = Path(__file__).resolve().parent.parent
HEURISTIC = ROOT / "sample_bots" / "heuristic"
SPINNING_BOT = """
import threading

from arena_sdk import run
from heuristic import HeuristicBot


def spin() -> None:
    while True:
        pass


for _ in range(2):
    threading.Thread(target=spin, daemon=True).start()
run(HeuristicBot())
"""
LIMITS = Limits(startup_ms=60_000)  # a bench measures, it does not referee a slow start
TARGET = 1.2


@dataclass
class FreezerClock:
    """The referee's time in freeze() and thaw(), over every bot of a sandbox."""

    seconds: float = 0.0
    calls: int = 0


@dataclass
class MeasuredBot:
    """A started bot whose freezer is timed, or skipped (``frozen`` False)."""

    bot: RunningBot
    frozen: bool
    clock: FreezerClock
    found: bool = False

    def open_socket(self, deadline: float) -> int:
        return self.bot.open_socket(deadline)

    def output(self) -> bytes:
        return self.bot.output()

    @property
    def started_at(self) -> float:
        return self.bot.started_at

    def died(self) -> str | None:
        return self.bot.died()

    def freeze(self) -> None:
        if not self.frozen:
            return
        if not self.found:  # the first looks the cgroup up (the engine's inspect): apart
            self.found = True
            self.bot.freeze()
            return
        start = time.perf_counter()
        self.bot.freeze()
        self.clock.seconds += time.perf_counter() - start

    def thaw(self) -> None:
        if self.frozen:
            start = time.perf_counter()
            self.bot.thaw()
            self.clock.seconds += time.perf_counter() - start
            self.clock.calls += 1

    def stop(self) -> None:
        self.bot.stop()


@dataclass
class MeasuredSandbox:
    inner: Sandbox
    frozen: bool
    clock: FreezerClock = field(default_factory=FreezerClock)
    name: str = "docker"

    def start(self, bot_dir: Path, workdir: Path, limits: Limits) -> MeasuredBot:
        return MeasuredBot(self.inner.start(bot_dir, workdir, limits), self.frozen, self.clock)

    def close(self) -> None:
        pass


def spinning_bot(top: Path) -> BotSpec:
    bot = top / "spinning"
    bot.mkdir()
    shutil.copy(HEURISTIC / "bot.py", bot / "heuristic.py")
    (bot / "bot.py").write_text(SPINNING_BOT)
    return BotSpec("spinning", bot)


def think_ms(sandbox: MeasuredSandbox, opponent: BotSpec, seed: int) -> float:
    """The mean think time of seats 0 and 2 (heuristic) in one game against ``opponent``."""
    heuristic = BotSpec("heuristic", HEURISTIC)
    game = play_game(
        (heuristic, opponent, heuristic, opponent), seed, sandbox, GameSettings(limits=LIMITS)
    )
    if game.outcome.forfeit is not None:
        raise SystemExit(f"error: a bot faulted: {game.outcome.forfeit}")
    timings = [game.players[seat].timing for seat in (0, 2)]
    return sum(t.total_ms for t in timings) / sum(t.decisions for t in timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    try:
        docker = open_sandbox("docker")
    except SandboxError as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(1) from None
    frozen, unfrozen = MeasuredSandbox(docker, True), MeasuredSandbox(docker, False)
    results: dict[tuple[str, bool], list[float]] = {}
    loads = [os.getloadavg()[0]]
    try:
        with tempfile.TemporaryDirectory(prefix="fairness-") as top:
            quiet, spinning = BotSpec("heuristic", HEURISTIC), spinning_bot(Path(top))
            for round_ in range(args.rounds):
                seed = args.seed + round_
                order = [
                    (quiet, frozen),
                    (spinning, frozen),
                    (spinning, unfrozen),
                    (quiet, unfrozen),
                ]
                for opponent, sandbox in order if round_ % 2 == 0 else order[::-1]:
                    ms = think_ms(sandbox, opponent, seed)
                    results.setdefault((opponent.label, sandbox.frozen), []).append(ms)
                    print(
                        f"round {round_ + 1}: {opponent.label:9} opponents, "
                        f"{'frozen' if sandbox.frozen else 'never frozen':12} "
                        f"{ms:7.2f} ms per decision  load {os.getloadavg()[0]:.2f}",
                        flush=True,
                    )
                    loads.append(os.getloadavg()[0])
    finally:
        docker.close()

    def mean(label: str, is_frozen: bool) -> float:
        return statistics.fmean(results[label, is_frozen])

    print()
    for is_frozen in (True, False):
        q, s = mean("heuristic", is_frozen), mean("spinning", is_frozen)
        what = "frozen between calls" if is_frozen else "never frozen (reference)"
        print(f"{what:26} quiet {q:6.2f} ms  spinning {s:6.2f} ms  ratio {s / q:.2f}")
    clock = frozen.clock
    per_call_us = clock.seconds / clock.calls * 1e6 if clock.calls else float("nan")
    print(
        f"freezer: {per_call_us:.0f} us of the referee's time per call (thaw + freeze), "
        f"over {clock.calls} calls"
    )
    quiet_cost = mean("heuristic", True) - mean("heuristic", False)
    print(f"quiet table, frozen minus never frozen: {quiet_cost:+.2f} ms per decision")
    print(
        f"load average (1 min): {min(loads):.2f} to {max(loads):.2f} during the run, "
        f"{os.cpu_count()} CPUs"
    )
    ratio = mean("spinning", True) / mean("heuristic", True)
    print(f"ratio={ratio:.2f} (target <= {TARGET})")


if __name__ == "__main__":
    main()
