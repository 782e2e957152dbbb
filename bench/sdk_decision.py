"""A bot's own CPU per decision through the real SDK, beside a bare gRPC echo server's per call.

Two sample bots, each the real SDK serving over a Unix socket, called by the referee's real
client (``RemotePlayer.choose``) on real positions (engine games; one bot answers for every
seat, its answers applied): ``first-legal`` (``bench/first_legal``: the SDK's own cost, almost
nothing of the bot's) and ``heuristic`` (``sample_bots/heuristic``: a bot that reads its cards,
the unseen ones, the tricks). Each is started by the ``none`` sandbox and, where this machine
can confine bots, the ``process`` one (bubblewrap, its own cgroup, frozen between its calls as
in a game). The reference is the echo server of ``protocol.py`` (served as the SDK serves:
one worker, a registered method, bytes both ways), called with payloads of the requests'
sizes: what gRPC itself costs a server per call.

CPU is counted per process from the kernel: each server is put in a ``cpuacct`` cgroup of its
own where this process may make one (root, cgroup v1; the ``process`` sandbox's bots have
theirs), in nanoseconds; else ``/proc/PID/stat`` in clock ticks (10 ms: use large blocks).
Only the CPU a server spends during its own block of calls counts. Blocks of ``--block``
calls rotate between the servers (the first one of each round moves on), because the
machine is shared and its load changes within seconds; the figure per server is the median
of its rounds' CPU per call.

``--sdk DIR`` runs the bots on another SDK: its ``arena_sdk`` and ``backalley`` packages are
copied beside each bot's ``bot.py``, where Python finds them first (how the README's
before-and-after figures were taken: the old revision's ``sdk/``). The last line is
``ratio=<first-legal's CPU per decision / the echo's per call>`` (the ``none`` sandbox's).

Run from the repo root: ``python bench/sdk_decision.py [--decisions N] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from arguments import positive_int
from protocol import (  # bench/protocol.py's
    ECHO_METHOD,
    STARTUP_S,
    BenchError,
    Positions,
    _log_tail,
    echo_server,
)

from arena.bots.limits import Limits
from arena.engine import Rules
from arena.play.tables import CHANNEL_OPTIONS
from arena.referee import BotFault, RemotePlayer
from arena.referee.protocol import decision_request
from arena.sandbox import ProcessSandbox, SandboxError, dial_path
from arena.sandbox.process import BotProcess

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
BOTS = {
    "first-legal": BENCH / "first_legal",
    "heuristic": ROOT / "sample_bots" / "heuristic",
}
CPUACCT = Path("/sys/fs/cgroup/cpuacct")
TICK_NS = 1_000_000_000 // os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------- CPU counters


class CpuCounter:
    """A process's CPU time in ns: from a cgroup of its own if one can be made, else
    ``/proc/PID/stat`` (its threads, dead ones included, in clock ticks)."""

    def __init__(self, pid: int, read: Callable[[], int | None] | None = None) -> None:
        self.pid = pid
        self.cgroup: Path | None = None
        self.read_cgroup = read
        if read is None and os.geteuid() == 0 and (CPUACCT / "cpuacct.usage").exists():
            cgroup = CPUACCT / f"arena-bench-{os.getpid()}-{pid}"
            try:
                cgroup.mkdir()
                (cgroup / "cgroup.procs").write_text(str(pid))
                self.cgroup = cgroup
            except OSError:
                with contextlib.suppress(OSError):
                    cgroup.rmdir()

    @property
    def precise(self) -> bool:
        return self.cgroup is not None or self.read_cgroup is not None

    def ns(self) -> int:
        if self.read_cgroup is not None:
            value = self.read_cgroup()
            if value is None:
                raise BenchError("the bot's cgroup could not be read")
            return value
        if self.cgroup is not None:
            return int((self.cgroup / "cpuacct.usage").read_text())
        fields = Path(f"/proc/{self.pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) * TICK_NS  # utime, stime

    def close(self) -> None:
        if self.cgroup is not None:
            # Its processes go back to the root group, then the group goes.
            with contextlib.suppress(OSError):
                for pid in (self.cgroup / "cgroup.procs").read_text().split():
                    with contextlib.suppress(OSError):
                        (CPUACCT / "cgroup.procs").write_text(pid)
            with contextlib.suppress(OSError):
                self.cgroup.rmdir()


# ---------------------------------------------------------------------- servers


@dataclass
class Server:
    """One server under measure: how to make ``count`` calls, and its CPU counter."""

    name: str
    calls: Callable[[int], None]
    cpu: CpuCounter
    per_round_us: list[float] = field(default_factory=list)
    _cpu_ns: int = 0
    _count: int = 0

    def block(self, count: int) -> None:
        before = self.cpu.ns()
        self.calls(count)
        self._cpu_ns += self.cpu.ns() - before
        self._count += count

    def end_round(self) -> float:
        per_call = self._cpu_ns / max(1, self._count) / 1000
        self.per_round_us.append(per_call)
        self._cpu_ns = self._count = 0
        return per_call


def decisions(player: RemotePlayer, positions: Positions) -> Callable[[int], None]:
    def run(count: int) -> None:
        for _ in range(count):
            obs = positions.next()
            positions.apply(player.choose(obs))

    return run


def echoes(
    call: Callable[..., bytes], positions: Positions, limits: Limits
) -> Callable[[int], None]:
    timeout_s = (limits.move_ms + limits.bank_ms) / 1000

    def run(count: int) -> None:
        for _ in range(count):
            obs = positions.next()
            payload = bytes(decision_request(obs, limits.bank_ms).ByteSize())
            call(payload, timeout=timeout_s)
            positions.apply(obs.legal_actions[0])

    return run


def bot_copy(name: str, work: Path, sdk: Path | None) -> Path:
    """The bot's directory, with ``sdk``'s packages beside it if one is given."""
    where = work / f"bot-{name}"
    shutil.copytree(BOTS[name], where)
    if sdk is not None:
        for package in ("arena_sdk", "backalley"):
            shutil.copytree(
                sdk / package, where / package, ignore=shutil.ignore_patterns("__pycache__")
            )
    return where


@contextlib.contextmanager
def started_bot(
    sandbox: ProcessSandbox, bot_dir: Path, work: Path, limits: Limits
) -> Iterator[tuple[BotProcess, RemotePlayer]]:
    """A bot started and greeted as a game's referee does: its socket checked, a channel
    dialled to it, frozen between calls where its sandbox has a freezer."""
    bot = sandbox.start(bot_dir, work / f"run-{bot_dir.name}", limits)
    channel: grpc.Channel | None = None
    fd = -1
    try:
        fd = bot.open_socket(time.monotonic() + STARTUP_S)
        channel = grpc.insecure_channel(f"unix:{dial_path(fd)}", CHANNEL_OPTIONS)
        player = RemotePlayer(
            0, channel, limits, f"bench/{bot_dir.name}", bot.died, bot.freeze, bot.thaw,
            wait_frozen=bot.wait_frozen,
        )  # fmt: skip
        player.hello(0, Rules(), time.monotonic() + STARTUP_S)
        yield bot, player
    finally:
        if channel is not None:
            channel.close()
        bot.stop()
        if fd >= 0:
            os.close(fd)


def bot_cpu(bot: BotProcess) -> CpuCounter:
    """The bot's CPU counter: its sandbox's cgroup if it has one, else one of its own."""
    cgroup = bot.cgroup
    if cgroup is not None and cgroup.freezer.cpu is not None:
        freezer = cgroup.freezer

        def read() -> int | None:
            ms = freezer.cpu_ms()
            return None if ms is None else int(ms * 1e6)

        return CpuCounter(bot.proc.pid, read)
    return CpuCounter(bot.proc.pid)


def sandboxes(asked: list[str]) -> Iterator[tuple[str, ProcessSandbox]]:
    for name in asked:
        try:
            yield name, ProcessSandbox(confined=name == "process")
        except SandboxError as e:
            print(f"{name}: skipped ({e})", flush=True)


@dataclass(frozen=True)
class Plan:
    seed: int
    warmup: int
    decisions: int  # per server per round
    block: int
    rounds: int
    limits: Limits
    sdk: Path | None


def measure(plan: Plan, sandbox: ProcessSandbox, work: Path) -> dict[str, Server]:
    """The servers' CPU per call, in rotating blocks (the echo's included)."""
    limits = plan.limits
    with contextlib.ExitStack() as stack:
        servers: list[Server] = []
        for i, name in enumerate(BOTS):
            bot, player = stack.enter_context(
                started_bot(sandbox, bot_copy(name, work, plan.sdk), work, limits)
            )
            cpu = bot_cpu(bot)
            stack.callback(cpu.close)
            servers.append(Server(name, decisions(player, Positions(plan.seed + 1000 * i)), cpu))
        echo_proc, echo_socket = stack.enter_context(echo_server(work / "echo"))
        echo_channel = grpc.insecure_channel(f"unix:{echo_socket}")
        stack.callback(echo_channel.close)
        try:
            grpc.channel_ready_future(echo_channel).result(timeout=STARTUP_S)
        except grpc.FutureTimeoutError:
            raise BenchError(
                f"the echo server did not start:\n{_log_tail(work / 'echo' / 'echo.log')}"
            ) from None
        call: grpc.UnaryUnaryMultiCallable[bytes, bytes] = echo_channel.unary_unary(
            ECHO_METHOD, request_serializer=None, response_deserializer=None
        )
        echo_cpu = CpuCounter(echo_proc.pid)
        stack.callback(echo_cpu.close)
        servers.append(Server("echo", echoes(call, Positions(plan.seed), limits), echo_cpu))
        if not all(s.cpu.precise for s in servers):
            print("(CPU in clock ticks: no cgroup of their own for some servers)", flush=True)

        for server in servers:  # imports, caches, connections, thread pools
            server.calls(plan.warmup)
        for rnd in range(plan.rounds):
            turn = rnd
            for _ in range(0, plan.decisions, plan.block):
                for k in range(len(servers)):
                    servers[(turn + k) % len(servers)].block(plan.block)
                turn += 1
            shown = "  ".join(f"{s.name} {s.end_round():6.1f}" for s in servers)
            print(f"round {rnd + 1}/{plan.rounds} CPU µs per call: {shown}", flush=True)
        if echo_proc.poll() is not None:
            raise BenchError("the echo server died during the run")
        return {s.name: s for s in servers}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--decisions", type=positive_int, default=2000, help="calls per server per round"
    )
    parser.add_argument("--rounds", type=positive_int, default=3, help="rounds")
    parser.add_argument(
        "--warmup", type=positive_int, default=300, help="untimed calls per server first"
    )
    parser.add_argument(
        "--block", type=positive_int, default=250, help="calls per server before the next"
    )
    parser.add_argument("--seed", type=int, default=0, help="first game seed")
    parser.add_argument(
        "--sandbox",
        default="none,process",
        help="comma-separated: none, process (if it can confine)",
    )
    parser.add_argument("--sdk", type=Path, help="an SDK directory (with arena_sdk/) for the bots")
    args = parser.parse_args(argv)
    asked = [s for s in args.sandbox.split(",") if s]
    if not asked or any(s not in ("none", "process") for s in asked):
        parser.error("--sandbox takes none and/or process")
    if args.sdk is not None and not (args.sdk / "arena_sdk" / "__init__.py").is_file():
        parser.error(f"--sdk {args.sdk}: no arena_sdk package there")
    plan = Plan(args.seed, args.warmup, args.decisions, args.block, args.rounds, Limits(), args.sdk)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    results: dict[str, dict[str, Server]] = {}
    try:
        for name, sandbox in sandboxes(asked):
            print(f"-- {name} sandbox", flush=True)
            try:
                with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
                    results[name] = measure(plan, sandbox, Path(tmp))
            finally:
                sandbox.close()
    except (BenchError, BotFault, SandboxError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()
    for name, servers in results.items():
        figures = "  ".join(
            f"{s.name} {statistics.median(s.per_round_us):.1f}" for s in servers.values()
        )
        print(f"{name:<8} CPU µs per call (median of rounds): {figures}")
    if not results:
        print("error: no sandbox could run", file=sys.stderr)
        return 1
    first = results.get("none") or next(iter(results.values()))
    bot = statistics.median(first["first-legal"].per_round_us)
    echo = statistics.median(first["echo"].per_round_us)
    print(f"ratio={bot / echo:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
