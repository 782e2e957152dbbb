"""Per-decision round trip through the referee's gRPC client vs a bare gRPC echo.

What is measured, in one run, over the same transport (a Unix socket to a separate process):

* ``decision``: ``RemotePlayer.choose(obs)`` -- the referee's real client -- against a trivial
  SDK bot (it answers ``obs.legal_bids[0]`` / ``obs.legal_plays[0]``) started by the ``none``
  sandbox (``arena.sandbox.ProcessSandbox``). Real positions: games are played with the engine,
  and at each decision the seat to move's observation is sent (one bot answers for every seat: the
  observation carries the seat) and its answer applied. The timed span is the ``choose`` call
  only: the request's encoding, the call, the SDK's parse, ``Observation``, answer check and
  reply, the referee's reading of the answer and its legality check.
* ``echo``: a bare gRPC echo: a unary handler that returns the request's bytes, served like
  the SDK serves (``grpc.server`` with a one-worker thread pool, a registered method; no
  (de)serializers: the SDK's parse of a request is protocol work, and its Bid and Play too
  reply with bytes), called through
  ``channel.unary_unary`` with no (identity) serializers and the ``timeout=`` style of
  ``RemotePlayer``. Its payloads have the exact serialized sizes of the DecisionRequests of the
  decision side, in the same sequence, and between calls the engine steps a game (untimed)
  as it does between decisions: a client that did Python work since its last call answers
  more slowly than one called back to back, and both sides should pay that alike.

The ratio of the two medians is what the protocol layer (both sides' Python) costs on top of
gRPC itself. Why rounds and blocks: the machine is shared and noisy (its load changes within
seconds), so after a warm-up of each side, every round runs ``--decisions`` calls per side in
alternating blocks of ``--block`` calls (order swapped every block); every call's time is kept.
The last line is ``ratio=<median decision / median echo>``; the target is at most 1.3.

Run from the repo root: ``python bench/protocol.py [--decisions N] [--rounds R] [--block B]``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import grpc
from arguments import positive_int
from backalley.v1 import player_pb2 as pb

from arena.bots.limits import Limits
from arena.engine import GameState, Observation, Rules, observe
from arena.referee import BotFault, RemotePlayer
from arena.referee.protocol import RequestEncoder, decision_request
from arena.sandbox import BotProcess, ProcessSandbox

# The cheapest legal bot (first legal option), a real submission beside the benchmarks.
TRIVIAL_BOT = (Path(__file__).resolve().parent / "first_legal" / "bot.py").read_text()

ECHO_SERVICE = "bench.Echo"
ECHO_METHOD = f"/{ECHO_SERVICE}/Echo"
ECHO_SERVER = f'''\
"""A bare gRPC echo on a Unix socket (argv[1]), served the way the SDK serves a bot."""

import signal
import sys
from concurrent import futures

import grpc


def echo(request, context):
    return request


server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
handler = grpc.unary_unary_rpc_method_handler(echo)  # no (de)serializers: raw bytes
server.add_registered_method_handlers({ECHO_SERVICE!r}, {{"Echo": handler}})
if server.add_insecure_port("unix:" + sys.argv[1]) == 0:
    raise SystemExit("error: cannot serve on " + sys.argv[1])
server.start()
signal.signal(signal.SIGTERM, lambda signum, frame: server.stop(grace=None))
server.wait_for_termination()
'''

STARTUP_S = 20.0


class BenchError(RuntimeError):
    """The benchmark could not run as designed."""


# ---------------------------------------------------------------------- positions


class Positions:
    """Real decisions: engine games played on and on (a new seed when one ends)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.state = GameState.new(seed)

    def next(self) -> Observation:
        if self.state.is_terminal():
            self.seed += 1
            self.state = GameState.new(self.seed)
        return observe(self.state, self.state.current_player())

    def apply(self, action: int) -> None:
        self.state.apply(action)


def request_sizes(seed: int, count: int, time_left_ms: int) -> list[int]:
    """Serialized DecisionRequest sizes of the first ``count`` decisions the trivial bot meets.

    It answers the first legal option, which is the engine's ``legal_actions[0]``, so the
    same games played here without the bot give the same requests in the same order (the
    decision side checks that every answer is indeed that one).
    """
    positions = Positions(seed)
    sizes = []
    for _ in range(count):
        obs = positions.next()
        sizes.append(decision_request(obs, time_left_ms).ByteSize())
        positions.apply(obs.legal_actions[0])
    return sizes


# ---------------------------------------------------------------------- the two sides


@dataclass
class Side:
    name: str
    times_ns: list[int] = field(default_factory=list)
    round_medians_us: list[float] = field(default_factory=list)

    def add_round(self, times: list[int]) -> float:
        self.times_ns.extend(times)
        median = statistics.median(times) / 1000
        self.round_medians_us.append(median)
        return median


def run_decisions(player: RemotePlayer, positions: Positions, count: int) -> list[int]:
    """Time ``count`` decisions through ``player.choose``; the games go on between blocks."""
    times = [0] * count
    clock = time.perf_counter_ns
    for i in range(count):
        obs = positions.next()
        start = clock()
        action = player.choose(obs)
        times[i] = clock() - start
        if action != obs.legal_actions[0]:
            raise BenchError(f"the trivial bot answered {action}, not {obs.legal_actions[0]}")
        positions.apply(action)
    return times


EchoCall = Callable[..., bytes]


def run_echoes(
    call: EchoCall, payloads: list[bytes], timeout_s: float, positions: Positions
) -> list[int]:
    """Time one echo per payload. Between calls the engine steps a game untimed, exactly as
    between decisions, so both sides call from the same (cache- and scheduler-) state."""
    times = [0] * len(payloads)
    clock = time.perf_counter_ns
    for i, payload in enumerate(payloads):
        obs = positions.next()
        start = clock()
        reply = call(payload, timeout=timeout_s)
        times[i] = clock() - start
        positions.apply(obs.legal_actions[0])
        if len(reply) != len(payload):
            raise BenchError(f"echo answered {len(reply)} bytes to {len(payload)}")
    return times


# ---------------------------------------------------------------------- processes


def _environment(workdir: Path) -> dict[str, str]:
    """What the ``none`` sandbox gives a bot, so both servers run alike."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "HOME": str(workdir),
    }


@contextlib.contextmanager
def echo_server(workdir: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    workdir.mkdir(parents=True)
    script = workdir / "echo_server.py"
    script.write_text(ECHO_SERVER)
    socket_path = workdir / "echo.sock"
    with open(workdir / "echo.log", "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, script.name, str(socket_path)],
            cwd=workdir,
            env=_environment(workdir),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield proc, socket_path
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@contextlib.contextmanager
def trivial_bot(workdir: Path) -> Iterator[BotProcess]:
    bot_dir = workdir / "bot"
    bot_dir.mkdir(parents=True)
    (bot_dir / "bot.py").write_text(TRIVIAL_BOT)
    sandbox = ProcessSandbox(confined=False)
    process = sandbox.start(bot_dir, workdir / "run", Limits())
    try:
        yield process
    finally:
        process.stop()
        sandbox.close()


def _log_tail(path: Path) -> str:
    with contextlib.suppress(OSError):
        return path.read_text(errors="replace")[-2000:]
    return ""


# ---------------------------------------------------------------------- breakdown


def breakdown(
    seed: int, count: int, time_left_ms: int, repeats: int = 7
) -> list[tuple[str, float]]:
    """In-process cost of each protocol step, in µs per decision over the first ``count``
    decisions (the fastest of ``repeats`` passes: the machine is shared, and other work only
    slows a pass): the referee's encoding, the bot's parse and handler (the SDK's own code,
    the trivial bot inside), and all of ``choose`` with that bot called in-process instead of
    over gRPC. A tight loop, caches warm: in situ (between gRPC calls, the engine and other
    processes running in between) each step was measured at two to three times as much."""
    from arena_sdk.server import _Servicer

    bot_module: dict[str, object] = {"__name__": "trivial_bot"}
    exec(TRIVIAL_BOT, bot_module)
    servicer = _Servicer(bot_module["FirstLegal"]())  # type: ignore[operator]

    positions = Positions(seed)
    observations = []
    for _ in range(count):
        obs = positions.next()
        observations.append(obs)
        positions.apply(obs.legal_actions[0])
    sender = RequestEncoder()
    wire = [sender.encode(obs, time_left_ms) for obs in observations]
    requests = [pb.DecisionRequest.FromString(raw) for raw in wire]

    def handle(request: pb.DecisionRequest) -> bytes:
        if request.legal_bids:
            return servicer.Bid(request, None)  # type: ignore[arg-type]  # no context: no fault
        return servicer.Play(request, None)  # type: ignore[arg-type]

    channel = cast(grpc.Channel, InProcessChannel(handle))
    # Each pass starts afresh: no deal cached in the encoder.
    encoder = [RequestEncoder()]
    player = [RemotePlayer(0, channel, Limits(), "bench/in-process")]
    steps: list[tuple[str, Callable[[int], object]]] = [
        (
            "referee RequestEncoder.encode()",
            lambda i: encoder[0].encode(observations[i], time_left_ms),
        ),
        ("bot DecisionRequest.FromString()", lambda i: pb.DecisionRequest.FromString(wire[i])),
        ("bot handler: Observation, bot, check, reply", lambda i: handle(requests[i])),
        ("all of choose(), the bot in-process", lambda i: player[0].choose(observations[i])),
    ]
    clock = time.perf_counter_ns
    out = []
    for name, step in steps:
        passes = []
        for _ in range(repeats):
            encoder[0] = RequestEncoder()
            player[0] = RemotePlayer(0, channel, Limits(), "bench/in-process")
            start = clock()
            for i in range(count):
                step(i)
            passes.append((clock() - start) / count / 1000)
        out.append((name, min(passes)))
    return out


class InProcessChannel:
    """Just enough of a ``grpc.Channel`` for ``RemotePlayer.choose``: each call is the
    bot's handler on the parsed request, as the SDK's server would run it."""

    def __init__(self, handle: Callable[[pb.DecisionRequest], bytes]) -> None:
        self.handle = handle

    def unary_unary(self, method: str, **_: object) -> Callable[..., bytes]:
        parse = pb.DecisionRequest.FromString
        return lambda request, timeout=None: self.handle(parse(request))


# ---------------------------------------------------------------------- report


def percentile(sorted_values: list[int], q: float) -> float:
    """The ``q`` quantile (0..1) by the nearest-rank method."""
    rank = max(1, min(len(sorted_values), round(q * len(sorted_values) + 0.5)))
    return float(sorted_values[rank - 1])


def summary(side: Side) -> tuple[float, float]:
    times = sorted(side.times_ns)
    return statistics.median(times) / 1000, percentile(times, 0.99) / 1000


@dataclass(frozen=True)
class Plan:
    seed: int
    warmup: int
    decisions: int  # per side per round
    block: int  # calls per side before switching to the other
    rounds: int
    limits: Limits
    payloads: list[bytes]  # echo payloads, warm-up included: the requests' sizes, in order


def measure(plan: Plan, tmp: Path) -> dict[str, Side]:
    """Start both servers, warm both sides up, run the interleaved rounds."""
    limits = plan.limits
    # RemotePlayer's own timeout: the move limit plus the bank (never drawn on here).
    timeout_s = (limits.move_ms + limits.bank_ms) / 1000
    sides = {"decision": Side("decision"), "echo": Side("echo")}
    with trivial_bot(tmp / "bot") as bot, echo_server(tmp / "echo") as (echo_proc, echo_socket):
        bot_channel = grpc.insecure_channel(f"unix:{bot.socket_path}")
        echo_channel = grpc.insecure_channel(f"unix:{echo_socket}")
        try:
            player = RemotePlayer(0, bot_channel, limits, "bench/first-legal", bot.died)
            player.hello(0, Rules(), time.monotonic() + STARTUP_S)
            try:
                grpc.channel_ready_future(echo_channel).result(timeout=STARTUP_S)
            except grpc.FutureTimeoutError:
                tail = _log_tail(tmp / "echo" / "echo.log")
                raise BenchError(f"the echo server did not start:\n{tail}") from None
            echo_call: EchoCall = echo_channel.unary_unary(
                ECHO_METHOD, request_serializer=None, response_deserializer=None
            )
            positions = Positions(plan.seed)
            echo_positions = Positions(plan.seed)  # the same engine work between echoes

            # Warm-up: imports, caches, connections, both servers' thread pools.
            run_decisions(player, positions, plan.warmup)
            run_echoes(echo_call, plan.payloads[: plan.warmup], timeout_s, echo_positions)

            switches = 0
            for rnd in range(plan.rounds):
                gc.collect()
                first = plan.warmup + rnd * plan.decisions
                times: dict[str, list[int]] = {"decision": [], "echo": []}
                for lo in range(first, first + plan.decisions, plan.block):
                    hi = min(lo + plan.block, first + plan.decisions)
                    order = ["decision", "echo"] if switches % 2 == 0 else ["echo", "decision"]
                    switches += 1
                    for name in order:
                        if name == "decision":
                            times[name] += run_decisions(player, positions, hi - lo)
                        else:
                            times[name] += run_echoes(
                                echo_call, plan.payloads[lo:hi], timeout_s, echo_positions
                            )
                medians = [f"{name} {sides[name].add_round(times[name]):7.1f}" for name in sides]
                print(f"round {rnd + 1}/{plan.rounds} median µs: {'  '.join(medians)}", flush=True)
            if echo_proc.poll() is not None:
                raise BenchError("the echo server died during the run")
        finally:
            bot_channel.close()
            echo_channel.close()
    return sides


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--decisions", type=positive_int, default=3000, help="calls per side per round"
    )
    parser.add_argument("--rounds", type=positive_int, default=5, help="interleaved rounds")
    parser.add_argument(
        "--warmup", type=positive_int, default=500, help="untimed calls per side first"
    )
    parser.add_argument(
        "--block", type=positive_int, default=100, help="calls per side before switching"
    )
    parser.add_argument("--seed", type=int, default=0, help="first game seed")
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="also time each protocol step in-process on the same positions",
    )
    args = parser.parse_args(argv)
    if args.seed < 0:
        parser.error("--seed must be >= 0")

    limits = Limits()
    sizes = request_sizes(args.seed, args.warmup + args.rounds * args.decisions, limits.bank_ms)
    zeros = {size: bytes(size) for size in set(sizes)}
    payloads = [zeros[size] for size in sizes]
    plan = Plan(args.seed, args.warmup, args.decisions, args.block, args.rounds, limits, payloads)
    try:
        with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
            sides = measure(plan, Path(tmp))
    except (BenchError, BotFault) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1

    timed = sizes[args.warmup :]
    print()
    print(
        f"{len(timed):,} calls per side, mean payload {statistics.fmean(timed):.1f} bytes "
        f"(min {min(timed)}, max {max(timed)})"
    )
    medians: dict[str, float] = {}
    for name, side in sides.items():
        median, p99 = summary(side)
        medians[name] = median
        per_round = " ".join(f"{m:.0f}" for m in side.round_medians_us)
        print(f"{name:<8} median {median:8.1f} µs  p99 {p99:8.1f} µs  (round medians: {per_round})")
    if args.breakdown:
        print()
        print("in-process, per decision (tight loop, no gRPC):")
        for name, us in breakdown(args.seed, min(len(sizes), 5000), limits.bank_ms):
            print(f"  {name:<44} {us:7.1f} µs")
    print(f"ratio={medians['decision'] / medians['echo']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
