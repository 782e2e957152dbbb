"""How far one database goes: many workers' claims, results and ratings on one PostgreSQL.

Matches are synthetic and instant (``--play-ms``, 0 by default): what is measured is the
store's side of each match, as a worker's slot does it, through the store's public methods
and the league's rating update, never through a copy of their SQL:

* ``reap`` (the slot's check for silent workers), ``claim`` (``FOR UPDATE SKIP LOCKED``),
  ``tournament_by_id`` (its limits), one ``heartbeat``;
* ``finish`` with a result (its versions' tallies counted in the same transaction);
* ``update_ratings`` (``arena.league.apply_ratings``): reads the tournament's matches and
  ratings, appends the rating steps that became ratable, in schedule order, retrying when
  another worker appended first.

For each number of slots in ``--slots`` (1,2,4,8,16), spread over ``--processes`` worker
processes (4, each with threads as a worker's ``--concurrency``), a fresh schema holds
``--entries`` active versions and a round-robin tournament of ``--matches`` matches; the
slots start together and play until the queue is empty. Printed per run: results per second
(each one claim, one finish), the median and 95th percentile of each step's time, how often a
PostgreSQL backend of the bench waited for a lock (``pg_stat_activity``, sampled every
20 ms), the rating rows written per result, the CPU of PostgreSQL and of the worker
processes per result, and results per second in the run's first and last fifth (a
tournament's rating update reads all its matches, so each result costs more as it fills).

Then the answer: how many results per second PostgreSQL's own CPU could serve (one core for
it alone), and how many real worker slots that is for matches of ``--match-s`` seconds (the
last line: ``slots=<N> matches/min=<M>``). The machine is shared: read the ratios.

Run from the repo root: ``python bench/queue_db.py``. Needs PostgreSQL (``--url``, default
``$ARENA_BENCH_POSTGRES_URL`` or the tests' database). Exit status 1 if the bench could not
run or a result was lost.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import math
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.synchronize import Event
from pathlib import Path

from arguments import positive_int
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from tournament import CLK_TCK, DEFAULT_URL, BenchError, Cpu, fresh_schema  # bench/tournament.py's

from arena.bots.submission import content_hash, pack
from arena.competition import round_robin
from arena.league.apply_ratings import update_ratings
from arena.league.stored_files import code_key
from arena.store import (
    JobKind,
    MatchResult,
    MatchSpec,
    MatchStatus,
    Store,
    StoreError,
    VersionStatus,
    open_store,
)

APP = "arena-queue-bench"  # the bench's connections, told apart in pg_stat_activity
SILENT_AFTER_S = 120.0  # the worker's default: nothing is reaped here, the query runs
STEPS = ("claim", "finish", "ratings")


@dataclass
class SlotTimes:
    """What one process's slots measured: each step's seconds, the results, the rating
    updates that found something to apply and the matches they applied."""

    steps: dict[str, list[float]] = field(default_factory=lambda: {s: [] for s in STEPS})
    done_at: list[float] = field(default_factory=list)  # each result's time.time()
    applied: int = 0
    claimed: int = 0  # claims begun (a process stops at its share of ``--results``)
    lost_races: int = 0  # rating appends another worker made first (retried)
    cpu_s: float = 0.0  # the process's own CPU over its run
    error: str = ""


def slot_loop(
    store: Store,
    tournament_id: int,
    name: str,
    times: SlotTimes,
    lock: threading.Lock,
    play_s: float,
    seed: int,
    ready: threading.Barrier,
    release: Event,
    quota: int,
) -> None:
    """One slot: what a worker's slot asks of the store for each match, until none is left;
    the store's connections held until ``release`` (the parent reads their backends' CPU)."""
    rng = random.Random(seed)
    try:
        ready.wait()
        while True:
            with lock:  # the process's share of the results is spoken for
                if times.claimed >= quota:
                    break
                times.claimed += 1
            begun = time.perf_counter()
            store.reap_jobs(SILENT_AFTER_S)
            job = store.claim_job(name, kinds=[JobKind.MATCH], tournament_id=tournament_id)
            if job is None:
                break
            match = job.match
            store.tournament_by_id(match.tournament_id)
            claimed = time.perf_counter()
            store.heartbeat_job(job, name)
            if play_s:
                time.sleep(play_s)
            finishing = time.perf_counter()
            games = [(rng.randrange(-300, 600), rng.randrange(-300, 600)) for _ in range(2)]
            points = (games[0][0] + games[1][0], games[0][1] + games[1][1])
            winner = None if points[0] == points[1] else int(points[1] > points[0])
            result = MatchResult(totals=(games[0], games[1]), winner=winner)
            if not store.finish(job, name, result):
                raise BenchError(f"match {match.id} was taken from {name}")
            finished = time.perf_counter()
            applied = update_ratings(store, tournament_id)
            rated = time.perf_counter()
            with lock:
                times.steps["claim"].append(claimed - begun)
                times.steps["finish"].append(finished - finishing)
                times.steps["ratings"].append(rated - finished)
                times.done_at.append(time.time())
                times.applied += applied
    except Exception as e:  # told to the parent, which fails the run
        with lock:
            times.error += f"{type(e).__name__}: {e}; "
    finally:  # every slot done (or failed): the process reports, then waits for its release
        with contextlib.suppress(threading.BrokenBarrierError):
            ready.wait()
        release.wait()


def worker_process(
    url: str,
    tournament_id: int,
    slots: int,
    index: int,
    play_s: float,
    opened: multiprocessing.Queue[int],
    go: Event,
    release: Event,
    out: multiprocessing.Queue[SlotTimes],
    quota: int,
) -> None:
    """A worker process: one store, as a worker has, and its slots as threads, started
    together once ``go`` is set; it reports once all are done, and closes the store on
    ``release``."""
    times, lock = SlotTimes(), threading.Lock()
    # update_ratings retries when another worker appended the same steps first; psycopg
    # tells of the aborted statement on its logger: counted, not printed.
    psycopg_log = logging.getLogger("psycopg")
    psycopg_log.propagate = False
    psycopg_log.addHandler(LostRaces(times))
    start = 0.0
    reported = False

    def all_ready() -> None:  # the barrier's action: once as they start, once as they end
        nonlocal start, reported
        if not start:
            opened.put(index)
            go.wait()
            start = time.process_time()
        else:
            times.cpu_s = time.process_time() - start
            out.put(times)
            reported = True

    ready = threading.Barrier(slots, action=all_ready)
    store = open_store(url)
    threads = [
        threading.Thread(
            target=slot_loop,
            args=(
                store,
                tournament_id,
                f"bench:{index}:{slot}",
                times,
                lock,
                play_s,
                index * 1000 + slot,
                ready,
                release,
                quota,
            ),
        )
        for slot in range(slots)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.close()
    if not reported:
        times.error = times.error or "a slot failed"
        out.put(times)


@dataclass
class Run:
    slots: int
    processes: int
    wall_s: float
    times: SlotTimes
    results: int
    rating_rows: int
    lock_waits: float  # share of samples with a bench backend waiting for a lock
    waiting_for: list[tuple[str, int]]  # the statements that waited, most often first
    waiting: float  # mean number of bench backends waiting for a lock
    cpu: Cpu  # the machine's
    postgres_s: float  # the CPU of the backends serving the slots
    connections: int  # those backends: the processes' pools' connections
    fifths: tuple[float, float]  # results/s in the first and the last fifth of the run

    @property
    def per_s(self) -> float:
        return self.results / self.wall_s


def seed(url: str, entries: int, matches: int, root: Path) -> int:
    """Active versions and a round-robin tournament of ``matches`` queued matches."""
    store = open_store(url)
    try:
        user = store.authenticate(store.add_user("bench"))
        versions = []
        for i in range(entries):
            directory = root / f"entry-{i}"
            directory.mkdir()
            (directory / "bot.py").write_text(f"# entry {i}\n")
            digest = content_hash(directory)
            code = pack(directory)
            version = store.add_version(user, f"entry-{i}", digest, code_key(digest), code)
            assert version.id is not None
            versions.append(store.set_status(version.id, VersionStatus.ACTIVE).id)
        per_pairing = math.ceil(matches / (entries * (entries - 1) // 2))
        schedule = round_robin(versions, "pairs", per_pairing)[:matches]  # type: ignore[arg-type]
        tournament = store.create_tournament("queue", seed=0, games_per_pairing=per_pairing)
        assert tournament.id is not None
        store.enqueue(tournament.id, [MatchSpec(m.seed, m.teams) for m in schedule])  # type: ignore[arg-type]
        return tournament.id
    finally:
        store.close()


class LockSampler:
    """Samples the bench's backends in ``pg_stat_activity``: how many wait for a lock."""

    PERIOD_S = 0.02

    def __init__(self, url: str) -> None:
        self.engine = create_engine(url)
        self.samples: list[int] = []
        self.waiting: Counter[str] = Counter()  # the waiting statements' first words
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        query = text(
            "SELECT left(query, 30) FROM pg_stat_activity WHERE application_name = :app"
            " AND wait_event_type = 'Lock'"
        )
        with self.engine.connect() as connection:
            while not self._stop.wait(self.PERIOD_S):
                statements = list(connection.execute(query, {"app": APP}).scalars())
                connection.rollback()
                self.samples.append(len(statements))
                self.waiting.update(" ".join(s.split()[:3]) for s in statements)

    def stop(self) -> tuple[float, float]:
        self._stop.set()
        self._thread.join()
        self.engine.dispose()
        if not self.samples:
            return 0.0, 0.0
        return sum(1 for s in self.samples if s) / len(self.samples), statistics.fmean(self.samples)


def run_slots(base_url: str, slots: int, args: argparse.Namespace, root: Path) -> Run:
    processes = min(args.processes, slots)
    with fresh_schema(base_url) as scoped:
        url = make_url(scoped).update_query_dict({"application_name": APP})
        url_text = url.render_as_string(hide_password=False)
        work = root / f"slots-{slots}"
        work.mkdir()
        tournament_id = seed(url_text, args.entries, args.matches, work)
        context = multiprocessing.get_context("spawn")
        go, release = context.Event(), context.Event()
        opened: multiprocessing.Queue[int] = context.Queue()
        out: multiprocessing.Queue[SlotTimes] = context.Queue()
        shares = [slots // processes + (i < slots % processes) for i in range(processes)]
        results = args.results or args.matches
        quotas = [results * n // slots for n in shares]
        quotas[0] += results - sum(quotas)
        procs = [
            context.Process(
                target=worker_process,
                args=(
                    url_text,
                    tournament_id,
                    n,
                    i,
                    args.play_ms / 1000,
                    opened,
                    go,
                    release,
                    out,
                    quotas[i],
                ),
            )
            for i, n in enumerate(shares)
        ]
        for proc in procs:
            proc.start()
        try:
            for _ in procs:  # every slot's store open: imports and connections before the clock
                opened.get(timeout=120)
            sampler = LockSampler(scoped)
            backends = backend_cpu(scoped)
            cpu = Cpu.now()
            start = time.time()
            go.set()
            parts = [out.get(timeout=args.timeout) for _ in procs]
            wall = time.time() - start
            spent = Cpu.now().since(cpu)
            backends = {pid: s - backends.get(pid, 0.0) for pid, s in backend_cpu(scoped).items()}
            lock_waits, waiting = sampler.stop()
            waiting_for = sampler.waiting.most_common(3)
        finally:
            go.set()
            release.set()
            for proc in procs:
                proc.join(timeout=30)
        errors = [p.error for p in parts if p.error]
        if errors:
            raise BenchError(f"a slot failed: {errors[0]}")
        times = SlotTimes()
        for part in parts:
            for step in STEPS:
                times.steps[step] += part.steps[step]
            times.done_at += part.done_at
            times.applied += part.applied
            times.lost_races += part.lost_races
            times.cpu_s += part.cpu_s
        store = open_store(url_text)
        try:
            counts = store.status_counts(tournament_id)
            rating_rows = len(store.rating_history(tournament_id))
        finally:
            store.close()
        if counts[MatchStatus.DONE] != results or len(times.done_at) != results:
            raise BenchError(f"{results} results wanted, {counts[MatchStatus.DONE]} done")
    done = sorted(times.done_at)
    fifth = max(1, len(done) // 5)
    first = fifth / max(1e-9, done[fifth - 1] - start)
    last = fifth / max(1e-9, done[-1] - done[-fifth - 1]) if len(done) > fifth else first
    return Run(
        slots,
        processes,
        wall,
        times,
        len(done),
        rating_rows,
        lock_waits,
        waiting_for,
        waiting,
        spent,
        sum(backends.values()),
        len(backends),
        (first, last),
    )


class LostRaces(logging.Handler):
    """Counts psycopg's word of a statement aborted in its pipeline: in this loop, a rating
    step that another worker inserted first (``update_ratings`` then reads and retries)."""

    def __init__(self, times: SlotTimes) -> None:
        super().__init__()
        self.times = times

    def emit(self, record: logging.LogRecord) -> None:
        if "pipeline aborted" in record.getMessage():
            self.times.lost_races += 1


def backend_cpu(url: str) -> dict[int, float]:
    """The CPU seconds so far of each PostgreSQL backend serving the bench's slots (its
    process, read from /proc: PostgreSQL runs on this machine)."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            query = text("SELECT pid FROM pg_stat_activity WHERE application_name = :app")
            pids = [int(pid) for pid in connection.execute(query, {"app": APP}).scalars()]
    finally:
        engine.dispose()
    seconds = {}
    for pid in pids:
        try:
            line = Path(f"/proc/{pid}/stat").read_text()
        except OSError:  # not on this machine, or gone
            continue
        utime, stime = (int(f) for f in line[line.rindex(")") + 2 :].split()[11:13])
        seconds[pid] = (utime + stime) / CLK_TCK
    if not seconds:
        raise BenchError("no backend of the bench's in /proc: PostgreSQL must run here")
    return seconds


def report(run: Run) -> None:
    n = run.results
    steps = "; ".join(
        f"{step} {statistics.median(v) * 1000:.1f}/{_p95(v) * 1000:.1f}"
        for step, v in run.times.steps.items()
    )
    print(
        f"slots {run.slots:3d} ({run.processes} processes): {run.per_s:6.1f} results/s "
        f"(first fifth {run.fifths[0]:.1f}, last {run.fifths[1]:.1f}); ms p50/p95 {steps}; "
        f"{run.connections / run.processes:.1f} connections a process"
    )
    print(
        f"    lock waits: a bench backend waiting in {run.lock_waits:.0%} of samples "
        f"({run.waiting:.2f} on average{_statements(run.waiting_for)}); rating rows "
        f"{run.rating_rows / n:.2f} a result, {run.times.applied / n:.2f} matches applied per "
        f"update, {run.times.lost_races} appends lost to another worker (retried); CPU a result: "
        f"PostgreSQL {run.postgres_s / n * 1000:.1f} ms, workers "
        f"{run.times.cpu_s / n * 1000:.1f} ms; machine {run.cpu.busy / run.wall_s:.2f} of "
        f"{os.cpu_count()} cores busy"
    )


def _statements(counted: list[tuple[str, int]]) -> str:
    return "; waiting: " + ", ".join(f"{s} ({n})" for s, n in counted) if counted else ""


def _p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--slots", type=_counts, default=(1, 2, 4, 8, 16), help="e.g. 1,4,16")
    parser.add_argument("--processes", type=positive_int, default=4, help="worker processes")
    parser.add_argument("--entries", type=positive_int, default=20, help="active versions")
    parser.add_argument("--matches", type=positive_int, default=600, help="queued, per run")
    parser.add_argument("--results", type=int, default=0, help="played, per run (0: all)")
    parser.add_argument("--play-ms", type=int, default=0, help="a synthetic match's time")
    parser.add_argument("--match-s", type=float, default=40.0, help="a real match, for the answer")
    parser.add_argument("--timeout", type=positive_int, default=900, help="per run, s")
    parser.add_argument(
        "--url",
        default=os.environ.get("ARENA_BENCH_POSTGRES_URL", DEFAULT_URL),
        help="PostgreSQL (default: $ARENA_BENCH_POSTGRES_URL, else the tests' database)",
    )
    args = parser.parse_args(argv)
    if args.entries < 2:
        parser.error("--entries must be at least 2")
    print(
        f"{args.entries} entries, {args.matches} synthetic matches a run ({args.play_ms} ms "
        f"each), slots over up to {args.processes} processes, one PostgreSQL, "
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    runs = []
    try:
        with tempfile.TemporaryDirectory(prefix="arena-queue-bench-") as tmp:
            for slots in args.slots:
                runs.append(run := run_slots(args.url, slots, args, Path(tmp)))
                report(run)
                sys.stdout.flush()
    except (BenchError, StoreError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    best = max(runs, key=lambda r: r.per_s)
    pg_ms = statistics.median(r.postgres_s / r.results * 1000 for r in runs)
    per_core = 1000 / pg_ms if pg_ms > 0 else math.inf
    slots = per_core * args.match_s
    print(
        f"most here: {best.per_s:.1f} results/s with {best.slots} slots; PostgreSQL spends "
        f"{pg_ms:.1f} ms of CPU a result (median of the runs), so one core of it serves "
        f"{per_core:.0f} results/s: {slots:.0f} slots playing {args.match_s:g} s matches, "
        f"{per_core * 60:.0f} matches/min"
    )
    print(f"slots={slots:.0f} matches/min={per_core * 60:.0f}")
    return 0


def _counts(text_: str) -> tuple[int, ...]:
    values = tuple(sorted({positive_int(v) for v in text_.split(",") if v.strip()}))
    if not values:
        raise argparse.ArgumentTypeError("no slot count")
    return values


if __name__ == "__main__":
    sys.exit(main())
