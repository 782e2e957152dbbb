"""The stdio bridge's cost per decision, beside native gRPC, measured in the same run.

Three bots answer the first legal option, each started by the ``none`` sandbox from its own
directory and called through the referee's real client (``RemotePlayer.choose``) on the
same real positions (``bench/protocol.py``'s ``Positions``):

* ``native``: the Python SDK (``bench/first_legal``), gRPC end to end;
* ``stdio-python``: a Python program reading and writing JSON lines, behind
  ``python3 -m arena_sdk.stdio_bridge`` (``protocol = "stdio"`` in its ``bot.toml``);
* ``stdio-cpp``: the same in C++ (``sample_bots/random_cpp``'s parser, answering
  ``legal[0]``), built with this host's g++ (skipped without one).

Rounds alternate the bots in blocks (the machine is shared and noisy); every call's time is
kept. The last line is ``ratio=<median stdio-python / median native>``: what the bridge's
extra hop (JSON encoding, a pipe each way, the program's parse) costs per decision.

Run from the repo root: ``python bench/stdio_bridge.py [--decisions N] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
from protocol import BenchError, Positions, Side, run_decisions  # bench/protocol.py's

from arena.bots.limits import Limits
from arena.engine import Rules
from arena.referee import RemotePlayer
from arena.sandbox import BotProcess, ProcessSandbox

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
STDIO_TOML = '{run}\nprotocol = "stdio"\n'
FIRST_LEGAL_PY = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        print('{"name": "first-legal"}', flush=True)
    elif kind in ("bid", "play"):
        key = "bid" if kind == "bid" else "card"
        print(json.dumps({key: message["legal"][0]}), flush=True)
"""
STARTUP_S = 30.0


def native_dir(work: Path) -> Path:
    bot = work / "native"
    bot.mkdir()
    shutil.copyfile(BENCH / "first_legal" / "bot.py", bot / "bot.py")
    return bot


def stdio_python_dir(work: Path) -> Path:
    bot = work / "stdio-python"
    bot.mkdir()
    (bot / "first.py").write_text(FIRST_LEGAL_PY)
    (bot / "bot.toml").write_text(STDIO_TOML.format(run='run = ["python3", "first.py"]'))
    return bot


def stdio_cpp_dir(work: Path) -> Path | None:
    """random_cpp made to answer legal[0], built here; None without g++."""
    if shutil.which("g++") is None:
        return None
    bot = work / "stdio-cpp"
    bot.mkdir()
    source = (ROOT / "sample_bots" / "random_cpp" / "bot.cpp").read_text()
    first = source.replace("options[rng() % options.size()]", "options[0]")
    if first == source:
        raise BenchError("random_cpp's pick is not where this bench expects it")
    (bot / "bot.cpp").write_text(first)
    subprocess.run(["g++", "-O2", "-o", str(bot / "bot"), str(bot / "bot.cpp")], check=True)
    (bot / "bot.toml").write_text(STDIO_TOML.format(run='run = ["./bot"]'))
    return bot


@contextlib.contextmanager
def started(bot_dir: Path, sandbox: ProcessSandbox, limits: Limits) -> Iterator[RemotePlayer]:
    process: BotProcess = sandbox.start(bot_dir, bot_dir.parent / f"{bot_dir.name}-run", limits)
    channel = grpc.insecure_channel(f"unix:{process.socket_path}")
    try:
        player = RemotePlayer(0, channel, limits, bot_dir.name, process.died)
        player.hello(0, Rules(), time.monotonic() + STARTUP_S)
        yield player
    finally:
        channel.close()
        process.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--decisions", type=int, default=2000, help="calls per bot per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--block", type=int, default=100, help="calls per bot in a row")
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    limits = Limits(move_ms=60_000, bank_ms=60_000)  # never the subject here
    sandbox = ProcessSandbox(confined=False)
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-stdio-") as tmp,
        contextlib.ExitStack() as stack,
    ):
        work = Path(tmp)
        dirs = [native_dir(work), stdio_python_dir(work)]
        cpp = stdio_cpp_dir(work)
        if cpp is None:
            print("stdio-cpp: skipped (no g++ here)")
        else:
            dirs.append(cpp)
        players = {d.name: stack.enter_context(started(d, sandbox, limits)) for d in dirs}
        positions = {name: Positions(args.seed) for name in players}
        sides = {name: Side(name) for name in players}
        for name, player in players.items():  # warm-up: imports, caches, the connection
            run_decisions(player, positions[name], args.warmup)
        for rnd in range(args.rounds):
            gc.collect()
            times: dict[str, list[int]] = {name: [] for name in players}
            for block in range(0, args.decisions, args.block):
                count = min(args.block, args.decisions - block)
                order = list(players) if (block // args.block) % 2 == 0 else list(players)[::-1]
                for name in order:
                    times[name] += run_decisions(players[name], positions[name], count)
            medians = [f"{name} {sides[name].add_round(times[name]):7.1f}" for name in players]
            print(f"round {rnd + 1}/{args.rounds} median µs: {'  '.join(medians)}", flush=True)
    sandbox.close()
    overall = {name: statistics.median(side.times_ns) / 1000 for name, side in sides.items()}
    for name, median in overall.items():
        print(f"{name:13} median {median:7.1f} µs per decision")
    extra = overall["stdio-python"] - overall["native"]
    print(f"the bridge adds {extra:.1f} µs per decision")
    print(f"ratio={overall['stdio-python'] / overall['native']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
