"""The docker sandbox under two OCI runtimes side by side: runc (the default) and runsc (gVisor).

What is measured, in one run, alternating the runtimes round by round (the machine is shared
and its load moves within seconds):

* ``table``: a table's start-up, from ``start_table`` (four containers of a trivial SDK bot
  started at once) until all four answered ``Hello``;
* ``games``: ``--games`` consecutive full games of four trivial bots through ``play_many``
  (one at a time, the next table started while a game is played), as games per hour;
* ``decision``: a decision's round trip as the referee times it (``RemotePlayer``'s own
  timing: the call, the bot's answer, its check), the mean over those games.

Run from the repo root: ``python bench/runtime.py [--games N] [--rounds R]``. Needs a Docker
engine with runsc registered (``./run`` does it where it can) and the bot image. Prints the
load (``uptime``) before and after, and last ``ratio=<runsc games/h / runc games/h>``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from match import BenchError, table_hello, timed_games  # bench/match.py's, as the referee does

from arena.bots.limits import Limits
from arena.engine import Rules
from arena.images.bot_images import image_tag
from arena.play.bot_specs import BotSpec
from arena.referee import BotFault
from arena.sandbox import SandboxError
from arena.sandbox.docker import DockerSandbox

TRIVIAL_BOT = (Path(__file__).resolve().parent / "first_legal" / "bot.py").read_text()
RUNTIMES = ("runc", "runsc")
LIMITS = Limits(startup_ms=60_000)  # a bench measures; it does not referee


def games(
    sandbox: DockerSandbox, bots: Sequence[BotSpec], seeds: Sequence[int], rules: Rules
) -> tuple[float, float]:
    """(games per hour, mean ms per decision as the referee timed it)."""
    elapsed, decisions, total_ms = timed_games(sandbox, bots, seeds, rules, LIMITS)
    return len(seeds) * 3600 / elapsed, total_ms / decisions


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=3, help="games per round")
    parser.add_argument("--rounds", type=int, default=4, help="rounds per runtime")
    args = parser.parse_args(argv)
    rules = Rules()
    figures: dict[str, dict[str, list[float]]] = {
        r: {"table": [], "games_h": [], "decision": []} for r in RUNTIMES
    }
    print(f"load before: {uptime()}", flush=True)
    try:
        sandboxes = {r: DockerSandbox(image_tag(), runtime=r) for r in RUNTIMES}
    except SandboxError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    try:
        with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
            bot_dir = Path(tmp) / "first_legal"
            bot_dir.mkdir()
            (bot_dir / "bot.py").write_text(TRIVIAL_BOT)
            bots = [BotSpec("first-legal", bot_dir)] * 4
            for runtime in RUNTIMES:  # warm-up, untimed
                table_hello(sandboxes[runtime], bots, rules, LIMITS)
            for rnd in range(args.rounds):
                for runtime in RUNTIMES if rnd % 2 == 0 else RUNTIMES[::-1]:
                    sandbox, mine = sandboxes[runtime], figures[runtime]
                    mine["table"].append(table_hello(sandbox, bots, rules, LIMITS))
                    seeds = [rnd * args.games + i for i in range(args.games)]
                    per_hour, decision_ms = games(sandbox, bots, seeds, rules)
                    mine["games_h"].append(per_hour)
                    mine["decision"].append(decision_ms)
                    print(
                        f"round {rnd + 1} {runtime:<5} table {mine['table'][-1]:.2f} s,"
                        f" {per_hour:.0f} games/h, {decision_ms:.2f} ms a decision",
                        flush=True,
                    )
    except (BenchError, BotFault, SandboxError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        for sandbox in sandboxes.values():
            sandbox.close()
    print(f"load after: {uptime()}")
    med = {r: {k: statistics.median(v) for k, v in f.items()} for r, f in figures.items()}
    for runtime in RUNTIMES:
        m = med[runtime]
        print(
            f"{runtime:<5} median: table start-up {m['table']:.2f} s,"
            f" decision {m['decision']:.2f} ms, {m['games_h']:.0f} games/h"
        )
    print(f"ratio={med['runsc']['games_h'] / med['runc']['games_h']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
