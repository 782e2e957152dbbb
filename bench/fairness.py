"""Can bots not on turn take CPU from the bot on turn? The think time of heuristic bots beside
two opponents spinning in background threads, against the same table with quiet opponents.

In one run, interleaved round by round (the machine is shared and noisy), whole games in the
docker sandbox through ``arena.play.tables.play_game``, seats 0 and 2 the sample ``heuristic`` bot
and seats 1 and 3:

* ``quiet``: ``heuristic`` too;
* ``spinning``: ``heuristic`` with two threads that spin from its start to its end;

each with the bots frozen between their calls (the platform as it is: ``RunningBot.freeze``)
and, for reference, never frozen. The figure is the mean think time of seats 0 and 2 (the
referee's time per call, all their decisions of the round's game), and the ratio
spinning / quiet, frozen: the target is at most 1.2. Beside them: the load average, and the
freezer's cost, as the referee's own time in ``thaw`` + ``freeze`` per call (Hello's apart),
and where each decision's time goes (``Probe``): around every call of seats 0 and 2, the
bot's own CPU time (its cgroup's ``cpuacct``), the time its threads waited for a CPU while
runnable (their ``/proc/TID/schedstat``), the time its CPU quota throttled it (``cpu.stat``),
the CPU the other three seats' bots used meanwhile, how often one of them was not yet
``FROZEN`` as the call began, the referee's own CPU, and the machine's steal time.

With ``--unwaited``, the same tables are also played frozen without waiting for each freeze
to take hold before the next bot is thawed (the platform before it waited), for the wait's
effect and cost in the same run.

Run from the repo root: ``python bench/fairness.py [--rounds R] [--seed S] [--unwaited]``.
Needs a Docker engine, the bot image, and root (the freezer's files are root's). Exit status
1 if the bench could not run; missing the target is not an error.
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

from arena.bots.limits import Limits
from arena.play.bot_specs import BotSpec
from arena.play.tables import GameSettings, play_game
from arena.sandbox import RunningBot, Sandbox, SandboxError, open_sandbox
from arena.sandbox.docker import DockerBot

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
CGROUP_ROOT = Path("/sys/fs/cgroup")
MEASURED_SEATS = (0, 2)
TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")  # /proc/stat's unit


@dataclass
class Cgroup:
    """A container's cgroup v1 files that tell where its time went (the bench's host)."""

    usage: Path  # cpuacct.usage: its CPU time, ns
    stat: Path  # cpu.stat: throttled_time, ns
    tasks: Path  # its threads, for their schedstat (run-queue wait)
    freezer: Path

    @classmethod
    def of(cls, bot: DockerBot) -> Cgroup | None:
        pid = bot.sandbox.client.api.inspect_container(bot.container)["State"]["Pid"]
        dirs = {}
        for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for controller in controllers.split(","):
                dirs[controller] = CGROUP_ROOT / controllers / path.lstrip("/")
        if not {"cpu", "cpuacct", "freezer"} <= dirs.keys():
            return None  # cgroup v2: not measured
        return cls(
            dirs["cpuacct"] / "cpuacct.usage",
            dirs["cpu"] / "cpu.stat",
            dirs["cpu"] / "tasks",
            dirs["freezer"] / "freezer.state",
        )

    def cpu_ns(self) -> int:
        return int(self.usage.read_text())

    def throttled_ns(self) -> int:
        for line in self.stat.read_text().splitlines():
            key, value = line.split()
            if key == "throttled_time":
                return int(value)
        return 0

    def wait_ns(self) -> int:
        total = 0
        for tid in self.tasks.read_text().split():
            try:
                total += int(Path(f"/proc/{tid}/schedstat").read_text().split()[1])
            except (OSError, IndexError):  # a thread that just ended
                continue
        return total

    def frozen(self) -> bool:
        return self.freezer.read_text().strip() == "FROZEN"


def steal_ticks() -> int:
    return int(Path("/proc/stat").read_text().split("\n", 1)[0].split()[8])


@dataclass
class Sample:
    """One call's figures, read after its thaw and before its freeze."""

    wall: float
    cpu_ns: int
    wait_ns: int
    throttled_ns: int
    others_ns: int
    referee_s: float
    steal: int
    others_awake: int = 0

    @classmethod
    def take(cls, own: Cgroup, others: list[Cgroup], *, begin: bool) -> Sample:
        """The clocks are read last as the call begins and first as it ends: the window
        holds the call, not the reading of these files."""
        clocks = () if begin else (time.perf_counter(), time.process_time())
        cpu_ns, wait_ns, throttled_ns = own.cpu_ns(), own.wait_ns(), own.throttled_ns()
        others_ns, awake = sum(o.cpu_ns() for o in others), sum(not o.frozen() for o in others)
        steal = steal_ticks()
        wall, referee_s = clocks or (time.perf_counter(), time.process_time())
        return cls(wall, cpu_ns, wait_ns, throttled_ns, others_ns, referee_s, steal, awake)

    def until(self, end: Sample) -> Sample:
        return Sample(
            end.wall - self.wall,
            end.cpu_ns - self.cpu_ns,
            end.wait_ns - self.wait_ns,
            end.throttled_ns - self.throttled_ns,
            end.others_ns - self.others_ns,
            end.referee_s - self.referee_s,
            end.steal - self.steal,
            self.others_awake,
        )


@dataclass
class Probe:
    """Where the calls of seats 0 and 2 spent their time, over one table's games."""

    cgroups: dict[int, Cgroup] = field(default_factory=dict)  # by seat, this game's
    samples: list[Sample] = field(default_factory=list)

    def found(self, seat: int, bot: RunningBot) -> None:
        if isinstance(bot, DockerBot):
            cgroup = Cgroup.of(bot)
            if cgroup is not None:
                self.cgroups[seat] = cgroup

    def begin(self, seat: int) -> Sample | None:
        if seat not in MEASURED_SEATS or len(self.cgroups) < 4:
            return None
        others = [c for s, c in self.cgroups.items() if s != seat]
        return Sample.take(self.cgroups[seat], others, begin=True)

    def end(self, seat: int, begun: Sample) -> None:
        others = [c for s, c in self.cgroups.items() if s != seat]
        self.samples.append(begun.until(Sample.take(self.cgroups[seat], others, begin=False)))

    def report(self) -> str:
        n = len(self.samples)
        if not n:
            return "not measured (no cgroup v1 cpu, cpuacct and freezer here)"

        def ms(total: float) -> str:
            return f"{total / n:6.2f}"

        samples = self.samples
        return (
            f"wall {ms(sum(x.wall for x in samples) * 1e3)}  "
            f"cpu {ms(sum(x.cpu_ns for x in samples) / 1e6)}  "
            f"threads' cpu-wait {ms(sum(x.wait_ns for x in samples) / 1e6)}  "
            f"throttled {ms(sum(x.throttled_ns for x in samples) / 1e6)}  "
            f"others' cpu {ms(sum(x.others_ns for x in samples) / 1e6)}  "
            f"referee cpu {ms(sum(x.referee_s for x in samples) * 1e3)}  "
            f"steal {ms(sum(x.steal for x in samples) * TICK_MS)} ms; "
            f"an opponent not FROZEN at {sum(x.others_awake > 0 for x in samples)}/{n} calls"
        )


@dataclass
class FreezerClock:
    """The referee's time in freeze() and thaw(), over every bot of a sandbox."""

    seconds: float = 0.0
    calls: int = 0


@dataclass
class MeasuredBot:
    """A started bot whose freezer is timed, or skipped after its Hello (``frozen`` False),
    and whose calls are probed."""

    bot: RunningBot
    seat: int
    frozen: bool
    clock: FreezerClock
    probe: Probe
    wait: bool = True  # for a freeze to take hold before another bot is thawed (the platform)
    hello_done: bool = False
    begun: Sample | None = None

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
        if self.begun is not None:
            self.probe.end(self.seat, self.begun)
            self.begun = None
        if not self.hello_done:  # Hello's: its cgroup is looked up, apart
            self.hello_done = True
            self.probe.found(self.seat, self.bot)
            if self.frozen:
                self.bot.freeze()
            return
        if not self.frozen:
            return
        start = time.perf_counter()
        self.bot.freeze()
        self.clock.seconds += time.perf_counter() - start

    def wait_frozen(self) -> None:
        if not (self.frozen and self.wait):
            return
        start = time.perf_counter()
        self.bot.wait_frozen()
        if self.hello_done:
            self.clock.seconds += time.perf_counter() - start

    def thaw(self) -> None:
        if not self.hello_done:  # waiting for Hello, a bot is frozen once it is up: both kinds
            self.bot.thaw()
            return
        if self.frozen:
            start = time.perf_counter()
            self.bot.thaw()
            self.clock.seconds += time.perf_counter() - start
            self.clock.calls += 1
        self.begun = self.probe.begin(self.seat)

    def stop(self) -> None:
        self.bot.stop()


MODES = {
    "frozen": "frozen between calls",
    "unwaited": "frozen, not waited for",
    "never": "never frozen (reference)",
}


@dataclass
class MeasuredSandbox:
    inner: Sandbox
    mode: str  # of MODES
    clock: FreezerClock = field(default_factory=FreezerClock)
    name: str = "docker"
    probe: Probe = field(default_factory=Probe)  # this game's; replaced by the next
    decisions: int = 0  # every seat's, over its games

    def start(self, bot_dir: Path, workdir: Path, limits: Limits) -> MeasuredBot:
        seat = int(workdir.name.removeprefix("seat"))  # start_table's name for it
        bot = self.inner.start(bot_dir, workdir, limits)
        return MeasuredBot(bot, seat, self.frozen, self.clock, self.probe, self.wait)

    @property
    def frozen(self) -> bool:
        return self.mode != "never"

    @property
    def wait(self) -> bool:
        return self.mode == "frozen"

    def close(self) -> None:
        pass


def spinning_bot(top: Path) -> BotSpec:
    bot = top / "spinning"
    bot.mkdir()
    shutil.copy(HEURISTIC / "bot.py", bot / "heuristic.py")
    (bot / "bot.py").write_text(SPINNING_BOT)
    return BotSpec("spinning", bot)


def think_ms(sandbox: MeasuredSandbox, opponent: BotSpec, seed: int, probe: Probe) -> float:
    """The mean think time of seats 0 and 2 (heuristic) in one game against ``opponent``,
    their calls' figures added to ``probe``."""
    heuristic = BotSpec("heuristic", HEURISTIC)
    probe.cgroups = {}
    sandbox.probe = probe
    game = play_game(
        (heuristic, opponent, heuristic, opponent), seed, sandbox, GameSettings(limits=LIMITS)
    )
    if game.outcome.forfeit is not None:
        raise SystemExit(f"error: a bot faulted: {game.outcome.forfeit}")
    sandbox.decisions += sum(p.timing.decisions for p in game.players)
    timings = [game.players[seat].timing for seat in MEASURED_SEATS]
    return sum(t.total_ms for t in timings) / sum(t.decisions for t in timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--frozen-only", action="store_true", help="skip the never-frozen reference games"
    )
    parser.add_argument(
        "--unwaited",
        action="store_true",
        help="also games frozen without waiting for each freeze to take hold (a reference)",
    )
    args = parser.parse_args()
    try:
        docker = open_sandbox("docker")
    except SandboxError as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(1) from None
    modes = ["frozen", *(["unwaited"] if args.unwaited else [])]
    modes += [] if args.frozen_only else ["never"]
    sandboxes = {mode: MeasuredSandbox(docker, mode) for mode in modes}
    results: dict[tuple[str, str], list[float]] = {}
    probes: dict[tuple[str, str], Probe] = {}
    loads = [os.getloadavg()[0]]
    try:
        with tempfile.TemporaryDirectory(prefix="fairness-") as top:
            quiet, spinning = BotSpec("heuristic", HEURISTIC), spinning_bot(Path(top))
            for round_ in range(args.rounds):
                seed = args.seed + round_
                # quiet, spinning, spinning, quiet, ...: both tables see the same machine
                order = [
                    (opponent, sandboxes[mode])
                    for i, mode in enumerate(modes)
                    for opponent in ((quiet, spinning) if i % 2 == 0 else (spinning, quiet))
                ]
                for opponent, sandbox in order if round_ % 2 == 0 else order[::-1]:
                    probe = probes.setdefault((opponent.label, sandbox.mode), Probe())
                    ms = think_ms(sandbox, opponent, seed, probe)
                    results.setdefault((opponent.label, sandbox.mode), []).append(ms)
                    print(
                        f"round {round_ + 1}: {opponent.label:9} opponents, "
                        f"{MODES[sandbox.mode]:26} "
                        f"{ms:7.2f} ms per decision  load {os.getloadavg()[0]:.2f}",
                        flush=True,
                    )
                    loads.append(os.getloadavg()[0])
    finally:
        docker.close()

    def mean(label: str, mode: str) -> float:
        return statistics.fmean(results[label, mode])

    print()
    for mode in modes:
        q, s = mean("heuristic", mode), mean("spinning", mode)
        print(f"{MODES[mode]:26} quiet {q:6.2f} ms  spinning {s:6.2f} ms  ratio {s / q:.2f}")
    print("\nper call of seats 0 and 2, mean ms:")
    for mode in modes:
        for label in ("heuristic", "spinning"):
            what = f"{'quiet' if label == 'heuristic' else label}, {mode}"
            print(f"  {what:24} {probes[label, mode].report()}")
    for mode in modes[: 2 if args.unwaited else 1]:
        clock, decisions = sandboxes[mode].clock, sandboxes[mode].decisions
        per_call_us = clock.seconds / clock.calls * 1e6 if clock.calls else float("nan")
        print(
            f"freezer, {mode}: {per_call_us:.0f} us of the referee's time per call (thaw + "
            f"freeze{' + the wait' if mode == 'frozen' else ''}), over {clock.calls} calls "
            f"(notifications included): {clock.seconds / max(1, decisions) * 1e6:.0f} us per "
            "decision"
        )
    if not args.frozen_only:
        quiet_cost = mean("heuristic", "frozen") - mean("heuristic", "never")
        print(f"quiet table, frozen minus never frozen: {quiet_cost:+.2f} ms per decision")
    print(
        f"load average (1 min): {min(loads):.2f} to {max(loads):.2f} during the run, "
        f"{os.cpu_count()} CPUs"
    )
    ratio = mean("spinning", "frozen") / mean("heuristic", "frozen")
    print(f"ratio={ratio:.2f} (target <= {TARGET})")


if __name__ == "__main__":
    main()
