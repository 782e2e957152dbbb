"""Matches each scheduler needs: to place a new entry, and to rank a whole ladder.

On the synthetic ladder of ``bench/ratings.py`` (true strengths normal, sd 200 Elo; a pair's
result simulated from them; Elo's maximum-likelihood fit), side by side for the round-robin
and the adaptive schedule (``arena.competition.matchmaking``):

1. **Placing a new entry** among ``--entries`` (200). Each of ``--ladders`` established
   ladders of 199 entries has played one round-robin and shows its fit; ``--newcomers`` new
   entries join each. The newcomer's rating is its maximum-likelihood estimate against the
   others' shown ratings held fixed (what the full fit does to within a fraction of an Elo
   when one entry adds 1% of the results; the full fit would take 0.2-0.4 s per look). Its
   *rank error* is its rank among the shown others by its estimate, minus its rank among
   them by its true strength (put on the fit's scale): where it is shown against where it
   belongs in the ladder as the ladder stands. The round-robin plays its ``grow`` matches
   (every other entry, in the order they joined, pass after pass); the adaptive schedule
   its placement matches (``best_opponents``, ``PLACEMENT_STEP`` per look), continued past
   ``PLACEMENT`` here to find what a tolerance would cost (an opponent met at most
   ``MAX_PER_PAIR`` times until every other has been, then as many more). For each tolerance:
   the matches
   after which 95% of runs are within it (round-robin: in whole passes, since that is what it
   schedules; also its first matches alone, as if stopped there), and how many runs' 95%
   intervals hold the truth then.
2. **The whole ladder** of ``--entries`` fresh entries, one run: the matches after which
   Spearman's correlation with the truth reaches each target, and the intervals' coverage.
   The adaptive schedule is looked at every ``--ladder-batch`` tables (the league plans 16
   at a time: same choices, more fits).

Last line: ``ratio=<matches adaptive / matches round-robin>`` to place a new entry among 200
within ±5 ranks in 95% of runs (``--tolerance``).

Beside them an *oracle*, told each newcomer's true strength: it meets the others nearest it,
each once a pass, every result a coin toss.

Run from the repository root: ``python bench/scheduling.py`` (about 280 s of CPU).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from ratings import SPREAD, simulate, spearman  # bench/ratings.py: its synthetic ladder

from arena.competition import (
    Adaptive,
    Entry,
    Fixture,
    ScoredMatch,
    Situation,
    Table,
    fit,
    round_robin,
)
from arena.competition.elo_ratings import INITIAL, NATS, PRIOR_SD, Z95
from arena.competition.matchmaking import (
    MAX_PER_PAIR,
    OPPONENT_SPREAD,
    PLACEMENT_STEP,
    best_opponents,
    placement_for,
)
from arena.competition.rating_model import EloFit
from arena.competition.schedule import match_seeds

TOLERANCES = (5, 10, 20, 40)  # ranks
QUANTILE = 0.95
SPEARMAN_TARGETS = (0.90, 0.95, 0.98)


@dataclass(frozen=True)
class Look:
    """The newcomer after ``matches`` of its matches."""

    matches: int
    rank_error: int
    covered: bool  # its true strength inside its 95% interval


def newcomer_fit(
    opponents: Sequence[float], scores: Sequence[float], centre: float = INITIAL
) -> tuple[float, float]:
    """The newcomer's MAP rating and sd (Elo) against opponents at fixed ratings, with the
    fit's prior (sd ``PRIOR_SD`` around the pool's mean)."""
    opp = np.asarray(opponents, dtype=np.float64) * NATS
    s = np.asarray(scores, dtype=np.float64)
    precision = (PRIOR_SD * NATS) ** -2
    r = centre * NATS
    info = precision
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(r - opp)))
        grad = float(np.sum(s - p)) - precision * (r - centre * NATS)
        info = float(np.sum(p * (1 - p))) + precision
        step = grad / info
        r += step
        if abs(step) < 1e-9:
            break
    return r / NATS, 1 / math.sqrt(info) / NATS


def score_of(truth_new: float, truth_opp: float, rng: random.Random) -> float:
    """A pair's score as ``bench/ratings.simulate`` draws it: a logistic point difference
    (draws the rare rounding to 0)."""
    mu = (truth_new - truth_opp) * NATS * 20.0
    u = rng.random() or 0.5
    diff = round(mu + 20.0 * math.log(u / (1 - u)))
    return 1.0 if diff > 0 else 0.0 if diff < 0 else 0.5


def place(
    scheduler: str,
    shown: dict[Entry, float],
    shown_sd: dict[Entry, float],
    truth: dict[Entry, float],
    new_truth: float,
    looks: Sequence[int],
    seed: int,
    spread: float = OPPONENT_SPREAD,
) -> list[Look]:
    """Play the newcomer's matches as ``scheduler`` chooses them; look at ``looks``."""
    rng = random.Random(seed)
    others = sorted(shown)
    mean_truth = statistics.fmean(truth.values())
    on_scale = INITIAL + new_truth - mean_truth  # its truth on the fit's scale
    true_rank = sum(shown[e] > on_scale for e in others)  # where it belongs, as shown
    opponents: list[float] = []
    scores: list[float] = []
    met: Counter[frozenset[Entry]] = Counter()
    estimate, sd = INITIAL, PRIOR_SD
    out = []
    new = "new"
    rating, sds = dict(shown), dict(shown_sd)
    for look in looks:
        while len(opponents) < look:
            if scheduler == "round-robin":  # grow: every other entry in join order, pass after pass
                chosen = [others[len(opponents) % len(others)]]
            elif scheduler == "oracle":  # told the truth: each result a coin toss, the most
                # a pair's win or loss can tell (Fisher information 1/4 per match); each
                # opponent once a pass, nearest first, so their own errors average out
                cap = 1 + len(opponents) // len(others)
                free = [e for e in others if met[frozenset((new, e))] < cap]
                chosen = [min(free, key=lambda e: (abs(truth[e] - new_truth), e))]
            else:
                rating[new], sds[new] = estimate, sd
                # Past placement, the cap on meeting one opponent rises by MAX_PER_PAIR
                # each time every other has met it that often; the look step grows too.
                cap = MAX_PER_PAIR * (1 + len(opponents) // (MAX_PER_PAIR * len(others)))
                free = [e for e in others if met[frozenset((new, e))] < cap]
                step = max(PLACEMENT_STEP, len(opponents) // 4)
                want = min(step, look - len(opponents))
                chosen = best_opponents(new, free, rating, sds, 1 / NATS, met, want, spread)
            for e in chosen:
                met[frozenset((new, e))] += 1
                opponents.append(shown[e])
                scores.append(score_of(new_truth, truth[e], rng))
            estimate, sd = newcomer_fit(opponents, scores)
        rank = sum(shown[e] > estimate for e in others)
        covered = abs(estimate - on_scale) <= Z95 * sd
        out.append(Look(look, rank - true_rank, covered))
    return out


def placement(args: argparse.Namespace) -> float:
    n = args.entries - 1
    passes = args.passes
    most = n * passes
    ad_looks = sorted({*range(8, 65, 8), *range(96, 513, 32), *range(640, most + 1, 128)})
    ad_looks = [k for k in ad_looks if k <= most] or [most]
    # The round-robin looked at the same matches too: its first k stand beside the others.
    rr_looks = sorted(
        {*range(8, min(200, most + 1), 8), *ad_looks, *(n * k for k in range(1, passes + 1))}
    )
    runs: dict[str, list[list[Look]]] = {"round-robin": [], "adaptive": [], "oracle": []}
    for ladder in range(args.ladders):
        rng = random.Random(ladder)
        truth: dict[Entry, float] = {e: rng.gauss(0.0, SPREAD) for e in range(n)}
        played = simulate(round_robin(list(truth), "pairs", 1, b"l%d" % ladder), truth, ladder)
        fitted = fit(played)
        shown = {e.entry: e.elo for e in fitted.ranking}
        shown_sd = {e.entry: e.ci95 / Z95 for e in fitted.ranking}
        for k in range(args.newcomers):
            new_truth = rng.gauss(0.0, SPREAD)
            seed = 1000 * ladder + k
            runs["round-robin"].append(
                place("round-robin", shown, shown_sd, truth, new_truth, rr_looks, seed)
            )
            runs["adaptive"].append(
                place("adaptive", shown, shown_sd, truth, new_truth, ad_looks, seed, args.spread)
            )
            runs["oracle"].append(
                place("oracle", shown, shown_sd, truth, new_truth, ad_looks, seed)
            )
    count = len(runs["adaptive"])
    print(
        f"placing   a new entry among {args.entries} ({args.ladders} ladders x {args.newcomers}"
        f" newcomers = {count} runs; sd of truth {SPREAD:.0f} Elo): matches until {QUANTILE:.0%}"
        " of runs are within the rank error, and the share of runs whose 95% interval holds"
        " the truth then"
    )
    print(
        f"          {'within':>8} {'round-robin (passes)':>24}"
        f" {'round-robin (first k)':>24} {'adaptive':>18} {'oracle':>18}"
    )
    needed: dict[int, tuple[int | None, int | None, int | None]] = {}
    for tol in args.tolerances:
        rr_pass = first_within(runs["round-robin"], tol, {n * k for k in range(1, passes + 1)})
        rr_any = first_within(runs["round-robin"], tol, None)
        ad = first_within(runs["adaptive"], tol, None)
        oracle = first_within(runs["oracle"], tol, None)
        needed[tol] = (ad[0], rr_pass[0], oracle[0])
        print(
            f"          {f'±{tol}':>8} {cell(rr_pass):>24} {cell(rr_any):>24} {cell(ad):>18}"
            f" {cell(oracle):>18}"
        )
    rr_one = quantile_at(runs["round-robin"], n)
    placing = placement_for(args.entries)[0]
    ad_default = quantile_at(runs["adaptive"], placing)
    print(
        f"          as scheduled: round-robin {n} matches, {QUANTILE:.0%} of runs within"
        f" ±{rr_one[0]} ranks ({rr_one[1]:.0%} covered); adaptive placement {placing} matches,"
        f" within ±{ad_default[0]} ({ad_default[1]:.0%} covered)"
    )
    ad_n, rr_n, oracle_n = needed[args.tolerance]
    if ad_n is None or rr_n is None:
        return float("nan")
    if oracle_n is not None:
        print(
            f"          oracle (told each newcomer's true strength, it meets those nearest it,"
            f" each once a pass): {oracle_n} matches for ±{args.tolerance},"
            f" ratio {oracle_n / rr_n:.3f}"
        )
    return ad_n / rr_n


def first_within(
    runs: list[list[Look]], tol: int, allowed: set[int] | None
) -> tuple[int | None, float]:
    """The first look at which ``QUANTILE`` of runs are within ``tol``, and coverage then."""
    for i, look in enumerate(runs[0]):
        if allowed is not None and look.matches not in allowed:
            continue
        errors = [abs(r[i].rank_error) for r in runs]
        if sum(e <= tol for e in errors) >= QUANTILE * len(runs):
            return look.matches, statistics.fmean(r[i].covered for r in runs)
    return None, float("nan")


def quantile_at(runs: list[list[Look]], matches: int) -> tuple[int, float]:
    # The look at ``matches``, or the last before it (a small ladder's runs are short).
    i = max(i for i, look in enumerate(runs[0]) if look.matches <= matches or i == 0)
    errors = sorted(abs(r[i].rank_error) for r in runs)
    return errors[math.ceil(QUANTILE * len(errors)) - 1], statistics.fmean(
        r[i].covered for r in runs
    )


def cell(found: tuple[int | None, float]) -> str:
    matches, covered = found
    return "not reached" if matches is None else f"{matches} ({covered:.0%})"


def whole_ladder(args: argparse.Namespace) -> None:
    rng = random.Random(7)
    entries: list[Entry] = list(range(args.entries))
    truth = {e: rng.gauss(0.0, SPREAD) for e in entries}
    key = b"whole"
    print(
        f"ladder    {args.entries} fresh entries, one run: matches until Spearman reaches each"
        " target (coverage of the 95% intervals then)"
    )
    # Round-robin: its circle, pass after pass, looked at every 1,000 matches.
    schedule = round_robin(entries, "pairs", 2, key)
    results = simulate(schedule, truth, 1)
    rr: dict[float, str] = {}
    for k in range(1000, len(results) + 1, 1000):
        rho, covered = quality(results[:k], truth, entries)
        for target in SPEARMAN_TARGETS:
            if target not in rr and rho >= target:
                rr[target] = f"{k} ({covered:.0%})"
        if len(rr) == len(SPEARMAN_TARGETS):
            break
    # Adaptive: plan, play, look, until it schedules nothing or reaches every target.
    scheduler = Adaptive(batch=args.ladder_batch, spread=args.spread)
    model = EloFit()
    scheduled: list[Table] = []
    played: list[ScoredMatch] = []
    ad: dict[float, str] = {}
    sim = random.Random(2)
    while len(ad) < len(SPEARMAN_TARGETS):
        ranking = model.show(played, entries, {})
        tables = scheduler.next_tables(Situation(entries, scheduled, ranking))
        if not tables:
            break
        seeds = match_seeds(key, len(scheduled), len(tables))
        matches = [
            Fixture(len(scheduled) + i, s, t)
            for i, (s, t) in enumerate(zip(seeds, tables, strict=True))
        ]
        scheduled += tables
        played += simulate(matches, truth, sim.randrange(2**32))
        rho, covered = quality(played, truth, entries)
        for target in SPEARMAN_TARGETS:
            if target not in ad and rho >= target:
                ad[target] = f"{len(played)} ({covered:.0%})"
    print(f"          {'Spearman':>8} {'round-robin':>18} {'adaptive':>18}")
    for target in SPEARMAN_TARGETS:
        print(
            f"          {target:>8.2f} {rr.get(target, 'not reached'):>18}"
            f" {ad.get(target, f'not reached in {len(played)}'):>18}"
        )


def quality(
    results: list[ScoredMatch], truth: dict[Entry, float], entries: list[Entry]
) -> tuple[float, float]:
    fitted = fit(results, entries)
    rho = spearman([truth[e] for e in entries], [fitted[e].elo for e in entries])
    mean = statistics.fmean(truth.values())
    inside = sum(fitted[e].low <= INITIAL + truth[e] - mean <= fitted[e].high for e in entries)
    return rho, inside / len(entries)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--ladders", type=int, default=5)
    parser.add_argument("--newcomers", type=int, default=20, help="per ladder")
    parser.add_argument("--passes", type=int, default=20, help="round-robin passes at most")
    parser.add_argument("--tolerances", type=int, nargs="+", default=list(TOLERANCES))
    parser.add_argument("--tolerance", type=int, default=5, help="the ratio's, in ranks")
    parser.add_argument("--ladder-batch", type=int, default=100)
    parser.add_argument(
        "--spread", type=float, default=OPPONENT_SPREAD, help="the adaptive opponents' spread"
    )
    parser.add_argument("--skip-ladder", action="store_true", help="placement only")
    args = parser.parse_args(argv)
    if args.tolerance not in args.tolerances:
        args.tolerances.append(args.tolerance)
    start = time.process_time()
    ratio = placement(args)
    if not args.skip_ladder:
        whole_ladder(args)
    print(f"cpu       {time.process_time() - start:.0f} s")
    print(f"ratio={ratio:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
