"""Ladder scheduling and rating speed, against the issue's targets (under 2 s each).

Builds ``--entries`` (200) synthetic entries with known true strengths, schedules their
round-robin (pairs format, enough games per pairing for ``--results`` matches), simulates
``--results`` (100,000) duplicate pair results from the true strengths with a seeded RNG,
and times:

- schedule: ``round_robin`` of the entries; the baseline is a bare list of pairings
  (``itertools.combinations``, no seeds, no Fixture objects) of the same length;
- ratings: a full recompute, sequential Elo plus the maximum-likelihood fit; the baseline is
  one plain pass summing each entry's score, the least any rating must do.

Each is timed ``--rounds`` times; the medians of wall clock and CPU time are printed (on a
shared machine the gap is others' load). Then it checks the fit against the truth:
Spearman's rank correlation, and how many true strengths fall in their 95% interval.
Exit status 1 if a target is missed.

Then the rating models through their one interface (``arena.competition.rating_model``): for
the pairs and the mixed formats, ``--model-entries`` entries (20 and 12) over ``--seeds``
seeded runs, each model's Spearman correlation with the true strengths and the share of
true strengths inside their 95% interval, after 50, 200 and 1,000 results per entry. The
truth is put on each model's scale (Elo; Weng-Lin's mu, whose teams add their partners
where Elo averages them, at the logistic scale ``sqrt(2) beta`` of certain ratings) and
centred on the model's own pool mean: a rating says where an entry is among the others.

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

from arena.competition import (
    EloFit,
    Entry,
    Fit,
    Fixture,
    Format,
    RatingModel,
    ScoredMatch,
    SequentialElo,
    elo,
    fit,
    match_count,
    round_robin,
    states_after,
)
from arena.competition.elo_ratings import NATS
from arena.competition.schedule import MIXED_MAX_ENTRIES
from arena.competition.weng_lin import MU, WengLin

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


def simulate(matches: Sequence[Fixture], truth: dict[Entry, float], seed: int) -> list[ScoredMatch]:
    """A point difference from a logistic whose P(> 0) is Elo's expectation of the truth."""
    rng = random.Random(seed)
    out = []
    for m in matches:
        (a, _), (b, _) = m.teams
        mu = (truth[a] - truth[b]) * math.log(10) / 400 * POINTS
        u = rng.random() or 0.5
        diff = round(mu + POINTS * math.log(u / (1 - u)))
        base = rng.randrange(100, 400)
        out.append(ScoredMatch.of(m, (base + max(diff, 0), base + max(-diff, 0))))
    return out


def simulate_teams(
    matches: Sequence[Fixture], truth: dict[Entry, float], seed: int
) -> list[ScoredMatch]:
    """As ``simulate``, a team's strength its partners' mean (``mixed``; in ``pairs`` one
    entry twice)."""
    rng = random.Random(seed)
    out = []
    for m in matches:
        (a, c), (b, d) = m.teams
        mu = (truth[a] + truth[c] - truth[b] - truth[d]) / 2 * math.log(10) / 400 * POINTS
        u = rng.random() or 0.5
        diff = round(mu + POINTS * math.log(u / (1 - u)))
        base = rng.randrange(100, 400)
        out.append(ScoredMatch.of(m, (base + max(diff, 0), base + max(-diff, 0))))
    return out


CHECKPOINTS = (50, 200, 1000)  # results per entry
MODEL_ENTRIES: dict[Format, int] = {"pairs": 20, "mixed": 12}


def on_scale(model: RatingModel, fmt: Format, elo_above_mean: float) -> float:
    """A true strength (Elo above the pool's mean) in the model's units, above its mean."""
    if isinstance(model, WengLin):
        beta = MU / 6  # openskill's default
        partners = 1 if fmt == "pairs" else 2  # Weng-Lin's team is its partners' sum
        return elo_above_mean * NATS * math.sqrt(2) * beta / partners
    return elo_above_mean


def model_accuracy(seeds: int, entries_of: dict[Format, int]) -> None:
    """Spearman and 95% coverage per model, format and checkpoint, over ``seeds`` runs."""
    models: list[RatingModel] = [SequentialElo(), EloFit(), WengLin()]
    print(
        f"models    Spearman vs truth / truth inside its 95% interval, mean of {seeds} runs"
        f" (sd of truth {SPREAD:.0f} Elo)"
    )
    print(
        f"          {'format':7} {'model':15} " + "".join(f"{k:>6}/entry   " for k in CHECKPOINTS)
    )
    for fmt, n in entries_of.items():
        per_result = 2 if fmt == "pairs" else 4  # entries a result rates
        figures: dict[str, list[list[tuple[float, float]]]] = {m.name: [] for m in models}
        for seed in range(seeds):
            rng = random.Random(1000 + seed)
            entries: list[Entry] = list(range(n))
            truth = {e: rng.gauss(0.0, SPREAD) for e in entries}
            mean = statistics.fmean(truth.values())
            needed = math.ceil(max(CHECKPOINTS) * n / per_result)
            per_pairing = 1
            while (
                len(schedule := round_robin(entries, fmt, per_pairing, str(seed).encode())) < needed
            ):
                per_pairing += 1
            results = simulate_teams(schedule[:needed], truth, seed + 1)
            for model in models:
                row = []
                for k in CHECKPOINTS:
                    seen = results[: math.ceil(k * n / per_result)]
                    shown = model.show(seen, entries, states_after(model, seen, entries))
                    centre = statistics.fmean(shown[e].rating for e in entries)
                    true = {e: centre + on_scale(model, fmt, truth[e] - mean) for e in entries}
                    rho = spearman([truth[e] for e in entries], [shown[e].rating for e in entries])
                    inside = sum(shown[e].low <= true[e] <= shown[e].high for e in entries) / n
                    row.append((rho, inside))
                figures[model.name].append(row)
        for name, runs in figures.items():
            means = [
                (statistics.fmean(r[i][0] for r in runs), statistics.fmean(r[i][1] for r in runs))
                for i in range(len(CHECKPOINTS))
            ]
            cells = "".join(f"{rho:>7.3f} {inside:>4.0%}   " for rho, inside in means)
            print(f"          {fmt:7} {name:15} {cells}")


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


def plain_scores(results: Sequence[ScoredMatch]) -> dict[Entry, float]:
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
    parser.add_argument("--seeds", type=int, default=5, help="runs per model figure (mean)")
    parser.add_argument(
        "--models-only", action="store_true", help="only the rating models' accuracy"
    )
    args = parser.parse_args(argv)
    if args.models_only:
        model_accuracy(args.seeds, MODEL_ENTRIES)
        return 0

    rng = random.Random(args.seed)
    entries: list[Entry] = list(range(args.entries))
    truth: dict[Entry, float] = {e: rng.gauss(0.0, SPREAD) for e in entries}
    per_pairing = max(1, math.ceil(args.results / match_count(args.entries)))

    t_sched, c_sched, schedule = timed(
        lambda: round_robin(entries, "pairs", per_pairing, str(args.seed).encode()), args.rounds
    )
    t_base, _, _ = timed(
        lambda: [p for _ in range(per_pairing) for p in itertools.combinations(entries, 2)],
        args.rounds,
    )
    mixed = list(range(MIXED_MAX_ENTRIES))
    t_mixed, _, tables = timed(
        lambda: round_robin(mixed, "mixed", 1, str(args.seed).encode()), args.rounds
    )
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
    model_accuracy(args.seeds, MODEL_ENTRIES)
    ok = t_sched < TARGET and t_rate < TARGET
    load = os.getloadavg()[0]
    print(f"machine   {os.cpu_count()} cores, load average {load:.1f} (others' work slows these)")
    print(f"{'ok' if ok else 'SLOW'}: schedule {t_sched:.3f} s, ratings {t_rate:.3f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
