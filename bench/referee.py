"""The referee's own CPU per decision, beside a bare gRPC client's per call.

The referee's real client, ``RemotePlayer.choose``, asks the cheapest legal bot
(``bench/first_legal``, the Python SDK) on real positions (engine games; one bot answers for
every seat), the bot started by the ``none`` sandbox and, where this machine can confine
bots, by the ``process`` one, whose bot is thawed for each call and frozen after it as in a
game (the freezer's writes are the referee's CPU too). The reference is a bare gRPC echo
(``protocol.py``'s server) called through ``channel.unary_unary`` with bytes of the
requests' sizes, as ``RemotePlayer`` calls: what gRPC itself costs a client per call.

Each block's positions are made before it is timed (the first legal answer is the engine's
``legal_actions[0]``, so they are known in advance), so only the calls count: the request's
encoding, the call, the answer's reading and legality check, the freezer. CPU is this
process's (``time.process_time``: every thread, gRPC's own included) over each block; blocks
of ``--block`` calls alternate between the sides (order swapped each time), and the figure
per side is the median of its rounds' CPU per call. The last line is
``ratio=<the referee's CPU per decision / the echo client's per call>`` (``none`` sandbox).

Run from the repo root: ``python bench/referee.py [--decisions N] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import grpc
from arguments import positive_int
from protocol import ECHO_METHOD, STARTUP_S, BenchError, Positions, _log_tail, echo_server
from sdk_decision import BOTS, bot_copy, sandboxes, started_bot  # bench/sdk_decision.py's

from arena.bots.limits import Limits
from arena.engine import Observation
from arena.referee import BotFault, RemotePlayer
from arena.referee.protocol import decision_request
from arena.sandbox import ProcessSandbox, SandboxError


def next_block(positions: Positions, count: int) -> list[Observation]:
    """The next ``count`` positions a first-legal bot meets, made ahead of the timed calls."""
    block = []
    for _ in range(count):
        obs = positions.next()
        block.append(obs)
        positions.apply(obs.legal_actions[0])
    return block


def timed_cpu(run: Callable[[], None]) -> int:
    before = time.process_time_ns()
    run()
    return time.process_time_ns() - before


def measure(
    sandbox: ProcessSandbox, work: Path, args: argparse.Namespace, limits: Limits
) -> dict[str, list[float]]:
    timeout_s = (limits.move_ms + limits.bank_ms) / 1000
    per_round: dict[str, list[float]] = {"referee": [], "echo": []}
    with contextlib.ExitStack() as stack:
        bot_dir = bot_copy("first-legal", work, None)
        _, player = stack.enter_context(started_bot(sandbox, bot_dir, work, limits))
        echo_proc, echo_socket = stack.enter_context(echo_server(work / "echo"))
        channel = grpc.insecure_channel(f"unix:{echo_socket}")
        stack.callback(channel.close)
        try:
            grpc.channel_ready_future(channel).result(timeout=STARTUP_S)
        except grpc.FutureTimeoutError:
            tail = _log_tail(work / "echo" / "echo.log")
            raise BenchError(f"the echo server did not start:\n{tail}") from None
        call: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
            ECHO_METHOD, request_serializer=None, response_deserializer=None
        )
        positions = Positions(args.seed)

        def decide(block: list[Observation], player: RemotePlayer = player) -> None:
            for obs in block:
                if player.choose(obs) != obs.legal_actions[0]:
                    raise BenchError("the first-legal bot answered another option")

        def echo(payloads: list[bytes]) -> None:
            for payload in payloads:
                call(payload, timeout=timeout_s)

        def payloads(block: list[Observation]) -> list[bytes]:
            return [bytes(decision_request(obs, limits.bank_ms).ByteSize()) for obs in block]

        warm = next_block(positions, args.warmup)
        decide(warm)
        echo(payloads(warm))
        switches = 0
        for rnd in range(args.rounds):
            cpu = {"referee": 0, "echo": 0}
            count = 0
            for _ in range(0, args.decisions, args.block):
                block = next_block(positions, args.block)
                sent = payloads(block)
                order = ["referee", "echo"] if switches % 2 == 0 else ["echo", "referee"]
                switches += 1
                for side in order:
                    if side == "referee":
                        cpu[side] += timed_cpu(functools.partial(decide, block))
                    else:
                        cpu[side] += timed_cpu(functools.partial(echo, sent))
                count += len(block)
            for side, ns in cpu.items():
                per_round[side].append(ns / count / 1000)
            shown = "  ".join(f"{side} {values[-1]:6.1f}" for side, values in per_round.items())
            print(f"round {rnd + 1}/{args.rounds} CPU µs per call: {shown}", flush=True)
        if echo_proc.poll() is not None:
            raise BenchError("the echo server died during the run")
    return per_round


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--decisions", type=positive_int, default=2000, help="per side per round")
    parser.add_argument("--rounds", type=positive_int, default=3, help="rounds")
    parser.add_argument("--warmup", type=positive_int, default=300, help="untimed calls first")
    parser.add_argument("--block", type=positive_int, default=100, help="calls per side in turn")
    parser.add_argument("--seed", type=int, default=0, help="first game seed")
    parser.add_argument("--sandbox", default="none,process", help="comma-separated: none, process")
    args = parser.parse_args(argv)
    asked = [s for s in args.sandbox.split(",") if s]
    if not asked or any(s not in ("none", "process") for s in asked):
        parser.error("--sandbox takes none and/or process")
    assert "first-legal" in BOTS
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    results: dict[str, dict[str, list[float]]] = {}
    try:
        for name, sandbox in sandboxes(asked):
            print(f"-- {name} sandbox", flush=True)
            try:
                with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
                    results[name] = measure(sandbox, Path(tmp), args, Limits())
            finally:
                sandbox.close()
    except (BenchError, BotFault, SandboxError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if not results:
        print("error: no sandbox could run", file=sys.stderr)
        return 1
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()
    for name, sides in results.items():
        figures = "  ".join(f"{side} {statistics.median(v):.1f}" for side, v in sides.items())
        print(f"{name:<8} CPU µs per call (median of rounds): {figures}")
    first = results.get("none") or next(iter(results.values()))
    ratio = statistics.median(first["referee"]) / statistics.median(first["echo"])
    print(f"ratio={ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
