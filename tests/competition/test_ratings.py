"""Results, records, sequential Elo, the maximum-likelihood fit and its groups."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.competition import (
    Entry,
    Fixture,
    Format,
    Record,
    ScoredMatch,
    elo,
    elo_steps,
    fit,
    groups,
    records,
    round_robin,
)
from arena.competition.elo_ratings import NATS, Z95
from arena.competition.pairs import score_of_points


def simulate(
    matches: Sequence[Fixture], strength: Mapping[Any, float], seed: int, draws: float = 0.1
) -> list[ScoredMatch]:
    """Pair results drawn from the model: team 0 scores p in expectation (draws are half)."""
    rng = random.Random(seed)
    out = []
    for m in matches:
        (a, c), (b, d) = m.teams
        diff = (strength[a] + strength[c] - strength[b] - strength[d]) / 2
        p = 1 / (1 + 10 ** (-diff / 400))
        draw = draws * min(p, 1 - p) * 2
        u = rng.random()
        score = 0.5 if u < draw else 1.0 if u < draw + p - draw / 2 else 0.0
        total = rng.randrange(200, 400)
        out.append(ScoredMatch(m.index, m.teams, (total, total), score))
    return out


def ladder(n: int, fmt: Format = "pairs", g: int = 1) -> list[Fixture]:
    return round_robin(list(range(n)), fmt, g, seed_key=b"3")


RESULTS = st.lists(
    st.tuples(
        st.integers(0, 5), st.integers(0, 5), st.sampled_from([0.0, 0.5, 1.0]), st.integers(-50, 50)
    ).filter(lambda t: t[0] != t[1]),
    max_size=40,
).map(
    lambda rows: [
        ScoredMatch(i, ((a, a), (b, b)), (200 + max(d, 0), 200 + max(-d, 0)), s)
        for i, (a, b, s, d) in enumerate(rows)
    ]
)


# --- results and records ----------------------------------------------------------------


def test_the_pair_goes_to_more_points_over_both_games() -> None:
    assert score_of_points((310, 290)) == 1.0
    assert score_of_points((290, 290)) == 0.5
    assert score_of_points((0, 1)) == 0.0
    m = Fixture(4, 99, ((1, 1), (2, 2)))
    assert ScoredMatch.of(m, (300, 280)) == ScoredMatch(4, ((1, 1), (2, 2)), (300, 280), 1.0)
    assert ScoredMatch.of(m, (300, 280), score=0.0).score == 0.0  # a forfeit decides, not points


def test_malformed_results_are_refused() -> None:
    with pytest.raises(ValueError, match=r"0, 0\.5 or 1"):
        ScoredMatch(0, ((1, 1), (2, 2)), (0, 0), 0.7)
    with pytest.raises(ValueError, match="both teams"):
        ScoredMatch(0, ((1, 2), (2, 3)), (0, 0), 0.5)


def test_records_count_each_pair_once_per_entry() -> None:
    results = [
        ScoredMatch(0, ((1, 1), (2, 2)), (300, 260), 1.0),
        ScoredMatch(1, ((2, 2), (1, 1)), (250, 250), 0.5),
        ScoredMatch(2, ((1, 1), (3, 3)), (200, 230), 0.0),
    ]
    got = records(results, entries=["idle"])
    assert list(got) == [1, 2, 3, "idle"]
    assert got[1] == Record(pairs=3, wins=1, draws=1, losses=1, diff=40 - 30)
    assert got[2] == Record(pairs=2, wins=0, draws=1, losses=1, diff=-40)
    assert got[3] == Record(1, 1, 0, 0, 30)
    assert got["idle"] == Record(0, 0, 0, 0, 0)
    assert got[1].games == 6 and got[1].mean_diff == pytest.approx(10 / 3)
    assert got["idle"].mean_diff == 0.0


def test_mixed_partners_share_their_teams_record() -> None:
    got = records([ScoredMatch(0, ((1, 2), (3, 4)), (320, 300), 1.0)])
    assert got[1] == got[2] == Record(1, 1, 0, 0, 20)
    assert got[3] == got[4] == Record(1, 0, 0, 1, -20)


# --- sequential Elo ---------------------------------------------------------------------


def test_elo_one_win_between_equals_moves_half_k() -> None:
    assert elo([ScoredMatch(0, ((1, 1), (2, 2)), (1, 0), 1.0)], k=16) == {1: 1508.0, 2: 1492.0}


@settings(max_examples=60, deadline=None)
@given(RESULTS)
def test_elo_conserves_the_sum_in_pairs(results: list[ScoredMatch]) -> None:
    ratings = elo(results, entries=range(6))
    assert sum(ratings.values()) == pytest.approx(6 * 1500, abs=1e-6)


@settings(max_examples=60, deadline=None)
@given(RESULTS)
def test_elo_is_symmetric_in_the_teams(results: list[ScoredMatch]) -> None:
    swapped = [ScoredMatch(r.index, r.teams[::-1], r.totals[::-1], 1 - r.score) for r in results]
    assert elo(swapped) == pytest.approx(elo(results))


@settings(max_examples=60, deadline=None)
@given(RESULTS, st.randoms(use_true_random=False))
def test_elo_depends_on_schedule_order_not_completion_order(
    results: list[ScoredMatch], rng: random.Random
) -> None:
    finished = results[:]
    rng.shuffle(finished)  # the order workers happened to finish in
    assert elo(finished) == elo(results)
    assert list(elo(finished)) == list(elo(results))  # same keys, same order


def test_elo_mixed_partners_get_the_teams_change_and_the_sum_is_kept() -> None:
    start: dict[Entry, float] = {1: 1600.0, 2: 1400.0, 3: 1500.0, 4: 1500.0}
    steps = list(elo_steps([ScoredMatch(0, ((1, 2), (3, 4)), (1, 0), 1.0)], start=start))
    ((index, after),) = steps
    assert index == 0
    assert after[1] - 1600 == after[2] - 1400 == 1500 - after[3] == 1500 - after[4] == 8.0
    results = simulate(ladder(6, "mixed"), dict.fromkeys(range(6), 0.0), seed=1)
    assert sum(elo(results).values()) == pytest.approx(6 * 1500)


def test_elo_steps_end_where_elo_does() -> None:
    results = simulate(ladder(5, g=2), {e: 50.0 * e for e in range(5)}, seed=2)
    final: dict[Entry, float] = {}
    for _, changed in elo_steps(reversed(results)):
        final.update(changed)
    assert final == elo(results)


def test_elo_refuses_two_results_for_one_match() -> None:
    r = ScoredMatch(3, ((1, 1), (2, 2)), (1, 0), 1.0)
    with pytest.raises(ValueError, match="match 3 has two results"):
        elo([r, r])


# --- maximum-likelihood fit -------------------------------------------------------------


def test_fit_recovers_clearly_separated_strengths() -> None:
    truth: dict[Entry, float] = {e: 150.0 * e for e in range(6)}
    f = fit(simulate(ladder(6, g=30), truth, seed=4))
    assert [e.entry for e in f.ranking] == [5, 4, 3, 2, 1, 0]
    assert groups(f.ranking) == [[5], [4], [3], [2], [1], [0]]
    assert sum(e.elo for e in f.ranking) / 6 == pytest.approx(1500)
    for e in f.ranking:  # the truth, centred at 1500, within a generous interval
        assert abs(e.elo - (1500 + truth[e.entry] - 375)) < 2 * e.ci95


def test_fit_of_mixed_tables_recovers_the_order_from_partnerships() -> None:
    truth = {e: 200.0 * e for e in range(5)}
    f = fit(simulate(ladder(5, "mixed", g=40), truth, seed=5))
    assert [e.entry for e in f.ranking] == [4, 3, 2, 1, 0]


def test_fit_matches_the_closed_form_for_two_entries() -> None:
    """75 wins in 100: Elo gap 400 log10(3); sd of the gap 1 / sqrt(n p (1 - p)) in nats,
    each entry's half of it from the mean."""
    results = [ScoredMatch(i, ((1, 1), (2, 2)), (0, 0), 1.0 if i < 75 else 0.0) for i in range(100)]
    f = fit(results, prior_sd=1e6)
    gap = f[1].elo - f[2].elo
    assert gap == pytest.approx(400 * math.log10(3), abs=1e-6)
    sd_gap = 1 / math.sqrt(100 * 0.75 * 0.25) / NATS
    assert f[1].ci95 == pytest.approx(Z95 * sd_gap / 2, rel=1e-6)
    assert f.los(1, 2) == pytest.approx(0.5 * (1 + math.erf(gap / sd_gap / math.sqrt(2))))


def test_draws_count_as_half_a_win() -> None:
    halves = [
        ScoredMatch(0, ((1, 1), (2, 2)), (0, 0), 1.0),
        ScoredMatch(1, ((1, 1), (2, 2)), (0, 0), 0.0),
    ]
    draws = [ScoredMatch(i, ((1, 1), (2, 2)), (0, 0), 0.5) for i in range(2)]
    assert fit(halves)[1].elo == fit(draws)[1].elo == pytest.approx(1500)


def test_intervals_shrink_with_more_games() -> None:
    truth = {e: 60.0 * e for e in range(5)}
    few, many = (fit(simulate(ladder(5, g=g), truth, seed=6)) for g in (5, 80))
    for e in range(5):
        assert many[e].ci95 < few[e].ci95 / 3  # ~ 1 / sqrt(16) = 1/4


def test_an_undefeated_entry_stays_finite() -> None:
    results = [ScoredMatch(i, ((1, 1), (2 + i % 3, 2 + i % 3)), (1, 0), 1.0) for i in range(12)]
    f = fit(results)
    assert f.ranking[0].entry == 1
    assert all(math.isfinite(e.elo) and math.isfinite(e.ci95) for e in f.ranking)
    assert 1500 < f[1].elo < 2500


def test_los_is_complementary() -> None:
    f = fit(simulate(ladder(5, g=4), {e: 40.0 * e for e in range(5)}, seed=7))
    for a in range(5):
        assert f.los(a, a) == 0.5
        for b in range(5):
            assert 0.0 <= f.los(a, b) <= 1.0
            assert f.los(a, b) + f.los(b, a) == pytest.approx(1.0, abs=1e-15)
    for upper, lower in zip(f.ranking, f.ranking[1:], strict=False):
        assert upper.los_next == f.los(upper.entry, lower.entry) >= 0.5
    assert f.ranking[-1].los_next is None


@settings(max_examples=30, deadline=None)
@given(RESULTS, st.randoms(use_true_random=False))
def test_fit_is_invariant_to_permuting_results(
    results: list[ScoredMatch], rng: random.Random
) -> None:
    """Exactly, to the last bit: counts are aggregated before any floating point."""
    shuffled = results[:]
    rng.shuffle(shuffled)
    flipped = [ScoredMatch(r.index, r.teams[::-1], r.totals[::-1], 1 - r.score) for r in shuffled]
    assert fit(shuffled).ranking == fit(flipped).ranking == fit(results).ranking
    entries: list[Entry] = list(range(6))
    rng.shuffle(entries)
    assert fit(results, entries=entries).ranking == fit(results, entries=range(6)).ranking


def test_entries_without_results_sit_at_the_mean_with_the_priors_width() -> None:
    f = fit([], entries=["b", 2, "a"])
    assert [e.entry for e in f.ranking] == [2, "a", "b"]  # ties by entry_key
    assert all(e.elo == 1500 and e.ci95 > 500 for e in f.ranking)
    assert groups(f.ranking) == [[2, "a", "b"]]
    assert fit([]).ranking == ()
    assert groups(()) == []


def test_groups_join_neighbours_that_cannot_be_told_apart() -> None:
    truth = {0: 0.0, 1: 5.0, 2: 600.0, 3: 605.0}
    f = fit(simulate(ladder(4, g=20), truth, seed=8))
    assert sorted(map(sorted, groups(f.ranking))) == [[0, 1], [2, 3]]
    assert groups(f.ranking, separated=0.0) == [[e.entry] for e in f.ranking]
    assert groups(f.ranking, separated=1.1) == [[e.entry for e in f.ranking]]
