"""The rating seam: sequential Elo, the maximum-likelihood fit and Weng-Lin (openskill)
through the one interface, on the same simulated results."""

from __future__ import annotations

import random

import pytest

from arena.competition import (
    EloFit,
    Entry,
    Format,
    RatingModel,
    ScoredMatch,
    SequentialElo,
    State,
    elo,
    fit,
    model_named,
    states_after,
    steps,
)
from arena.competition.weng_lin import MU, SIGMA, WengLin
from tests.competition.test_ratings import ladder, simulate

MODELS: list[RatingModel] = [SequentialElo(), EloFit(), WengLin()]
STRENGTH = {0: 300.0, 1: 150.0, 2: 0.0, 3: -150.0, 4: -300.0}  # Elo


def played(fmt: Format, rounds: int, seed: int = 1) -> list[ScoredMatch]:
    return simulate(ladder(len(STRENGTH), fmt, rounds), STRENGTH, seed)


@pytest.mark.parametrize("fmt", ["pairs", "mixed"])
def test_three_models_through_one_interface(fmt: Format) -> None:
    """Each model starts every entry at its initial state, applies the results in schedule
    order whatever order they came in, and ranks the entries by their true strength with a
    95% interval and a likelihood of superiority that agrees with the ranking."""
    results = played(fmt, 30 if fmt == "pairs" else 6)
    shuffled = random.Random(7).sample(results, len(results))
    for model in MODELS:
        states = states_after(model, results, entries=[9])
        assert states == states_after(model, shuffled, entries=[9])  # exactly, every bit
        assert states[9] == model.initial()  # an entry without results stays where it began
        ranking = model.show(results, [9], states)
        order = [s.entry for s in ranking.ranking if s.entry != 9]
        assert order == [0, 1, 2, 3, 4], model.name
        for shown, below in zip(ranking.ranking, ranking.ranking[1:], strict=False):
            assert shown.rating >= below.rating and shown.ci95 > 0
            assert shown.low < shown.rating < shown.high
            assert shown.los_next == ranking.los(shown.entry, below.entry)
            assert ranking.los(shown.entry, below.entry) + ranking.los(
                below.entry, shown.entry
            ) == pytest.approx(1.0)
        assert ranking.ranking[-1].los_next is None
        assert ranking.los(0, 4) > 0.95, model.name
        assert ranking[0].details  # the model's own figures, by name


def test_ratings_applied_in_chunks_equal_one_pass() -> None:
    """A worker rates what has become ratable, from the states stored after the last chunk:
    the states end where one pass over all the results ends, for every model."""
    results = played("mixed", 2)
    for model in MODELS:
        states: dict[Entry, State] = {}
        for start in range(0, len(results), 4):
            for _, after in steps(model, results[start : start + 4], states):
                states.update(after)
        assert states == states_after(model, results), model.name


def test_the_elo_models_are_todays_ratings() -> None:
    """Behind the seam, the sequential Elo and the fit are the functions the ladder used."""
    results = played("pairs", 5)
    sequential = elo(results)
    assert {e: s.value for e, s in states_after(SequentialElo(), results).items()} == sequential
    states = states_after(EloFit(), results)
    shown = EloFit().show(results, [], states)
    fitted = fit(results)
    assert [(s.entry, s.rating, s.ci95, s.los_next) for s in shown.ranking] == [
        (e.entry, e.elo, e.ci95, e.los_next) for e in fitted.ranking
    ]
    assert {s.entry: s.details["elo"] for s in shown.ranking} == sequential
    assert model_named("elo").name == "elo" and model_named("openskill").name == "openskill"
    with pytest.raises(ValueError, match="no rating model 'glicko'"):
        model_named("glicko")


def test_weng_lin_rates_partners_individually() -> None:
    """One table in mixed: both partners of the winning team gain, and the less certain one
    (a newcomer beside a veteran) moves further; in pairs a team of one entry moves once."""
    model = WengLin()
    veteran = State(MU, SIGMA / 3)
    after = model.update({1: veteran}, ScoredMatch(0, ((1, 2), (3, 4)), (30, 10), 1.0))
    assert set(after) == {1, 2, 3, 4}
    assert after[1].value > MU and after[2].value > after[1].value
    assert after[3].value < MU and after[4].value < MU
    assert all(s.deviation is not None and s.deviation < SIGMA for e, s in after.items() if e != 1)
    draw = model.update({}, ScoredMatch(0, ((5, 5), (6, 6)), (20, 20), 0.5))
    assert draw[5].value == draw[6].value == MU and set(draw) == {5, 6}
    # Over a mixed round-robin, each partner is rated alone: all five means differ, and
    # they order the entries as their true strengths do.
    states = states_after(model, played("mixed", 3))
    means = [states[e].value for e in sorted(STRENGTH)]
    assert means == sorted(means, reverse=True) and len(set(means)) == len(means)
    shown = model.show([], states, states)
    assert shown[0].details == {
        "mu": states[0].value,
        "sigma": states[0].deviation,
        "conservative": states[0].value - 3 * (states[0].deviation or 0.0),
    }
