"""Per-decision cost of a bot written with the JavaScript SDK (Node.js) beside the same bot
written with the Python SDK, through the referee's real client.

Both bots are the cheapest legal one (the first legal option: ``bench/first_legal`` and
``bench/first_legal_js``), started as the ``none`` sandbox starts a bot (in its directory,
``ARENA_SOCKET`` set, the minimal environment) and called by ``RemotePlayer.choose(obs)`` on
real positions (engine games, the seat to move's observation; one bot answers for every
seat) over a Unix socket. Each side is timed on its own games from the same seed, so both
get the same requests in the same order. Warm-up first, then rounds of alternating blocks of
``--block`` calls (the machine is shared and its load changes within seconds). Also each
runtime's start: from the process's start to its ``Hello`` answer, ``--startups`` times each,
alternately.

The last line is ``ratio=<median node / median python>`` per decision. No target: it is what
choosing Node costs (or saves) a bot, the SDKs' own work and their gRPC libraries together.

Run from the repo root: ``python bench/node_runtime.py [--decisions N] [--rounds R]``; it
needs ``node`` and the SDK's dependencies (``sdk-js/node_modules``: ``./run`` installs them).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
from arguments import positive_int
from protocol import BenchError, Positions, Side, run_decisions, summary

from arena.bots.limits import Limits
from arena.engine import Rules
from arena.referee import BotFault, RemotePlayer

BENCH = Path(__file__).resolve().parent
SDK_JS = BENCH.parent / "sdk-js"
BOTS = {
    "python": (BENCH / "first_legal", [sys.executable, "bot.py"]),
    "node": (BENCH / "first_legal_js", ["node", "bot.js"]),
}
STARTUP_S = 20.0


@contextlib.contextmanager
def started(runtime: str, workdir: Path, limits: Limits) -> Iterator[RemotePlayer]:
    """The runtime's first-legal bot, started and greeted; stopped on leaving."""
    bot_dir, command = BOTS[runtime]
    workdir.mkdir(parents=True)
    modules = workdir / "node_modules"
    modules.mkdir()
    (modules / "backalley-sdk").symlink_to(SDK_JS)
    socket_path = workdir / "bot.sock"
    env = {
        "ARENA_SOCKET": str(socket_path),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "HOME": str(workdir),
        "NODE_PATH": str(modules),
    }
    log = open(workdir / "bot.log", "wb")  # noqa: SIM115 (closed below, after the process)
    proc = subprocess.Popen(
        command, cwd=bot_dir, env=env, stdin=subprocess.DEVNULL, stdout=log,
        stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    channel = grpc.insecure_channel(f"unix:{socket_path}")
    died = lambda: None if proc.poll() is None else f"exit status {proc.returncode}"  # noqa: E731
    try:
        player = RemotePlayer(0, channel, limits, f"bench/first-legal-{runtime}", died)
        try:
            player.hello(0, Rules(), time.monotonic() + STARTUP_S)
        except BotFault as fault:
            tail = (workdir / "bot.log").read_text(errors="replace")[-2000:]
            raise BenchError(f"the {runtime} bot did not start: {fault}\n{tail}") from None
        yield player
    finally:
        channel.close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        log.close()


def startup_ms(runtime: str, workdir: Path, limits: Limits) -> float:
    start = time.perf_counter()
    with started(runtime, workdir, limits):
        return (time.perf_counter() - start) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--decisions", type=positive_int, default=3000, help="per side per round")
    parser.add_argument("--rounds", type=positive_int, default=5, help="interleaved rounds")
    parser.add_argument("--warmup", type=positive_int, default=500, help="untimed calls first")
    parser.add_argument("--block", type=positive_int, default=100, help="calls before switching")
    parser.add_argument("--startups", type=positive_int, default=5, help="starts per runtime")
    parser.add_argument("--seed", type=int, default=0, help="first game seed")
    args = parser.parse_args(argv)
    if shutil.which("node") is None or not (SDK_JS / "node_modules").is_dir():
        print("error: needs node and sdk-js/node_modules (./run installs both)", file=sys.stderr)
        return 2
    limits = Limits()
    runtimes = list(BOTS)
    with tempfile.TemporaryDirectory(prefix="arena-bench-node-") as tmp:
        root = Path(tmp)
        starts: dict[str, list[float]] = {r: [] for r in runtimes}
        for i in range(args.startups):
            for runtime in runtimes if i % 2 == 0 else runtimes[::-1]:
                starts[runtime].append(startup_ms(runtime, root / f"start-{runtime}-{i}", limits))
        sides = {r: Side(r) for r in runtimes}
        with (
            started("python", root / "python", limits) as python,
            started("node", root / "node", limits) as node,
        ):
            players = {"python": python, "node": node}
            positions = {r: Positions(args.seed) for r in runtimes}
            for r in runtimes:
                run_decisions(players[r], positions[r], args.warmup)
            switches = 0
            for rnd in range(args.rounds):
                gc.collect()
                times: dict[str, list[int]] = {r: [] for r in runtimes}
                for lo in range(0, args.decisions, args.block):
                    count = min(args.block, args.decisions - lo)
                    for r in runtimes if switches % 2 == 0 else runtimes[::-1]:
                        times[r] += run_decisions(players[r], positions[r], count)
                    switches += 1
                medians = [f"{r} {sides[r].add_round(times[r]):7.1f}" for r in runtimes]
                print(f"round {rnd + 1}/{args.rounds} median µs: {'  '.join(medians)}", flush=True)
    for r in runtimes:
        median, p99 = summary(sides[r])
        start = statistics.median(starts[r])
        shown = " ".join(f"{s:.0f}" for s in starts[r])
        print(f"{r:>6}: decision median {median:7.1f} µs, p99 {p99:8.1f} µs;"
              f" start to Hello median {start:6.0f} ms ({shown})")  # fmt: skip
    node_median, _ = summary(sides["node"])
    python_median, _ = summary(sides["python"])
    print(f"ratio={node_median / python_median:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
