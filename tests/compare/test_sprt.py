"""The SPRT of ``arena compare``: bounds, the sign and symmetry of the LLR, the degenerate
streams (only wins, only draws), and that the verdict depends on the pairs alone."""

from __future__ import annotations

import math
import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.competition.sprt import PAIR, PENTANOMIAL, Sprt, elo_of, llr, mle_theta, score


def run(stream: list[float], **kwargs: float) -> Sprt:
    """Feed a stream until the first verdict (or its end)."""
    test = Sprt(**kwargs)
    for s in stream:
        if test.update(s) is not None:
            break
    return test


def test_default_bounds_are_walds() -> None:
    lower, upper = Sprt().bounds
    assert lower == pytest.approx(math.log(0.05 / 0.95))
    assert upper == pytest.approx(math.log(0.95 / 0.05))
    assert lower == pytest.approx(-2.944, abs=1e-3) and upper == -lower
    lower, upper = Sprt(alpha=0.01, beta=0.1).bounds
    assert (lower, upper) == pytest.approx((math.log(0.1 / 0.99), math.log(0.9 / 0.01)))


def test_logistic_elo_model() -> None:
    assert score(0) == 0.5
    assert score(400) == pytest.approx(10 / 11)
    assert elo_of(score(20)) == pytest.approx(20)
    assert elo_of(0.5) == 0.0 and math.copysign(1, elo_of(0.5)) == 1
    assert elo_of(1.0) == math.inf and elo_of(0.0) == -math.inf


def test_no_pairs_no_evidence() -> None:
    test = Sprt()
    assert test.llr == 0.0 and test.verdict is None and test.pairs == 0
    s = test.summary()
    assert (s.pairs, s.score, s.elo, s.verdict) == (0, 0.5, 0.0, None)


def test_only_wins_reach_h1_after_53_pairs() -> None:
    """All wins: the best H0 distribution still wins half (it loses the other half), the
    best H1 one 52.9 %: log(0.529 / 0.5) ~ 0.056 a pair, so 53 pairs to pass 2.944."""
    test = run([1.0] * 200)
    assert test.verdict == "H1"
    assert test.pairs == 53
    assert test.llr == pytest.approx(2.963, abs=1e-3)


def test_only_draws_reach_h0_after_50_pairs() -> None:
    """Two identical deterministic bots draw every pair: zero variance. Regularized, the
    test drifts to H0 at log(1 - 0.058) a pair (the chance of 0 wins in a row if 5.8 % of
    pairs were won), not in 3 or 4 pairs as the normal approximation would claim."""
    test = run([0.5] * 200)
    assert test.verdict == "H0"
    assert test.pairs == 50
    assert test.llr == pytest.approx(-2.953, abs=1e-3)
    s = test.summary()
    assert (s.wins, s.draws, s.losses, s.score, s.elo, s.elo_error) == (0, 50, 0, 0.5, 0, 0)


def test_only_losses_reach_h0() -> None:
    assert run([0.0] * 200).verdict == "H0"
    assert run([0.0] * 200).pairs == 50


def test_a_wider_window_decides_sooner() -> None:
    """elo1 = 200: H1 after 8 wins, H0 after 5 draws (what the CLI tests rely on)."""
    assert run([1.0] * 50, elo1=200).pairs == 8
    assert run([0.5] * 50, elo1=200).pairs == 5
    assert run([1.0] * 50, elo1=200).verdict == "H1"
    assert run([0.5] * 50, elo1=200).verdict == "H0"


def test_pentanomial_streams() -> None:
    assert run([0.5] * 200, outcomes=PENTANOMIAL).verdict == "H0"
    assert run([1.0] * 200, outcomes=PENTANOMIAL).pairs == 53
    test = Sprt(outcomes=PENTANOMIAL)
    for s in (0.75, 0.25, 1.0, 0.5, 0.75):
        test.update(s)
    assert test.counts == (0, 1, 1, 2, 1)
    summary = test.summary()
    assert (summary.wins, summary.draws, summary.losses) == (3, 1, 1)
    assert summary.score == pytest.approx(0.65)


def test_llr_sign_follows_the_score() -> None:
    """Above the midpoint of s0 and s1 the evidence is for H1, below it for H0."""
    mid = (score(0) + score(20)) / 2
    for wins, losses in ((60, 40), (55, 45), (53, 47)):
        assert llr(PAIR, [losses, 0, wins], score(0), score(20)) > 0
        assert llr(PAIR, [wins, 0, losses], score(0), score(20)) < 0
    assert 0.5 < mid < 0.53
    assert llr(PAIR, [50, 0, 50], score(0), score(20)) < 0


@given(
    counts=st.lists(st.integers(0, 60), min_size=3, max_size=3).filter(lambda c: sum(c) > 0),
    elo0=st.floats(-100, 100),
    width=st.floats(1, 200),
)
def test_llr_is_antisymmetric(counts: list[int], elo0: float, width: float) -> None:
    """Swapping A and B (score -> 1 - score, elo -> -elo) negates the LLR."""
    elo1 = elo0 + width
    forward = llr(PAIR, counts, score(elo0), score(elo1))
    backward = llr(PAIR, counts[::-1], score(-elo1), score(-elo0))
    assert backward == pytest.approx(-forward, rel=1e-7, abs=1e-9)


def test_swapping_a_and_b_swaps_the_verdict() -> None:
    rng = random.Random(3)
    stream = [rng.choices(PAIR, (0.35, 0.1, 0.55))[0] for _ in range(3000)]
    ahead = run(stream)
    behind = run([1 - s for s in stream], elo0=-20, elo1=0)
    assert ahead.verdict == "H1" and behind.verdict == "H0"
    assert ahead.pairs == behind.pairs
    assert behind.llr == pytest.approx(-ahead.llr)


@given(st.lists(st.sampled_from(PAIR), min_size=1, max_size=80), st.randoms())
def test_the_llr_depends_on_the_counts_only(stream: list[float], rng: random.Random) -> None:
    """Deterministic to the last bit, whatever order the same pairs came in."""
    shuffled = list(stream)
    rng.shuffle(shuffled)
    first, second = Sprt(), Sprt()
    for s in stream:
        first.update(s)
    for s in shuffled:
        second.update(s)
    assert first.llr == second.llr
    assert first.summary() == second.summary()


@pytest.mark.slow  # thousands of simulated pairs
def test_seeded_streams_decide_right() -> None:
    """A clearly stronger A (60 % of pairs) passes H1; an equal one (no edge) H0."""
    rng = random.Random(11)
    strong = [rng.choices(PAIR, (0.38, 0.04, 0.58))[0] for _ in range(5000)]
    equal = [rng.choices(PAIR, (0.48, 0.04, 0.48))[0] for _ in range(5000)]
    assert run(strong).verdict == "H1"
    assert run(equal).verdict == "H0"
    assert run(strong).pairs == run(strong).pairs  # the same stream, the same stop


def test_close_to_the_normal_approximation_where_that_holds() -> None:
    """With a broad distribution the exact LLR agrees with (s1-s0)(2x-s0-s1) n / (2 var)."""
    counts = [420, 60, 520]
    n = sum(counts)
    x = (60 * 0.5 + 520) / n
    var = (420 * x**2 + 60 * (0.5 - x) ** 2 + 520 * (1 - x) ** 2) / n
    s0, s1 = score(0), score(20)
    approx = (s1 - s0) * (2 * x - s0 - s1) * n / (2 * var)
    assert llr(PAIR, counts, s0, s1) == pytest.approx(approx, rel=0.02)


@pytest.mark.slow  # a numerical fit for each of hypothesis's examples
@given(
    counts=st.lists(st.integers(0, 50), min_size=5, max_size=5).filter(lambda c: sum(c) > 0),
    elo=st.floats(-300, 300),
)
def test_the_constrained_fit_has_the_asked_mean(counts: list[int], elo: float) -> None:
    regular = [c or 1e-3 for c in counts]
    pdf = [c / sum(regular) for c in regular]
    s = score(elo)
    theta = mle_theta(PENTANOMIAL, pdf, s)
    fitted = [p / (1 + theta * (a - s)) for a, p in zip(PENTANOMIAL, pdf, strict=True)]
    assert all(p > 0 for p in fitted)
    assert sum(fitted) == pytest.approx(1, abs=1e-6)
    assert sum(a * p for a, p in zip(PENTANOMIAL, fitted, strict=True)) == pytest.approx(
        s, abs=1e-6
    )


def test_summary_estimates_elo() -> None:
    test = Sprt()
    for s in (1.0, 1.0, 1.0, 0.0):
        test.update(s)
    summary = test.summary()
    assert (summary.pairs, summary.wins, summary.draws, summary.losses) == (4, 3, 0, 1)
    assert summary.score == 0.75
    assert summary.elo == pytest.approx(400 * math.log10(3))
    # delta method: 1.96 * sqrt(0.1875 / 4) * 400 / (ln 10 * 0.1875)
    assert summary.elo_error == pytest.approx(
        1.96 * math.sqrt(0.1875 / 4) * 400 / (math.log(10) * 0.1875), rel=1e-4
    )
    assert summary.llr == test.llr and summary.bounds == test.bounds
    only_wins = run([1.0, 1.0])
    assert only_wins.summary().elo == math.inf and only_wins.summary().elo_error == math.inf


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"elo0": 20.0, "elo1": 20.0}, "elo0 must be below elo1"),
        ({"elo0": 10.0, "elo1": 0.0}, "elo0 must be below elo1"),
        ({"elo1": math.inf}, "finite"),
        ({"alpha": 0.0}, "alpha must be in (0, 1)"),
        ({"beta": 1.0}, "beta must be in (0, 1)"),
        ({"alpha": 0.6, "beta": 0.5}, "alpha + beta"),
        ({"outcomes": (0.0, 0.5)}, "from 0 to 1"),
        ({"outcomes": (1.0, 0.0)}, "increasing"),
    ],
)
def test_bad_parameters(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        Sprt(**kwargs)  # type: ignore[arg-type]


def test_a_score_not_among_the_outcomes_is_refused() -> None:
    with pytest.raises(ValueError, match=re.escape("one of 0, 0.5, 1, got 0.25")):
        Sprt().update(0.25)
    test = Sprt(outcomes=PENTANOMIAL)
    test.update(0.25)
    assert test.pairs == 1
