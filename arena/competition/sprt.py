"""A sequential probability ratio test over duplicate pairs: is A stronger than B?

The unit of evidence is a duplicate *pair* of games (the same deals twice, partnerships
swapped), as in fishtest, where a game pair with colours reversed is the unit: the two games
share their cards, so they are correlated, and only pairs are independent.

Each pair gives A a score in [0, 1] from a small set of values (``outcomes``):

* ``PAIR`` (0, 1/2, 1), the default: more points over the two games wins the pair, equal
  points draw it (``arena.competition.pairs``, the ladder's own scoring). Counts are
  trinomial per pair.
* ``PENTANOMIAL`` (0, 1/4, 1/2, 3/4, 1): each game won, drawn or lost by A's team scores
  1, 1/2 or 0, and the pair scores their mean: fishtest's pentanomial model exactly.

``PAIR`` is the default because duplicate play exists to cancel the cards: summing the two
games' points first lets the luck of the deal (which swings each game by hundreds of points,
one way in the first game and the other way in the second) cancel before the sign is taken,
whereas per-game results keep it, and most pairs of close bots then come out one game each.
It is also the scale of the ladder's ratings (its Elo is per pair by points), so "20 Elo"
means the same in ``arena compare`` as on the ladder.

The test is fishtest's generalized SPRT with the logistic Elo model: H0 says A's expected
pair score is ``score(elo0)``, H1 ``score(elo1)``, with ``score(e) = 1 / (1 + 10^(-e/400))``.
Nothing else about the distribution of outcomes is assumed: under each hypothesis it is the
maximum-likelihood distribution over ``outcomes`` whose mean is that score (a one-parameter
root, found by bisection), and the LLR is the log of the ratio of the two likelihoods. This
is fishtest's exact ``LLR_logistic`` (its ``MLE_expected`` under each hypothesis), not its
approximation ``LLR_alt`` (from the mean and variance alone), which with a near-zero
variance (two identical deterministic bots draw every pair) would claim H0 after three or
four pairs; the exact form needs ~50 such pairs at the defaults, which is what N
draws in a row honestly prove: that no more than ~6 % of pairs are won.

Counts that are zero are replaced by 1e-3 before the fit (fishtest's ``regularize``), so
that both constrained maxima exist whatever has been seen; a stream of draws then drifts to
H0 and a stream of wins to H1, each at ~0.06 per pair at the defaults (53 pairs).

Stopping bounds are Wald's: ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``.

>>> t = Sprt()
>>> [round(b, 3) for b in t.bounds]
[-2.944, 2.944]
>>> for _ in range(53):
...     verdict = t.update(1.0)
>>> verdict, t.pairs
('H1', 53)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

PAIR: tuple[float, ...] = (0.0, 0.5, 1.0)
PENTANOMIAL: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
REGULARIZE = 1e-3  # stands in for a zero count (fishtest's regularize)
Z95 = 1.959963984540054  # two-sided 95% quantile of the normal

Verdict = Literal["H0", "H1"]


def score(elo: float) -> float:
    """A's expected pair score at an Elo difference (the logistic model)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_of(s: float) -> float:
    """The Elo difference of an expected score; +-inf at 1 and 0."""
    if s >= 1.0:
        return math.inf
    if s <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / s - 1.0) + 0.0  # + 0.0: never -0.0


@dataclass(frozen=True)
class Summary:
    pairs: int
    counts: tuple[int, ...]  # pairs per outcome value, in the order of ``outcomes``
    wins: int  # pairs A scored above 1/2
    draws: int
    losses: int
    score: float  # A's mean pair score (0.5 before any pair)
    elo: float  # its Elo difference (+-inf after only wins or only losses)
    elo_error: float  # half-width of a 95% interval (delta method, empirical variance)
    llr: float
    bounds: tuple[float, float]
    verdict: Verdict | None


class Sprt:
    """A test of ``elo <= elo0`` (H0) against ``elo >= elo1`` (H1) for A against B.

    Feed it A's pair scores in the order the pairs were scheduled; the counts, the LLR and
    the verdict depend only on what was fed, so a seeded run always stops at the same pair.
    A sequential test stops at its first verdict: the caller stops feeding it then.
    """

    def __init__(
        self,
        elo0: float = 0.0,
        elo1: float = 20.0,
        alpha: float = 0.05,
        beta: float = 0.05,
        outcomes: Sequence[float] = PAIR,
    ) -> None:
        if not (math.isfinite(elo0) and math.isfinite(elo1)):
            raise ValueError(f"elo0 and elo1 must be finite, got {elo0} and {elo1}")
        if elo0 >= elo1:
            raise ValueError(f"elo0 must be below elo1, got {elo0:g} >= {elo1:g}")
        for name, p in (("alpha", alpha), ("beta", beta)):
            if not 0.0 < p < 1.0:
                raise ValueError(f"{name} must be in (0, 1), got {p:g}")
        if alpha + beta >= 1.0:
            raise ValueError(f"alpha + beta must be below 1, got {alpha + beta:g}")
        values = tuple(float(v) for v in outcomes)
        if len(values) < 2 or list(values) != sorted(set(values)):
            raise ValueError(f"outcomes must be at least two increasing values, got {values}")
        if values[0] != 0.0 or values[-1] != 1.0:
            raise ValueError(f"outcomes must run from 0 to 1, got {values}")
        self.elo0, self.elo1, self.alpha, self.beta = elo0, elo1, alpha, beta
        self.outcomes = values
        self.s0, self.s1 = score(elo0), score(elo1)
        self.bounds = (math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha))
        self._counts = [0] * len(values)
        self._llr = 0.0

    # ------------------------------------------------------------------ feeding

    def update(self, pair_score: float) -> Verdict | None:
        """Count one pair (A's score, one of ``outcomes``); the verdict after it."""
        try:
            index = self.outcomes.index(float(pair_score))
        except ValueError:
            raise ValueError(
                f"a pair's score is one of {', '.join(f'{v:g}' for v in self.outcomes)},"
                f" got {pair_score!r}"
            ) from None
        self._counts[index] += 1
        self._llr = llr(self.outcomes, self._counts, self.s0, self.s1)
        return self.verdict

    # ------------------------------------------------------------------ reading

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(self._counts)

    @property
    def pairs(self) -> int:
        return sum(self._counts)

    @property
    def llr(self) -> float:
        return self._llr

    @property
    def verdict(self) -> Verdict | None:
        lower, upper = self.bounds
        if self._llr >= upper:
            return "H1"
        if self._llr <= lower:
            return "H0"
        return None

    def summary(self) -> Summary:
        n = self.pairs
        counted = list(zip(self.outcomes, self._counts, strict=True))
        wins = sum(c for v, c in counted if v > 0.5)
        draws = sum(c for v, c in counted if v == 0.5)
        mean = sum(v * c for v, c in counted) / n if n else 0.5
        error = math.inf  # before two pairs, or after only wins or only losses (Elo +-inf)
        if n > 1 and 0 < mean < 1:
            var = sum(c * (v - mean) ** 2 for v, c in counted) / n  # the empirical variance
            slope = 400.0 / (math.log(10.0) * mean * (1.0 - mean))  # d elo / d score
            error = Z95 * math.sqrt(var / n) * slope
        return Summary(
            pairs=n,
            counts=self.counts,
            wins=wins,
            draws=draws,
            losses=n - wins - draws,
            score=mean,
            elo=elo_of(mean),
            elo_error=error,
            llr=self._llr,
            bounds=self.bounds,
            verdict=self.verdict,
        )


# --------------------------------------------------------------------------- the LLR


def llr(outcomes: Sequence[float], counts: Sequence[int], s0: float, s1: float) -> float:
    """The generalized log-likelihood ratio of mean ``s1`` against mean ``s0`` (0 for no data).

    Zero counts become ``REGULARIZE``; under each hypothesis the distribution is the
    maximum-likelihood one with that mean, ``p_i / (1 + theta (a_i - s))`` (``mle_theta``).
    """
    if sum(counts) == 0:
        return 0.0
    regular = [c if c > 0 else REGULARIZE for c in counts]
    total = sum(regular)
    pdf = [c / total for c in regular]
    theta0 = mle_theta(outcomes, pdf, s0)
    theta1 = mle_theta(outcomes, pdf, s1)
    return sum(
        c * (math.log1p(theta0 * (a - s0)) - math.log1p(theta1 * (a - s1)))
        for a, c in zip(outcomes, regular, strict=True)
    )


def mle_theta(outcomes: Sequence[float], pdf: Sequence[float], s: float) -> float:
    """The ``theta`` at which ``sum p_i (a_i - s) / (1 + theta (a_i - s)) = 0``.

    That sum falls strictly from +inf to -inf over the ``theta`` that keep every
    ``1 + theta (a_i - s)`` positive, so its one root is found by bisection (to the last
    bit, deterministically). ``s`` must lie strictly between the least and greatest outcome.
    """
    low_a, high_a = min(outcomes), max(outcomes)
    if not low_a < s < high_a:
        raise ValueError(f"mean {s} is not strictly inside [{low_a}, {high_a}]")
    lo, hi = -1.0 / (high_a - s), 1.0 / (s - low_a)  # open ends: a denominator is 0 there
    open_hi = hi

    def slope(theta: float) -> float:
        return sum(
            p * (a - s) / (1.0 + theta * (a - s)) for a, p in zip(outcomes, pdf, strict=True)
        )

    for _ in range(2000):  # ~1100 halvings at most reach adjacent floats
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if slope(mid) > 0:
            lo = mid
        else:
            hi = mid
    return hi if hi != open_hi else lo  # an evaluated point, never an open end


# ---------------------------------------------------------------------- its lines of text
# One wording for ``arena compare``, local or through the server (which sends these lines).


def opening_line(sprt: Sprt, a: str, b: str, seed: int) -> str:
    model = "game results (pentanomial)" if len(sprt.outcomes) == 5 else "points (W/D/L)"
    return (
        f"compare: A = {a} · B = {b} · seeds from {seed} · elo0 {sprt.elo0:g}"
        f" · elo1 {sprt.elo1:g} · alpha {sprt.alpha:g} · beta {sprt.beta:g}"
        f" · pairs scored by {model}"
    )


def pair_line(sprt: Sprt, seed: int, points: tuple[int, int], forfeits: Sequence[str]) -> str:
    """After ``sprt.update``: the pair's points (A, B), the running figures, any forfeit."""
    s = sprt.summary()
    line = (
        f"pair {s.pairs} · seed {seed} · points A {points[0]} B {points[1]}"
        f" · W/D/L {s.wins}/{s.draws}/{s.losses}"
    )
    if len(sprt.outcomes) == 5:
        line += f" · pentanomial {'/'.join(str(c) for c in s.counts)}"
    line += (
        f" · score {s.score:.3f} · Elo {s.elo:+.1f} ± {s.elo_error:.1f}"
        f" · LLR {s.llr:.2f} in [{s.bounds[0]:.2f}, {s.bounds[1]:.2f}]"
    )
    return "".join([line, *(f" · {f}" for f in forfeits)])


def closing_lines(sprt: Sprt) -> list[str]:
    """The result, then the verdict (or why there is none)."""
    s = sprt.summary()
    result = (
        f"result: {s.pairs} pairs · W/D/L {s.wins}/{s.draws}/{s.losses} · score {s.score:.3f}"
        f" · Elo {s.elo:+.1f} ± {s.elo_error:.1f} (95%)"
    )
    bounds = f"LLR {s.llr:.2f} in [{s.bounds[0]:.2f}, {s.bounds[1]:.2f}]"
    e0, e1 = f"{sprt.elo0:g}", f"{sprt.elo1:g}"
    if s.verdict == "H1":
        verdict = f"verdict: H1 (A - B >= {e1} Elo, not <= {e0}) after {s.pairs} pairs · {bounds}"
    elif s.verdict == "H0":
        verdict = f"verdict: H0 (A - B <= {e0} Elo, not >= {e1}) after {s.pairs} pairs · {bounds}"
    else:
        verdict = f"no verdict after {s.pairs} pairs (--max-pairs) · {bounds}"
    return [result, verdict]
