"""Ratings from duplicate-pair results: sequential Elo, and a batch maximum-likelihood fit.

Both use one model: a team's strength is the mean of its partners' ratings (in ``pairs`` a
team is one entry twice, so just that entry's), and team 0 scores
``1 / (1 + 10 ** ((R1 - R0) / 400))`` of a pair in expectation.

The fit is Bradley-Terry with draws as half a win (Ordo's choice): the log-likelihood of a
pair scored ``s`` is ``s log p + (1 - s) log(1 - p)``. It needs no draw parameter, and its
ratings are on the same scale as the sequential Elo's, whose expectation is that same ``p``.
(BayesElo's draw model would also fit a draw rate; duplicate Back Alley draws are rare, so
it would mostly add a parameter poorly determined.) A Gaussian prior, sd ``PRIOR_SD`` Elo
around the pool mean, keeps an undefeated entry finite; it is weak beside a few dozen pairs.

Intervals come from the inverse Hessian at the optimum, taken relative to the pool mean
(the prior's own uncertainty about where the whole pool sits is not about any entry).
The likelihood of superiority ``LOS(a, b) = Phi((Ra - Rb) / sd(Ra - Rb))`` uses the same
covariance. Everything is deterministic: entries are ordered by ``entry_key`` and results
aggregated into integer counts before any floating point, so permuting the results changes
nothing, not even a last bit.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Protocol

import numpy as np
import numpy.typing as npt
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from .results import ScoredMatch, entry_key
from .schedule import Entry

INITIAL = 1500.0
K = 16.0
PRIOR_SD = 400.0  # Elo
Z95 = 1.959963984540054  # two-sided 95% quantile of the normal
SEPARATED = 0.95  # LOS above which two neighbours are told apart
NATS = math.log(10) / 400  # Elo points to natural-log odds

Floats = npt.NDArray[np.float64]


# --- sequential Elo ---------------------------------------------------------------------


def elo_steps(
    results: Iterable[ScoredMatch],
    k: float = K,
    initial: float = INITIAL,
    start: Mapping[Entry, float] | None = None,
) -> Iterator[tuple[int, dict[Entry, float]]]:
    """Apply results in schedule order (sorted by index here, whatever order they came in);
    after each, yield its index and the new ratings of the entries that played."""
    ratings: dict[Entry, float] = dict(start or {})
    for r in in_schedule_order(results):
        _apply(ratings, r, k, initial)
        (a, c), (b, d) = r.teams
        yield r.index, {e: ratings[e] for e in sorted({a, b, c, d}, key=entry_key)}


def elo(
    results: Iterable[ScoredMatch],
    k: float = K,
    initial: float = INITIAL,
    entries: Iterable[Entry] = (),
) -> dict[Entry, float]:
    """Every entry's Elo after all results in schedule order, ordered by ``entry_key``;
    ``entries`` adds those without results (at ``initial``)."""
    ratings = dict.fromkeys(entries, initial)
    for r in in_schedule_order(results):
        _apply(ratings, r, k, initial)
    return {e: ratings[e] for e in sorted(ratings, key=entry_key)}


def in_schedule_order(results: Iterable[ScoredMatch]) -> list[ScoredMatch]:
    ordered = sorted(results, key=attrgetter("index"))
    for before, after in itertools.pairwise(ordered):
        if before.index == after.index:
            raise ValueError(f"match {after.index} has two results")
    return ordered


def _apply(ratings: dict[Entry, float], r: ScoredMatch, k: float, initial: float) -> None:
    (a, c), (b, d) = r.teams
    ra, rb, rc, rd = (ratings.get(e, initial) for e in (a, b, c, d))
    delta = k * (r.score - 1.0 / (1.0 + 10.0 ** ((rb + rd - ra - rc) / 800.0)))
    # Both partners get the team's change; (a, a) in pairs is one entry and moves once.
    ratings[a] = ra + delta
    ratings[c] = rc + delta
    ratings[b] = rb - delta
    ratings[d] = rd - delta


# --- maximum-likelihood fit -------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    entry: Entry
    elo: float  # the pool's mean is INITIAL
    ci95: float  # half-width of the 95% interval
    los_next: float | None  # LOS over the next entry down the ranking; None for the last

    @property
    def low(self) -> float:
        return self.elo - self.ci95

    @property
    def high(self) -> float:
        return self.elo + self.ci95


@dataclass(frozen=True, eq=False)
class Fit:
    ranking: tuple[Estimate, ...]  # best first; equal Elo by entry_key
    _position: dict[Entry, int] = field(repr=False)  # entry -> row of _cov
    _cov: Floats = field(repr=False)  # posterior covariance, natural-log units
    _elo: Floats = field(repr=False)

    def __getitem__(self, entry: Entry) -> Estimate:
        for e in self.ranking:
            if e.entry == entry:
                return e
        raise KeyError(entry)

    def los(self, a: Entry, b: Entry) -> float:
        """Likelihood that ``a`` is stronger than ``b``."""
        return _los(self._cov, self._elo, self._position[a], self._position[b])


def _los(cov: Floats, elo: Floats, i: int, j: int) -> float:
    if i == j:
        return 0.5
    var = cov[i, i] + cov[j, j] - 2 * cov[i, j]
    z = (elo[i] - elo[j]) * NATS / math.sqrt(max(var, 1e-300))
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2)))


def fit(
    results: Iterable[ScoredMatch],
    entries: Iterable[Entry] = (),
    prior_sd: float = PRIOR_SD,
    initial: float = INITIAL,
) -> Fit:
    """The maximum a posteriori ratings of all entries in ``results`` (and ``entries``)."""
    # Count first (C speed, exact), then fold each distinct (teams, score) into its table's
    # row, keyed by entry positions: integers sort and hash fast.
    counted = Counter(map(attrgetter("teams", "score"), results))
    names = {e for teams, _ in counted for team in teams for e in team} | set(entries)
    order = sorted(names, key=entry_key)
    position = {e: i for i, e in enumerate(order)}
    rows: dict[tuple[int, int, int, int], list[int]] = {}
    for (((a, c), (b, d)), score), times in counted.items():
        t0, t1 = sorted((position[a], position[c])), sorted((position[b], position[d]))
        half = round(2 * score)  # half-points won by team 0: exact integers
        if t1 < t0:  # one row per table, whichever team was first
            t0, t1, half = t1, t0, 2 - half
        row = rows.setdefault((t0[0], t0[1], t1[0], t1[1]), [0, 0])
        row[0] += times
        row[1] += times * half
    if not order:
        return Fit((), {}, np.zeros((0, 0)), np.zeros(0))
    keys = sorted(rows)
    cols = np.array(keys, dtype=np.intp).reshape(-1, 4)
    counts = np.array([rows[key][0] for key in keys], dtype=np.float64)
    scores = np.array([rows[key][1] for key in keys], dtype=np.float64) / 2
    # Single-threaded BLAS: a 200x200 solve gains nothing from threads, and on a busy machine
    # (workers playing games) OpenBLAS's spinning threads made each solve ~100x slower.
    with threadpool_limits(1, "blas"):
        ratings, cov = _map(cols, counts, scores, len(order), (prior_sd * NATS) ** -2)
    elo = initial + (ratings - ratings.mean()) / NATS
    sd = np.sqrt(np.maximum(_relative_variances(cov), 0.0)) / NATS
    ranked = sorted(range(len(order)), key=lambda i: (-elo[i], entry_key(order[i])))
    estimates = [
        Estimate(
            order[i],
            float(elo[i]),
            float(Z95 * sd[i]),
            _los(cov, elo, i, ranked[n + 1]) if n + 1 < len(ranked) else None,
        )
        for n, i in enumerate(ranked)
    ]
    return Fit(tuple(estimates), position, cov, elo)


WEIGHTS = np.array([0.5, 0.5, -0.5, -0.5])  # team 0's partners, then team 1's


def _map(
    cols: npt.NDArray[np.intp], counts: Floats, scores: Floats, n: int, precision: float
) -> tuple[Floats, Floats]:
    """Newton's method on the log-posterior (strictly concave: the prior sees to it).

    Each row is a table: ``x = W . r`` is team 0's advantage in log-odds, played ``counts``
    times, scoring ``scores``. Returns the ratings and the inverse of the negative Hessian.
    """
    r = np.zeros(n)
    # Hessian entries W_i W_j for each of a row's 16 (col, col) pairs, flattened once.
    flat = (cols[:, :, None] * n + cols[:, None, :]).reshape(-1)
    ww = np.outer(WEIGHTS, WEIGHTS).reshape(-1)

    def logpost(r: Floats) -> float:
        x = _advantage(r, cols)
        # s log sig(x) + (c - s) log sig(-x), written stably.
        ll = -(scores * np.logaddexp(0.0, -x) + (counts - scores) * np.logaddexp(0.0, x))
        return float(ll.sum() - precision * float(np.square(r).sum()) / 2)

    current = logpost(r)
    for _ in range(100):
        x = _advantage(r, cols)
        p = 1.0 / (1.0 + np.exp(-x))
        resid = scores - counts * p
        grad = _sums(cols.reshape(-1), (resid[:, None] * WEIGHTS).reshape(-1), n)
        grad -= precision * r
        info = counts * p * (1.0 - p)
        hess = _sums(flat, (info[:, None] * ww).reshape(-1), n * n).reshape(n, n)
        hess[np.diag_indices(n)] += precision
        step = np.linalg.solve(hess, grad)
        scale = 1.0
        while True:  # halve the step until the posterior improves (rarely needed)
            trial = r + scale * step
            value = logpost(trial)
            if value >= current or scale < 1e-6:
                break
            scale /= 2
        r, current = trial, value
        if float(np.max(np.abs(scale * step), initial=0.0)) < 1e-9:
            break
    return r, np.asarray(np.linalg.inv(hess), dtype=np.float64)


def _advantage(r: Floats, cols: npt.NDArray[np.intp]) -> Floats:
    """Team 0's advantage ``W . r`` per row (elementwise: no BLAS call for 4 columns)."""
    t = r[cols]
    x: Floats = (t[:, 0] + t[:, 1] - t[:, 2] - t[:, 3]) * 0.5
    return x


def _sums(at: npt.NDArray[np.intp], weights: Floats, size: int) -> Floats:
    """Sum of ``weights`` by position ``at`` (``np.bincount``, typed as what it returns)."""
    return np.asarray(np.bincount(at, weights, size), dtype=np.float64)


def _relative_variances(cov: Floats) -> Floats:
    """Var(r_i - mean(r)) for each i."""
    row_means = cov.mean(axis=1)
    result: Floats = np.diag(cov) - 2 * row_means + row_means.mean()
    return result


# --- groups -----------------------------------------------------------------------------


class Ranked(Protocol):
    """An entry in a ranking, with its LOS over the next one down (``Estimate``, or a
    rating model's ``Shown``)."""

    @property
    def entry(self) -> Entry: ...
    @property
    def los_next(self) -> float | None: ...


def groups(ranking: Sequence[Ranked], separated: float = SEPARATED) -> list[list[Entry]]:
    """Runs of neighbours in the ranking that can't yet be told apart: a new group starts
    below an entry whose LOS over the next one reaches ``separated``."""
    out: list[list[Entry]] = []
    split = True
    for est in ranking:
        if split:
            out.append([])
        out[-1].append(est.entry)
        split = est.los_next is not None and est.los_next >= separated
    return out
