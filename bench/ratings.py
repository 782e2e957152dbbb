"""Ladder scheduling and rating speed, against the issue's targets (under 2 s each).

Builds ``--entries`` (200) synthetic entries with known true strengths, schedules their
round-robin (pairs format, enough games per pairing for ``--results`` matches), simulates
``--results`` (100,000) duplicate pair results from the true strengths with a seeded RNG,
and times:

- schedule: ``round_robin`` of the entries; the baseline is a bare list of pairings
  (``itertools.combinations``, no seeds, no Match objects) of the same length;
- ratings: a full recompute, sequential Elo plus the maximum-likelihood fit; the baseline is
  one plain pass summing each entry's score, the least any rating must do.

Each is timed ``--rounds`` times; the medians of wall clock and CPU time are printed (on a
shared machine the gap is others' load). Then it checks the fit against the truth:
Spearman's rank correlation, and how many true strengths fall in their 95% interval.
Exit status 1 if a target is missed.

Run from the repository root: ``python bench/ratings.py [--entries 200] [--results 100000]``.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from arena.ladder import Entry, Fit, Match, Result, elo, fit, match_count, round_robin
from arena.ladder.schedule import MIXED_MAX_ENTRIES

TARGET = 2.0  # seconds, each of schedule and ratings
SPREAD = 200.0  # sd of the true strengths, Elo
POINTS = 20.0  # scale of a pair's point difference: draws are the rare |diff| < 0.5

T = TypeVar("T")


def timed(fn: Callable[[], T], rounds: int) -> tuple[float, float, T]:
    """Median wall-clock and CPU seconds of ``rounds`` calls (the CPU time shows what a
    shared machine's load added to the wall clock), and the last call's value."""
    walls, cpus, out = [], [], None
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    assert out is not None
    return statistics.median(walls), statistics.median(cpus), out


def simulate(matches: Sequence[Match], truth: dict[Entry, float], seed: int) -> list[Result]:
    """A point difference from a logistic whose P(> 0) is Elo's expectation of the truth."""
    rng = random.Random(seed)
    out = []
    for m in matches:
        (a, _), (b, _) = m.teams
        mu = (truth[a] - truth[b]) * math.log(10) / 400 * POINTS
        u = rng.random() or 0.5
        diff = round(mu + POINTS * math.log(u / (1 - u)))
        base = rng.randrange(100, 400)
        out.append(Result.of(m, (base + max(diff, 0), base + max(-diff, 0))))
    return out


def ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    for rank, i in enumerate(order):
        r[i] = float(rank)
    return r


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    rx, ry = ranks(x), ranks(y)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    return cov / math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))


def plain_scores(results: Sequence[Result]) -> dict[Entry, float]:
    score: dict[Entry, float] = {}
    for r in results:
        a, b = r.teams[0][0], r.teams[1][0]
        score[a] = score.get(a, 0.0) + r.score
        score[b] = score.get(b, 0.0) + 1.0 - r.score
    return score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3, help="timings per figure (median)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    entries: list[Entry] = list(range(args.entries))
    truth: dict[Entry, float] = {e: rng.gauss(0.0, SPREAD) for e in entries}
    per_pairing = max(1, math.ceil(args.results / match_count(args.entries)))

    t_sched, c_sched, schedule = timed(
        lambda: round_robin(entries, "pairs", per_pairing, args.seed), args.rounds
    )
    t_base, _, _ = timed(
        lambda: [p for _ in range(per_pairing) for p in itertools.combinations(entries, 2)],
        args.rounds,
    )
    mixed = list(range(MIXED_MAX_ENTRIES))
    t_mixed, _, tables = timed(lambda: round_robin(mixed, "mixed", 1, args.seed), args.rounds)
    print(
        f"schedule  {args.entries} entries x {per_pairing} per pairing = {len(schedule):,} "
        f"matches: {t_sched:.3f} s (CPU {c_sched:.3f} s)   target < {TARGET:.0f} s   "
        f"baseline (bare pairings) {t_base:.3f} s"
    )
    print(
        f"          mixed at its cap: {len(mixed)} entries, {len(tables):,} tables: {t_mixed:.3f} s"
    )

    results = simulate(schedule[: args.results], truth, args.seed + 1)
    draws = sum(r.score == 0.5 for r in results) / len(results)

    def recompute() -> tuple[dict[Entry, float], Fit]:
        return elo(results), fit(results)

    t_rate, c_rate, (seq, fitted) = timed(recompute, args.rounds)
    t_elo, _, _ = timed(lambda: elo(results), args.rounds)
    t_plain, _, _ = timed(lambda: plain_scores(results), args.rounds)
    print(
        f"ratings   {len(results):,} results ({draws:.1%} draws), Elo pass + ML fit: "
        f"{t_rate:.3f} s (CPU {c_rate:.3f} s; Elo alone {t_elo:.3f} s)   target < {TARGET:.0f} s   "
        f"baseline (plain score sum) {t_plain:.3f} s"
    )

    true = [truth[e] for e in entries]
    rho_fit = spearman(true, [fitted[e].elo for e in entries])
    rho_seq = spearman(true, [seq[e] for e in entries])
    print(f"accuracy  Spearman vs truth: fit {rho_fit:.4f}, sequential Elo {rho_seq:.4f}")
    mean = statistics.fmean(true)
    inside = sum(fitted[e].low <= 1500 + truth[e] - mean <= fitted[e].high for e in entries)
    width = statistics.fmean(2 * fitted[e].ci95 for e in entries)
    print(
        f"          truth inside its 95% interval: {inside}/{len(entries)}, width {width:.1f} Elo"
    )
    ok = t_sched < TARGET and t_rate < TARGET
    load = os.getloadavg()[0]
    print(f"machine   {os.cpu_count()} cores, load average {load:.1f} (others' work slows these)")
    print(f"{'ok' if ok else 'SLOW'}: schedule {t_sched:.3f} s, ratings {t_rate:.3f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
