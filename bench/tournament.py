"""The CPU spent in bots' turns, and matches per minute with 1, 2 and 4 workers.

The headline (``share=``): ``--share-workers`` workers play ``--share-matches-per-worker``
matches each between four copies of the heuristic sample bot that time themselves (``MEASURED``:
each prints its process's CPU at its first decision, its decisions' own CPU and all its CPU;
the last such line of each stored log is read). Printed: each match's CPU split into the bots'
turns, their start, their gRPC and SDK around the turns, the workers' start and their matches,
the Docker engine and PostgreSQL; the share is the bots' turns over all of it (the physical
limit is 100%). ``--only share`` or ``--only ratio`` runs one part.

The throughput, with bots that only wait:

The bots think a fixed time per decision (``--think-ms``, 20 ms: ``bench/thinking/bot.py``
sleeps, then plays its first or last legal option), so a worker's pace is set by the bots,
and W workers should finish W times as many matches per minute -- unless the platform is
the bottleneck. For each worker count W (``--workers``, 1,2,4):

* a fresh PostgreSQL schema (``--url``) holds four distinct active versions of the bot and
  a round-robin tournament (``arena.competition.round_robin``, pairs) of
  ``W * --matches-per-worker`` matches, each a duplicate pair of full games;
* W separate ``arena worker --until-idle --concurrency 1 --sandbox SANDBOX --tournament T``
  processes play it, as on a real deployment, and the wall time runs from the first one's
  start to the last one's exit;
* every match must have ended ``done`` without a forfeit (else the bench fails), and the
  throughput is the matches done per minute of that wall time.

The tournament's limits are the defaults but a 60 s start-up (a bench measures, it does
not referee; under others' load four containers can take more than 10 s to answer).

Printed per W: the matches, the wall time, matches per minute against what the bots alone
would allow (each match's decisions times the think time: its floor), each match's time
(from its claim, or, for a match claimed ahead, from the end of its slot's match before),
when the workers got their first match and exited, where the CPU went over the run (from
/proc: the whole machine, the workers, the Docker engine, PostgreSQL; from the cgroups of
the bot containers that these workers started, sampled while they live; the rest is
everything else, others' work included -- the machine is shared), the CPU per match, the
load average and how long some task waited for a CPU (/proc/pressure/cpu). With the
process sandbox the bots' CPU is not told apart (``?``). The last line is
``ratio=<matches/min with the most workers / with the fewest>`` (4 / 1 by default); the
target is at least 3.5. ``--verbose`` adds a line per match.

``--profile DIR`` runs each worker under cProfile (every thread, CPU time) and prints the
functions that took the most of the workers' CPU; the profiler slows the workers, so its
throughput is not comparable.

Run from the repo root: ``python bench/tournament.py``. Needs PostgreSQL (default: the test
database of ``.ci/postgres``, or ``$ARENA_BENCH_POSTGRES_URL``), and for the default
sandbox a Docker engine and the bot image (``arena image build``). Exit status 1 if the
bench could not run or a match did not end ``done``; missing the target is not an error.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import json
import math
import os
import pstats
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arguments import positive_int
from sqlalchemy import create_engine, exc, text
from sqlalchemy.engine import make_url

from arena.bots.limits import Limits
from arena.bots.submission import content_hash, pack
from arena.competition import round_robin
from arena.engine.replay import verify_replay
from arena.league.stored_files import code_key
from arena.play.bot_specs import BotSpec
from arena.play.tables import GameSettings, play_game
from arena.sandbox import SandboxError, open_sandbox
from arena.sandbox.docker import OWNER_LABEL
from arena.store import MatchSpec, MatchStatus, Store, StoreError, VersionStatus, open_store

DEFAULT_URL = "postgresql+psycopg://arena:arena@127.0.0.1:5432/arena_test"
TARGET = 3.5
TOURNAMENT = "bench"
BOT = Path(__file__).resolve().parent / "thinking" / "bot.py"
HEURISTIC = Path(__file__).resolve().parents[1] / "sample_bots" / "heuristic" / "bot.py"
CPU_LINE = "bench-cpu"  # what a measured heuristic bot prints, then its figures
# The heuristic sample bot, timing itself: appended to its code in place of its ``run``. It
# prints its figures at the last card of each deal (the last line of its log counts): its
# process's CPU at its first decision (Python's start, imports, the SDK's server, Hello),
# its decisions' own CPU (the thread that runs them, inside bid and play), all its CPU.
MEASURED = """
import time as _time


class Measured(HeuristicBot):
    name = NAME
    boot_s = -1.0
    think_s = 0.0
    decisions = 0

    def bid(self, obs: Observation) -> Bid:
        start = self._begin()
        answer = super().bid(obs)
        self._end(start, last=False)
        return answer

    def play(self, obs: Observation) -> Card:
        start = self._begin()
        answer = super().play(obs)
        self._end(start, last=len(obs.hand) == 1)
        return answer

    def _begin(self) -> float:
        if self.boot_s < 0:
            self.boot_s = _time.process_time()
        return _time.thread_time()

    def _end(self, start: float, last: bool) -> None:
        self.think_s += _time.thread_time() - start
        self.decisions += 1
        if last:
            print(
                f"CPU_LINE boot_ms={self.boot_s * 1000:.1f} think_ms={self.think_s * 1000:.1f}"
                f" process_ms={_time.process_time() * 1000:.1f} decisions={self.decisions}"
            )


if __name__ == "__main__":
    run(Measured())
""".replace("CPU_LINE", CPU_LINE)
WARMUP_BOT = Path(__file__).resolve().parent / "first_legal"
# Four distinct versions (their code differs): one plays the first legal option, three the
# last. Never two of the first: a table of them passes every deal, and all-pass deals are
# dealt again (1324 decisions a game instead of 824), which would make some matches longer.
ENTRIES = (("think-first", 0), ("think-last", -1), ("think-last-2", -1), ("think-last-3", -1))
# For the CPU share: four copies of the heuristic bot under distinct names.
HEURISTIC_ENTRIES = tuple(f"heuristic-{i}" for i in range(1, 5))
# The default limits but a longer start-up: a bench measures, it does not referee, and bots
# starting on a shared two-core machine under others' load can take more than 10 s. No table
# pace: at the ladder's (50 ms) every decision would last a pace at least, whatever the bots'
# time, and the platform's own cost is what is measured.
LIMITS = {"startup_ms": 60_000, "pace_ms": 0}
PROFILED = "--profiled-worker"  # internal: this file run as a worker under cProfile
CLK_TCK = os.sysconf("SC_CLK_TCK")
DOCKER_ENGINE = ("dockerd", "containerd")


class BenchError(RuntimeError):
    pass


# ---------------------------------------------------------------------- CPU accounting


@dataclass(frozen=True)
class Cpu:
    """Cumulative CPU seconds, read at one instant."""

    busy: float  # every core, not idle (/proc/stat): everyone's work, others' too
    workers: float  # this process's reaped children: the workers (and process-sandbox bots)
    engine: float  # dockerd and containerd (with what they reaped), running shims
    postgres: float  # every postgres process, with what the postmaster reaped
    waiting: float | None  # time some runnable task waited for a CPU (/proc/pressure/cpu)

    @staticmethod
    def now() -> Cpu:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
        user, nice, system, _idle, _iowait, irq, softirq = (int(f) for f in fields[:7])
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        engine = postgres = 0.0
        for name, own, reaped in _processes():
            if name in DOCKER_ENGINE:
                engine += own + reaped
            elif name.startswith("containerd-shim"):
                engine += own  # what a shim reaped is its container's
            elif name == "postgres":
                postgres += own + reaped
        waiting = None
        with contextlib.suppress(OSError, ValueError, IndexError):  # no PSI in this kernel
            some = Path("/proc/pressure/cpu").read_text().split("\n", 1)[0]
            waiting = int(some.rsplit("total=", 1)[1]) / 1e6
        return Cpu(
            busy=(user + nice + system + irq + softirq) / CLK_TCK,
            workers=children.ru_utime + children.ru_stime,
            engine=engine,
            postgres=postgres,
            waiting=waiting,
        )

    def since(self, start: Cpu) -> Cpu:
        return Cpu(
            self.busy - start.busy,
            self.workers - start.workers,
            self.engine - start.engine,
            self.postgres - start.postgres,
            None if self.waiting is None or start.waiting is None else self.waiting - start.waiting,
        )


def _processes() -> Iterator[tuple[str, float, float]]:
    """(name, own CPU s, reaped children's CPU s) of every process readable in /proc."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            line = stat.read_text()
        except OSError:  # gone meanwhile
            continue
        name = line[line.index("(") + 1 : line.rindex(")")]
        rest = line[line.rindex(")") + 2 :].split()
        utime, stime, cutime, cstime = (int(f) for f in rest[11:15])
        yield name, (utime + stime) / CLK_TCK, (cutime + cstime) / CLK_TCK


class ContainerCpu:
    """The CPU of the bot containers that given processes started, from their cgroups,
    sampled while they live (a container's cgroup goes with it: the last fraction of a
    second of each is missed). Other containers on the engine (others' tests) don't count."""

    PERIOD_S = 0.25
    # Listing asks the engine, whose CPU the run measures; a container lives a game at least.
    LIST_EVERY_S = 2.0

    def __init__(self, owner_pids: Sequence[int]) -> None:
        import docker

        host = socket.gethostname()
        self.owners = {f"{host}:{pid}" for pid in owner_pids}
        self.client = docker.from_env(timeout=30)
        self.seen: dict[str, float] = {}  # container id -> its last CPU seconds read
        self.readable = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        ids: list[str] = []
        listed = 0.0
        while True:
            stopping = self._stop.is_set()
            if time.monotonic() - listed > self.LIST_EVERY_S or stopping:
                with contextlib.suppress(Exception):  # the engine busy: next time
                    found = self.client.api.containers(all=True, filters={"label": OWNER_LABEL})
                    ids = [c["Id"] for c in found if c["Labels"].get(OWNER_LABEL) in self.owners]
                    listed = time.monotonic()
            for cid in {*ids, *self.seen}:
                seconds = _cgroup_cpu_s(cid)
                if seconds is not None:
                    self.seen[cid] = seconds
                    self.readable = True
            if stopping:
                return
            self._stop.wait(self.PERIOD_S)

    def stop(self) -> float | None:
        """The containers' CPU seconds (None if no cgroup could be read)."""
        self._stop.set()
        self._thread.join()
        self.client.close()
        return sum(self.seen.values()) if self.readable else None


def _cgroup_cpu_s(cid: str) -> float | None:
    """A container's CPU seconds so far: cgroup v1 or v2, cgroupfs or systemd driver."""
    for path, scale in (
        (f"/sys/fs/cgroup/cpuacct/docker/{cid}/cpuacct.usage", 1e-9),
        (f"/sys/fs/cgroup/cpuacct/system.slice/docker-{cid}.scope/cpuacct.usage", 1e-9),
        (f"/sys/fs/cgroup/system.slice/docker-{cid}.scope/cpu.stat", 1e-6),
        (f"/sys/fs/cgroup/docker/{cid}/cpu.stat", 1e-6),
    ):
        try:
            content = Path(path).read_text()
        except OSError:
            continue
        if path.endswith("cpu.stat"):  # "usage_usec N" on its first line
            content = content.split()[1]
        return int(content) * scale
    return None


# ---------------------------------------------------------------------- one run


@dataclass
class BotCpu:
    """What the measured heuristic bots said of their CPU, summed over a run's bots."""

    bots: int = 0
    boot_s: float = 0.0  # each one's process CPU before its first decision
    think_s: float = 0.0  # inside its bid and play: its turns' own work
    process_s: float = 0.0  # all its process's CPU, at its last card

    def add(self, log: str, where: str) -> None:
        lines = [line for line in log.splitlines() if line.startswith(CPU_LINE + " ")]
        if not lines:
            raise BenchError(f"{where}: no '{CPU_LINE}' line in the bot's log")
        values = dict(f.split("=", 1) for f in lines[-1].split()[1:])
        self.bots += 1
        self.boot_s += float(values["boot_ms"]) / 1000
        self.think_s += float(values["think_ms"]) / 1000
        self.process_s += float(values["process_ms"]) / 1000


@dataclass
class Run:
    workers: int
    bots: str = "thinking"  # or "heuristic": measured heuristic bots, for the CPU share
    matches: int = 0
    wall_s: float = 0.0
    match_s: list[float] = field(default_factory=list)  # each match, begun to finished
    floor_s: list[float] = field(default_factory=list)  # its decisions x the think time
    decisions: list[int] = field(default_factory=list)  # each match's, both games
    per_worker: list[int] = field(default_factory=list)  # matches each worker played
    exits_s: list[float] = field(default_factory=list)  # each worker's exit, from the start
    first_claim_s: float = 0.0  # the first match's start, from the first worker's start
    load: tuple[float, float] = (0.0, 0.0)  # 1-min load average before and after
    cpu: Cpu | None = None
    containers_cpu: float | None = None  # the run's bot containers, CPU seconds
    details: list[tuple[float, str]] = field(default_factory=list)  # (start, line) a match
    bot_cpu: BotCpu = field(default_factory=BotCpu)  # heuristic bots only
    worker_start_cpu: float = 0.0  # one idle worker's whole life, CPU s (heuristic runs)

    @property
    def per_min(self) -> float:
        return self.matches / (self.wall_s / 60)


@contextlib.contextmanager
def fresh_schema(url: str) -> Iterator[str]:
    """A URL whose connections see only a new, empty schema; the schema is dropped after
    (as tests/store/conftest.py does for each PostgreSQL test)."""
    admin = create_engine(url, connect_args={"connect_timeout": 5})
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    try:
        try:
            with admin.begin() as connection:
                connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        except exc.OperationalError as e:
            why = str(e.orig).strip().splitlines()[0]
            shown = make_url(url).render_as_string(hide_password=True)
            raise BenchError(f"PostgreSQL at {shown} does not answer ({why}): --url") from None
        scoped = make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
        try:
            yield scoped.render_as_string(hide_password=False)
        finally:
            with admin.begin() as connection:
                connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    finally:
        admin.dispose()


def entry_dirs(root: Path, think_ms: int) -> list[tuple[str, Path]]:
    """The bot with each entry's name and pick, and the think time, in a directory each."""
    source = BOT.read_text()
    out = []
    for name, pick in ENTRIES:
        code = source
        for constant, value in (("NAME", repr(name)), ("THINK_MS", think_ms), ("PICK", pick)):
            code, n = re.subn(rf"^{constant} = .*$", f"{constant} = {value}", code, flags=re.M)
            if n != 1:
                raise BenchError(f"{BOT.name} has no single line '{constant} = ...'")
        out.append((name, _bot_dir(root / name, code)))
    return out


def heuristic_dirs(root: Path) -> list[tuple[str, Path]]:
    """The heuristic sample bot timing itself (``MEASURED``), under each entry's name."""
    source, n = re.subn(r'^if __name__ == "__main__":\n    run\(HeuristicBot\(\)\)\n\Z', "",
                        HEURISTIC.read_text(), flags=re.M)  # fmt: skip
    if n != 1:
        raise BenchError(f"{HEURISTIC} does not end with run(HeuristicBot())")
    return [
        (name, _bot_dir(root / name, f"{source}\nNAME = {name!r}\n{MEASURED}"))
        for name in HEURISTIC_ENTRIES
    ]


def _bot_dir(directory: Path, code: str) -> Path:
    directory.mkdir(parents=True)
    (directory / "bot.py").write_text(code)
    return directory


def seed_tournament(store: Store, entries: Sequence[tuple[str, Path]], matches: int) -> None:
    """The entries as active versions (as a passed submission leaves them, without the
    validation game), and a round-robin tournament of their first ``matches`` matches."""
    user = store.authenticate(store.add_user("bench"))
    versions = []
    for name, directory in entries:
        digest = content_hash(directory)
        version = store.add_version(user, name, digest, code_key(digest), pack(directory))
        assert version.id is not None
        versions.append(store.set_status(version.id, VersionStatus.ACTIVE).id)
    pairings = len(versions) * (len(versions) - 1) // 2
    per_pairing = math.ceil(matches / pairings)
    schedule = round_robin(versions, "pairs", per_pairing)[:matches]  # type: ignore[arg-type]
    tournament = store.create_tournament(
        TOURNAMENT, seed=0, games_per_pairing=per_pairing, limits=LIMITS
    )
    assert tournament.id is not None
    store.enqueue(tournament.id, [MatchSpec(m.seed, m.teams) for m in schedule])  # type: ignore[arg-type]


def worker_command(sandbox: str, profile: Path | None) -> list[str]:
    args = ["worker", "--until-idle", "--concurrency", "1", "--sandbox", sandbox]
    args += ["--tournament", TOURNAMENT]
    if profile is not None:
        return [sys.executable, str(Path(__file__).resolve()), PROFILED, str(profile), *args]
    beside = Path(sys.executable).parent / "arena"
    arena = str(beside) if beside.is_file() else shutil.which("arena")
    if arena is None:
        raise BenchError("the arena console script is not installed (pip install -e .)")
    return [arena, *args]


def run_workers(
    url: str,
    workers: int,
    args: argparse.Namespace,
    tmp: Path,
    profile_dir: Path | None,
    bots: str = "thinking",
) -> Run:
    run = Run(workers, bots)
    per_worker = args.matches_per_worker if bots == "thinking" else args.share_matches_per_worker
    target = workers * per_worker
    name = f"{bots}-{workers}"
    home = tmp / f"home-{name}"
    home.mkdir()
    with fresh_schema(url) as scoped:
        env = os.environ | {"ARENA_HOME": str(home), "ARENA_DATABASE_URL": scoped}
        store = open_store(scoped)
        try:
            entries = (
                entry_dirs(tmp / f"bots-{name}", args.think_ms)
                if bots == "thinking"
                else heuristic_dirs(tmp / f"bots-{name}")
            )
            seed_tournament(store, entries, target)
        finally:
            store.close()
        logs = [tmp / f"worker-{name}-{i}.log" for i in range(workers)]
        run.load = (os.getloadavg()[0], 0.0)
        cpu = Cpu.now()
        start = time.perf_counter()
        started = time.time()
        procs: list[subprocess.Popen[bytes]] = []
        for i, log in enumerate(logs):
            profile = None if profile_dir is None else profile_dir / f"w{workers}-{i}.prof"
            command = worker_command(args.sandbox, profile)
            with log.open("wb") as sink:
                null = subprocess.DEVNULL
                procs.append(
                    subprocess.Popen(command, env=env, stdin=null, stdout=sink, stderr=sink)
                )
        sampler = ContainerCpu([p.pid for p in procs]) if args.sandbox == "docker" else None
        exits = [0.0] * workers

        def wait(i: int) -> None:
            try:
                procs[i].wait(timeout=args.timeout)
            except subprocess.TimeoutExpired:
                procs[i].kill()
                procs[i].wait()
            exits[i] = time.perf_counter() - start

        waiters = [threading.Thread(target=wait, args=(i,)) for i in range(workers)]
        for waiter in waiters:
            waiter.start()
        for waiter in waiters:
            waiter.join()
        run.wall_s = max(exits)
        run.cpu = Cpu.now().since(cpu)
        run.containers_cpu = sampler.stop() if sampler is not None else None
        run.load = (run.load[0], os.getloadavg()[0])
        run.exits_s = sorted(exits)
        for proc, log in zip(procs, logs, strict=True):
            if proc.returncode != 0:
                tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
                raise BenchError(f"a worker exited with {proc.returncode}:\n{tail}")
        store = open_store(scoped)
        try:
            check_results(store, run, target, args.think_ms, started, procs)
        finally:
            store.close()
        if bots == "heuristic":  # what a worker costs that plays nothing: its start and exit
            run.worker_start_cpu = idle_worker_cpu(env, args.sandbox, tmp / f"idle-{name}.log")
    return run


def idle_worker_cpu(env: dict[str, str], sandbox: str, log: Path) -> float:
    """The CPU seconds of one more ``arena worker --until-idle`` once every match is done:
    its Python, imports, sandbox and store opened, its exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with log.open("wb") as sink:
        command = worker_command(sandbox, None)
        done = subprocess.run(command, env=env, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink)
    if done.returncode != 0:
        raise BenchError(f"an idle worker exited with {done.returncode}: {log.read_text()[-800:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def check_results(
    store: Store,
    run: Run,
    target: int,
    think_ms: int,
    started: float,
    procs: Sequence[subprocess.Popen[bytes]],
) -> None:
    """Every match done, none forfeited; each one's time and its bots' floor."""
    tournament = store.tournament(TOURNAMENT)
    assert tournament.id is not None
    counts = store.status_counts(tournament.id)
    if counts[MatchStatus.DONE] != target:
        summary = ", ".join(f"{s.value} {n}" for s, n in counts.items())
        errors = [m.last_error for m in store.matches(tournament.id) if m.last_error]
        raise BenchError(f"{target} matches scheduled, {summary}; errors: {errors[:3]}")
    pids = {str(p.pid): i for i, p in enumerate(procs)}
    run.per_worker = [0] * len(procs)
    first_claim = math.inf
    # A slot claims its next match as its match in hand's last game begins: a match's time
    # runs from its claim or from the end of the slot's match before, whichever is later.
    slot_free: dict[str, float] = {}
    done = sorted(store.matches(tournament.id), key=lambda m: m.finished_at or 0.0)
    for match in done:
        if match.forfeit_reason is not None:
            raise BenchError(
                f"match {match.id}: game {match.forfeit_game} seat {match.forfeit_seat} "
                f"forfeited: {match.forfeit_reason}: {match.forfeit_detail}"
            )
        assert match.started_at is not None and match.finished_at is not None
        assert match.replay_path is not None and match.worker_id is not None
        begun = max(match.started_at, slot_free.get(match.worker_id, 0.0))
        slot_free[match.worker_id] = match.finished_at
        run.match_s.append(match.finished_at - begun)
        first_claim = min(first_claim, match.started_at - started)
        pid = match.worker_id.rsplit(":", 2)[-2]  # host:pid:slot
        run.per_worker[pids[pid]] += 1
        decisions = 0
        for replay in json.loads(store.blob(match.replay_path))["games"]:
            state = verify_replay(replay)
            for deal in state.deals:
                decisions += len(deal.bids) + sum(len(t.cards) for t in deal.tricks)
        run.decisions.append(decisions)
        run.floor_s.append(decisions * think_ms / 1000 if run.bots == "thinking" else 0.0)
        if run.bots == "heuristic":
            assert match.logs_path is not None
            for game, keys in json.loads(store.blob(match.logs_path)).items():
                for seat, key in enumerate(keys):
                    where = f"match {match.id} {game} seat {seat}"
                    run.bot_cpu.add(store.blob(key).decode(errors="replace"), where)
        names = [store.bot_by_id(store.version(v).bot_id).name for v in match.seats]
        at = begun - started
        run.details.append(
            (
                at,
                f"    match {match.schedule_index}: worker {pids[pid] + 1}, from {at:5.1f} s"
                f" for {run.match_s[-1]:4.1f} s, seed {match.seed}, seats {' '.join(names)}",
            )
        )
    run.matches = target
    run.first_claim_s = first_claim


def warm_up(sandbox: str) -> None:
    """One untimed game of four trivial bots: the image's files in the page cache, the
    engine's and the bots' imports warm, so the first timed run doesn't pay for them."""
    backend = open_sandbox(sandbox)
    try:
        bots = [BotSpec("first-legal", WARMUP_BOT)] * 4
        game = play_game(bots, 0, backend, GameSettings(limits=Limits(**LIMITS)))
        if game.outcome.forfeit is not None:
            raise BenchError(f"warm-up game: {game.outcome.forfeit.detail}")
    finally:
        backend.close()


# ---------------------------------------------------------------------- output


def report(run: Run) -> None:
    floor = statistics.fmean(run.floor_s)
    per_worker_floor = 60 / floor
    lo, hi = min(run.decisions), max(run.decisions)
    decisions = f"{lo}" if lo == hi else f"{lo}-{hi}"
    print(
        f"workers {run.workers}: {run.matches} matches done in {run.wall_s:.1f} s = "
        f"{run.per_min:.2f} matches/min ({run.per_min / run.workers:.2f} per worker; the "
        f"bots' floor allows {per_worker_floor:.2f}, "
        f"{run.per_min / run.workers / per_worker_floor:.0%} of it)"
    )
    print(
        f"  a match: median {statistics.median(run.match_s):.1f} s (all "
        f"{' '.join(f'{s:.1f}' for s in sorted(run.match_s))}), bots' floor {floor:.1f} s "
        f"({decisions} decisions x think); matches per worker "
        f"{' '.join(map(str, run.per_worker))}"
    )
    print(
        f"  workers: first match {run.first_claim_s:.1f} s after the start; exits at "
        f"{' '.join(f'{s:.1f}' for s in run.exits_s)} s"
    )
    cpu = run.cpu
    assert cpu is not None
    containers = run.containers_cpu or 0.0
    known = cpu.workers + containers + cpu.engine + cpu.postgres

    def cores(seconds: float) -> str:
        return f"{seconds / run.wall_s:.2f}"

    print(
        f"  CPU in cores over the run: machine {cores(cpu.busy)} of {os.cpu_count()} = "
        f"workers {cores(cpu.workers)} + their bot containers "
        f"{'?' if run.containers_cpu is None else cores(containers)} + Docker engine "
        f"{cores(cpu.engine)} + PostgreSQL {cores(cpu.postgres)} + everything else "
        f"{cores(cpu.busy - known)}"
    )
    ours = (cpu.workers + containers) / run.matches
    per_decision = f"{ours / statistics.fmean(run.decisions) * 1000:.2f} ms a decision"
    print(
        f"  CPU per match: workers {cpu.workers / run.matches:.1f} s"
        + (
            f" (bots: ?; {per_decision})"
            if run.containers_cpu is None
            else f" + bot containers {containers / run.matches:.1f} s = {ours:.1f} s"
            f" ({per_decision})"
        )
    )
    waited = (
        ""
        if cpu.waiting is None
        else f"; some task waited for a CPU {cpu.waiting / run.wall_s:.0%} of the time"
    )
    print(f"  load average {run.load[0]:.1f} before, {run.load[1]:.1f} after{waited}")


def share(run: Run) -> float:
    """The bots' turns' own CPU over the tournament's: the workers, their bots, the Docker
    engine and PostgreSQL (the whole machine's busy CPU would count others' work too)."""
    cpu = run.cpu
    assert cpu is not None
    return run.bot_cpu.think_s / (cpu.workers + bots_cpu(run) + cpu.engine + cpu.postgres)


def bots_cpu(run: Run) -> float:
    """The bots' CPU: their containers' cgroups; in the process sandbox, their own figures
    (what of it reaches the workers' through bubblewrap is not told apart)."""
    return run.bot_cpu.process_s if run.containers_cpu is None else run.containers_cpu


def report_share(run: Run) -> None:
    """Where a match's CPU went, with heuristic bots: their turns against everything else."""
    cpu, bots = run.cpu, run.bot_cpu
    assert cpu is not None
    n = run.matches
    print(
        f"heuristic bots, {run.workers} workers: {n} matches in {run.wall_s:.1f} s = "
        f"{run.per_min:.2f} matches/min; a match median {statistics.median(run.match_s):.1f} s, "
        f"{statistics.fmean(run.decisions):.0f} decisions, {bots.bots / n:.0f} bots"
    )
    containers, workers = bots_cpu(run), cpu.workers
    total = workers + containers + cpu.engine + cpu.postgres
    parts = (
        ("bots' turns (their bid and play)", bots.think_s),
        ("bots' start (Python, imports, the SDK's server, Hello)", bots.boot_s),
        ("bots' gRPC and SDK around their turns", bots.process_s - bots.boot_s - bots.think_s),
        ("bot containers beyond their Python (runc's set-up in them)", containers - bots.process_s),
        ("workers' start and exit", run.worker_start_cpu * run.workers),
        ("workers' matches (referee, engine, gRPC, Docker and store clients)",
         workers - run.worker_start_cpu * run.workers),
        ("Docker engine (dockerd, containerd, shims)", cpu.engine),
        ("PostgreSQL", cpu.postgres),
    )  # fmt: skip
    print(f"  CPU per match, {total / n:.2f} s in all:")
    for what, seconds in parts:
        print(f"    {seconds / n:6.2f} s {seconds / total:6.1%}  {what}")
    rest = cpu.busy - total
    print(
        f"  beside it, everything else on the machine {rest / n:.2f} s a match (runc, the "
        f"kernel's work outside the containers, others' work; load {run.load[0]:.1f} before, "
        f"{run.load[1]:.1f} after)"
    )
    capacity = (os.cpu_count() or 1) * run.wall_s
    print(
        f"  bots' turns: {share(run):.1%} of the tournament's CPU (the physical limit is "
        f"100%), {bots.think_s / cpu.busy:.1%} of the machine's busy CPU, "
        f"{bots.think_s / capacity:.1%} of its capacity ({os.cpu_count()} cores x the run)"
    )


def print_profiles(profile_dir: Path, top: int) -> None:
    files = sorted(profile_dir.glob("*.prof"))
    if not files:
        return
    stats = pstats.Stats(*(str(f) for f in files), stream=sys.stdout)
    total = sum(t for _, _, t, _, _ in stats.stats.values())  # type: ignore[attr-defined]
    print(f"\nworkers' CPU under cProfile, {len(files)} profiles, {total:.1f} s in all:")
    by_module: dict[str, float] = {}
    for (path, _, _), (_, _, tottime, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        by_module[_module_of(path)] = by_module.get(_module_of(path), 0.0) + tottime
    for module, seconds in sorted(by_module.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {seconds:7.2f} s {seconds / total:5.1%}  {module}")
    print(f"top {top} functions by own CPU time, then by cumulative:")
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


def _module_of(path: str) -> str:
    """A profile entry's file as a package-ish name (site-packages and the repo trimmed)."""
    if path == "~":
        return "(builtins)"
    parts = Path(path).parts
    for anchor in ("site-packages", "arena", "lib"):
        if anchor in parts:
            i = parts.index(anchor) + (anchor != "arena")
            return "/".join(parts[i : i + 2])
    return path


def profiled_worker(out: str, args: list[str]) -> int:
    """``arena ARGS`` with every Python thread under its own cProfile (CPU time), all
    written together to ``out`` when it exits."""
    profiles: list[cProfile.Profile] = []
    lock = threading.Lock()

    def begin(frame: object, event: str, arg: object) -> None:
        sys.setprofile(None)
        profile = cProfile.Profile(time.thread_time)
        with lock:
            profiles.append(profile)
        profile.enable()

    main_profile = cProfile.Profile(time.thread_time)
    profiles.append(main_profile)
    threading.setprofile(begin)
    sys.argv = ["arena", *args]
    status = 0
    main_profile.enable()
    try:
        from arena.__main__ import main as arena_main  # as the console script starts

        arena_main()
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else 1
    finally:
        main_profile.disable()
        threading.setprofile(None)
        with lock:
            pstats.Stats(*profiles).dump_stats(out)
    return status


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [PROFILED]:
        return profiled_worker(argv[1], argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sandbox", choices=("docker", "process"), default="docker")
    parser.add_argument("--think-ms", type=positive_int, default=20, help="per decision")
    parser.add_argument("--workers", type=_counts, default=(1, 2, 4), help="e.g. 1,2,4")
    parser.add_argument(
        "--matches-per-worker", type=positive_int, default=2, help="matches = this x workers"
    )
    parser.add_argument(
        "--url",
        default=os.environ.get("ARENA_BENCH_POSTGRES_URL", DEFAULT_URL),
        help="PostgreSQL (default: $ARENA_BENCH_POSTGRES_URL, else the tests' database)",
    )
    parser.add_argument("--timeout", type=positive_int, default=900, help="per run, s")
    parser.add_argument("--profile", type=Path, help="a directory: run the workers profiled")
    parser.add_argument("--top", type=positive_int, default=25, help="profile lines shown")
    parser.add_argument(
        "--share-workers", type=positive_int, default=2, help="workers for the CPU share"
    )
    parser.add_argument(
        "--share-matches-per-worker", type=positive_int, default=4, help="for the CPU share"
    )
    parser.add_argument(
        "--only", choices=("ratio", "share"), help="one part: the throughput or the CPU share"
    )
    parser.add_argument("--verbose", action="store_true", help="a line per match")
    args = parser.parse_args(argv)
    if args.profile is not None:
        args.profile.mkdir(parents=True, exist_ok=True)
        for old in args.profile.glob("*.prof"):
            old.unlink()

    print(
        f"bots thinking {args.think_ms} ms a decision, {len(ENTRIES)} entries, "
        f"{args.matches_per_worker} matches (duplicate pairs) per worker; then heuristic bots, "
        f"{args.share_workers} workers, {args.share_matches_per_worker} matches each; one "
        f"PostgreSQL, sandbox {args.sandbox}, {os.cpu_count()} cores"
        + (", workers under cProfile (slower)" if args.profile else ""),
        flush=True,
    )
    runs: dict[int, Run] = {}
    shared: Run | None = None
    try:
        warm_up(args.sandbox)
        with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
            for workers in args.workers if args.only != "share" else ():
                runs[workers] = run = run_workers(args.url, workers, args, Path(tmp), args.profile)
                report(run)
                if args.verbose:
                    print("\n".join(line for _, line in sorted(run.details)))
                sys.stdout.flush()
            if args.only != "ratio":
                shared = run_workers(
                    args.url, args.share_workers, args, Path(tmp), args.profile, "heuristic"
                )
                report_share(shared)
                if args.verbose:
                    print("\n".join(line for _, line in sorted(shared.details)))
    except (BenchError, SandboxError, StoreError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.profile is not None:
        print_profiles(args.profile, args.top)
    last_line = []
    if shared is not None:
        last_line.append(f"share={share(shared):.1%}")
    if runs:
        first, last = min(runs), max(runs)
        ratio = runs[last].per_min / runs[first].per_min
        print(
            f"{last} workers / {first}: {ratio:.2f} x the throughput; target >= {TARGET} "
            f"{'met' if ratio >= TARGET else 'MISSED'} (ideal {last / first:.0f})"
        )
        last_line.append(f"ratio={ratio:.2f}")
    print(" ".join(last_line))
    return 0


def _counts(text: str) -> tuple[int, ...]:
    values = tuple(sorted({positive_int(v) for v in text.split(",") if v.strip()}))
    if not values:
        raise argparse.ArgumentTypeError("no worker count")
    return values


if __name__ == "__main__":
    sys.exit(main())
