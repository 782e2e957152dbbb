"""Ten full games of four trivial bots: the docker sandbox against the process sandbox.

What is measured, in one run, through the code path of ``arena play --games N``:

* ``games``: the wall time of ``arena.play.tables.play_many`` playing ``--games`` consecutive full
  games (one at a time, not duplicate) between four copies of a trivial SDK bot (it answers
  ``obs.legal_bids[0]`` / ``obs.legal_plays[0]``), under the ``docker`` backend (one fresh
  container per bot per game) and under the ``process`` backend (one fresh child process per
  bot per game). Both speak gRPC over a Unix socket. ``play_many`` starts the next game's
  bots while a game is played, so a backend's start-up cost should hide behind the game
  before; only the first game's start-up is in plain sight. Each round opens the backend,
  plays, and closes it (closing waits for containers still being removed: shown apart,
  not in the games' time, so that no round's clean-up runs into the next round).
* ``start-up``: the time from ``sandbox.start`` until the bot answers ``Hello`` -- one bot
  alone, and a table of four started at once (``start_table``) until all four answered --
  measured apart from the games, a few times, for both backends.

Why rounds: the machine is shared and noisy, so the backends alternate (docker, process,
process, docker, ...) over ``--rounds`` rounds, and the median round of each is compared.
The last line is ``ratio=<median docker / median process>``; the target is at most 1.5.

Run from the repo root: ``python bench/match.py [--games N] [--rounds R] [--startups S]``.
Needs a Docker engine and the bot image (``arena image build``). Exit status 1 if the
bench could not run (no engine, no image, a bot faulted); missing the target is not an
error.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from arguments import positive_int

from arena.bots.limits import Limits
from arena.engine import Rules
from arena.play.bot_specs import BotSpec
from arena.play.tables import GameSettings, SeatedBot, play_many, start_table
from arena.referee import BotFault
from arena.sandbox import Sandbox, SandboxError, open_sandbox

# The cheapest legal bot (first legal option), a real submission beside the benchmarks.
TRIVIAL_BOT = (Path(__file__).resolve().parent / "first_legal" / "bot.py").read_text()

BACKENDS = ("docker", "process")
# The default limits but a longer start-up: a bench measures, it does not referee, and four
# bots starting on a shared two-core machine under heavy load can take more than 10 s.
LIMITS = Limits(startup_ms=60_000)


class BenchError(RuntimeError):
    pass


@dataclass
class Side:
    """One backend's figures over the whole run."""

    kind: str
    games_s: list[float] = field(default_factory=list)  # per round
    close_s: list[float] = field(default_factory=list)  # per round
    decision_ms: list[float] = field(default_factory=list)  # per round: mean referee-side
    decisions: int = 0
    one_bot: list[tuple[float, ...]] = field(default_factory=list)  # start, to Hello, stop
    table_s: list[float] = field(default_factory=list)
    startup_close_s: float = 0.0


def play_round(
    kind: str, bots: Sequence[BotSpec], seeds: Sequence[int], rules: Rules
) -> tuple[float, float, int, float]:
    """Open the backend, play the games, close it: (the games' wall time, the close time,
    decisions, mean ms per decision as the referee timed the calls)."""
    sandbox = open_sandbox(kind)
    try:
        elapsed, decisions, total_ms = timed_games(sandbox, bots, seeds, rules, LIMITS)
    finally:
        closing = time.perf_counter()
        sandbox.close()
        close_s = time.perf_counter() - closing
    return elapsed, close_s, decisions, total_ms / decisions


def timed_games(
    sandbox: Sandbox, bots: Sequence[BotSpec], seeds: Sequence[int], rules: Rules, limits: Limits
) -> tuple[float, int, float]:
    """Play the games one at a time: (their wall time, decisions, the referee's total ms for
    them); BenchError if a bot forfeited."""
    start = time.perf_counter()
    games = play_many(
        bots, seeds, sandbox, duplicate=False, concurrency=1,
        settings=GameSettings(rules=rules, limits=limits),
    )  # fmt: skip
    elapsed = time.perf_counter() - start
    decisions, total_ms = 0, 0.0
    for game in games:
        if game.outcome.forfeit is not None:
            f = game.outcome.forfeit
            raise BenchError(
                f"{sandbox.name}: seat {f.seat} forfeited game {game.seed}: {f.detail}"
            )
        decisions += sum(p.timing.decisions for p in game.players)
        total_ms += sum(p.timing.total_ms for p in game.players)
    return elapsed, decisions, total_ms


def one_bot(sandbox: Sandbox, bot: BotSpec, rules: Rules, limits: Limits) -> tuple[float, ...]:
    """One bot's (``sandbox.start`` call, then until it answered Hello, then ``stop``), in s.
    Greeted as the referee greets it (``SeatedBot``): a bot waits frozen for its Hello."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        t0 = time.perf_counter()
        running = sandbox.start(bot.directory, Path(tmp) / "seat0", limits)
        t1 = time.perf_counter()
        channels: list[grpc.Channel] = []
        sockets: list[int] = []
        try:
            SeatedBot(0, bot, running, limits, channels, sockets, [running]).hello(0, rules)
            t2 = time.perf_counter()
        finally:
            running.stop()  # as referee_table does: the bot, then its channel
            t3 = time.perf_counter()
            _close(channels, sockets)
    return t1 - t0, t2 - t1, t3 - t2


def table_hello(sandbox: Sandbox, bots: Sequence[BotSpec], rules: Rules, limits: Limits) -> float:
    """Seconds from ``start_table`` until all four bots answered Hello, greeted in turn as
    the referee greets them."""
    start = time.perf_counter()
    table = start_table(bots, sandbox, limits)
    channels: list[grpc.Channel] = []
    sockets: list[int] = []
    try:
        for seat, running in enumerate(table.running):
            seated = SeatedBot(seat, bots[seat], running, limits, channels, sockets, table.running)
            seated.hello(seat, rules)
        return time.perf_counter() - start
    finally:
        table.stop()
        _close(channels, sockets)
        table.scratch.cleanup()


def _close(channels: Sequence[grpc.Channel], sockets: Sequence[int]) -> None:
    for channel in channels:
        channel.close()
    for fd in sockets:
        os.close(fd)


def measure_startup(side: Side, bots: Sequence[BotSpec], rules: Rules, times: int) -> None:
    sandbox = open_sandbox(side.kind)
    limits = LIMITS
    try:
        one_bot(sandbox, bots[0], rules, limits)  # warm-up
        for _ in range(times):
            side.one_bot.append(one_bot(sandbox, bots[0], rules, limits))
            side.table_s.append(table_hello(sandbox, bots, rules, limits))
    finally:
        closing = time.perf_counter()
        sandbox.close()
        side.startup_close_s = time.perf_counter() - closing


def _median_ms(values: Sequence[float]) -> str:
    every = " ".join(f"{v * 1000:.0f}" for v in values)
    return f"{statistics.median(values) * 1000:.0f} ({every})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=positive_int, default=10, help="games per round")
    parser.add_argument("--rounds", type=positive_int, default=4, help="rounds per backend")
    parser.add_argument(
        "--startups", type=positive_int, default=5, help="start-up measurements per backend"
    )
    parser.add_argument("--seed", type=int, default=0, help="first game seed")
    args = parser.parse_args(argv)
    if args.seed < 0:
        parser.error("--seed must be >= 0")

    rules = Rules()
    seeds = [args.seed + i for i in range(args.games)]
    sides = {kind: Side(kind) for kind in BACKENDS}
    print(
        f"{args.games} games per round, {args.rounds} rounds per backend, seeds {seeds[0]}-"
        f"{seeds[-1]}, four trivial SDK bots, concurrency 1, default limits but start-up "
        f"{LIMITS.startup_ms // 1000} s; process backend in bubblewrap",
        flush=True,
    )
    try:
        with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
            bot_dir = Path(tmp) / "first_legal"
            bot_dir.mkdir()
            (bot_dir / "bot.py").write_text(TRIVIAL_BOT)
            bots = [BotSpec("first-legal", bot_dir)] * 4

            # Warm-up, untimed: the image's files in the page cache, imports, the engine.
            for kind in BACKENDS:
                play_round(kind, bots, seeds[:1], rules)

            for rnd in range(args.rounds):
                order = BACKENDS if rnd % 2 == 0 else BACKENDS[::-1]
                for kind in order:
                    elapsed, close_s, decisions, decision_ms = play_round(kind, bots, seeds, rules)
                    side = sides[kind]
                    side.games_s.append(elapsed)
                    side.close_s.append(close_s)
                    side.decision_ms.append(decision_ms)
                    side.decisions = decisions
                    print(
                        f"round {rnd + 1}/{args.rounds} {kind:<7} {elapsed:6.2f} s"
                        f" ({elapsed / args.games * 1000:.0f} ms a game,"
                        f" {decision_ms:.2f} ms a decision; close {close_s:.2f} s)",
                        flush=True,
                    )

            for kind in BACKENDS:
                measure_startup(sides[kind], bots, rules, args.startups)
    except (BenchError, BotFault, SandboxError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1

    print()
    decisions = sides["process"].decisions
    print(f"{args.games} games = {decisions:,} decisions per round (the same for both backends)")
    medians = {}
    for kind, side in sides.items():
        medians[kind] = statistics.median(side.games_s)
        print(
            f"{kind:<7} games median {medians[kind]:6.2f} s"
            f" ({medians[kind] / args.games * 1000:.0f} ms a game;"
            f" rounds {' '.join(f'{s:.2f}' for s in side.games_s)});"
            f" per decision {statistics.median(side.decision_ms):.2f} ms"
        )
    print(f"start-up, {args.startups} times each, median ms (all):")
    for kind, side in sides.items():
        steps = list(zip(*side.one_bot, strict=True))
        print(
            f"  {kind:<7} one bot: start {_median_ms(steps[0])}, then to Hello"
            f" {_median_ms(steps[1])}, total {_median_ms([a + b for a, b, _ in side.one_bot])};"
            f" stop {_median_ms(steps[2])}"
        )
        print(
            f"  {kind:<7} a table of four (start_table to four Hellos): {_median_ms(side.table_s)};"
            f" then closing the backend {side.startup_close_s * 1000:.0f}"
        )
    print(f"ratio={medians['docker'] / medians['process']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
