"""Schedulers: the round-robin's tables are ``round_robin``'s and ``grow``'s; the adaptive one
is deterministic, never seats an entry against itself, places a newcomer with a bounded
number of matches, and plans the same whatever order the results arrived in."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.competition import (
    Adaptive,
    EloFit,
    Entry,
    Format,
    RoundRobin,
    ScheduleError,
    ScoredMatch,
    Situation,
    Table,
    grow,
    round_robin,
    scheduler_named,
    states_after,
)
from arena.competition.elo_ratings import NATS
from arena.competition.matchmaking import MAX_PER_PAIR, placement_for
from arena.competition.weng_lin import WengLin

SIZES = st.integers(min_value=2, max_value=12)
SEEDS = st.integers(min_value=0, max_value=2**32)


def play(
    tables: list[Table], start: int, truth: dict[Entry, float], seed: int
) -> list[ScoredMatch]:
    """Each table's pair won by team 0 with Elo's expectation of the true strengths."""
    rng = random.Random(seed)
    out = []
    for i, teams in enumerate(tables, start):
        (a, _), (b, _) = teams
        p = 1 / (1 + math.exp(-(truth[a] - truth[b]) * NATS))
        won = rng.random() < p
        out.append(ScoredMatch(i, teams, (1, 0) if won else (0, 1), 1.0 if won else 0.0))
    return out


def run(
    n: int, seed: int, calls: int, scheduler: Adaptive | None = None
) -> tuple[list[Table], list[ScoredMatch], list[list[Table]]]:
    """``calls`` plans of an adaptive schedule among ``n`` entries, each played in full."""
    scheduler = scheduler or Adaptive()
    rng = random.Random(seed)
    entries: list[Entry] = list(range(n))
    truth = {e: rng.gauss(0, 200) for e in entries}
    scheduled: list[Table] = []
    results: list[ScoredMatch] = []
    batches = []
    model = EloFit()
    for _ in range(calls):
        ranking = model.show(results, entries, {})
        tables = scheduler.next_tables(Situation(entries, scheduled, ranking))
        if not tables:
            break
        batches.append(tables)
        results += play(tables, len(scheduled), truth, rng.randrange(2**32))
        scheduled += tables
    return scheduled, results, batches


@settings(max_examples=25, deadline=None)
@given(SIZES, SEEDS)
def test_adaptive_never_seats_an_entry_against_itself_and_caps_each_pairing(
    n: int, seed: int
) -> None:
    scheduled, _, _ = run(n, seed, calls=12)
    assert scheduled  # two entries or more: something to learn
    for (a, c), (b, d) in scheduled:
        assert a == c and b == d and a != b and {a, b} <= set(range(n))
    met = Counter(frozenset((t[0][0], t[1][0])) for t in scheduled)
    assert max(met.values()) <= MAX_PER_PAIR


@settings(max_examples=25, deadline=None)
@given(SIZES, SEEDS)
def test_adaptive_is_a_function_of_its_situation(n: int, seed: int) -> None:
    assert run(n, seed, calls=5) == run(n, seed, calls=5)


@settings(max_examples=20, deadline=None)
@given(SIZES, st.sampled_from(["pairs", "mixed"]))
def test_a_fresh_adaptive_schedule_seats_every_entry_in_its_first_plan(
    n: int, format: Format
) -> None:
    """A tournament's entries are those its schedule seats: none may wait for a later plan."""
    entries: list[Entry] = list(range(n))
    first = Adaptive(format).next_tables(Situation(entries, [], EloFit().show([], entries, {})))
    seated = {e for table in first for team in table for e in team}
    assert seated == (set(entries) if format == "pairs" or n >= 4 else set())


@settings(max_examples=20, deadline=None)
@given(SIZES, SEEDS, st.randoms(use_true_random=False))
def test_the_plan_is_the_same_whatever_order_results_arrived_in(
    n: int, seed: int, shuffler: random.Random
) -> None:
    scheduled, results, _ = run(n, seed, calls=3)
    entries: list[Entry] = list(range(n))
    shuffled = list(results)
    shuffler.shuffle(shuffled)
    for model in (EloFit(), WengLin()):
        plans = [
            Adaptive().next_tables(
                Situation(
                    entries,
                    scheduled,
                    model.show(rs, entries, states_after(model, rs, entries)),
                    model.scale,
                )
            )
            for rs in (results, shuffled)
        ]
        assert plans[0] == plans[1]


@settings(max_examples=15, deadline=None)
@given(st.integers(min_value=12, max_value=40), SEEDS)
def test_a_newcomer_is_placed_with_a_bounded_number_of_matches(n: int, seed: int) -> None:
    """Joining a ladder whose entries are placed, it gets its first step alone as it joins,
    then a step per plan until placed (``placement_for``), then at most one a plan (a
    doubtful neighbour)."""
    rng = random.Random(seed)
    old: list[Entry] = list(range(n - 1))
    truth = {e: rng.gauss(0, 200) for e in [*old, "new"]}
    base = [m.teams for m in round_robin(old, "pairs", 1)]
    results = play(base, 0, truth, seed)
    scheduled = list(base)
    entries = [*old, "new"]
    scheduler = Adaptive()
    placement, step = placement_for(n)
    ranking = EloFit().show(results, entries, {})
    joined = scheduler.next_tables(Situation(entries, scheduled, ranking, joining="new"))
    assert len(joined) == step and all("new" in (t[0][0], t[1][0]) for t in joined)
    results += play(joined, len(scheduled), truth, seed)
    scheduled += joined
    mine = step
    for _ in range(8):
        ranking = EloFit().show(results, entries, {})
        tables = scheduler.next_tables(Situation(entries, scheduled, ranking))
        now = sum("new" in (t[0][0], t[1][0]) for t in tables)
        assert now <= (min(step, placement - mine) if mine < placement else 1)
        if mine < placement:
            assert now == min(step, placement - mine)  # placing goes first
        mine += now
        results += play(tables, len(scheduled), truth, rng.randrange(2**32))
        scheduled += tables
    assert mine >= min(placement, 9 * step)


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=9), st.integers(min_value=1, max_value=2))
def test_round_robin_is_round_robin_then_grow(n: int, g: int) -> None:
    entries: list[Entry] = list(range(n))
    rr = RoundRobin("pairs", g)
    fresh = rr.next_tables(Situation(entries, []))
    assert fresh == [m.teams for m in round_robin(entries, "pairs", g)]
    if n >= 2:
        joined = rr.next_tables(Situation([*entries, "new"], fresh))
        assert joined == [m.teams for m in grow(entries, "new", "pairs", g)]
        assert rr.next_tables(Situation([*entries, "new"], fresh + joined)) == []


def test_the_schedulers_by_name_and_what_they_refuse() -> None:
    assert scheduler_named("round-robin", "mixed").name == "round-robin"
    assert scheduler_named("adaptive").name == "adaptive"
    with pytest.raises(ScheduleError, match="unknown schedule 'swiss'"):
        scheduler_named("swiss")
    with pytest.raises(ScheduleError, match="chooses from a ranking"):
        Adaptive().next_tables(Situation([1, 2], []))
    assert Adaptive().next_tables(Situation([1], [], EloFit().show([], [1], {}))) == []
    # Nothing left to learn: every doubtful neighbour met MAX_PER_PAIR times.
    done = [((1, 1), (2, 2))] * MAX_PER_PAIR
    draws = [ScoredMatch(i, t, (0, 0), 0.5) for i, t in enumerate(done)]
    assert Adaptive().next_tables(Situation([1, 2], done, EloFit().show(draws, [1, 2], {}))) == []


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=4, max_value=12), SEEDS)
def test_adaptive_mixed_seats_four_different_entries_and_is_a_function_of_its_situation(
    n: int, seed: int
) -> None:
    def mixed_run() -> list[Table]:
        rng = random.Random(seed)
        entries: list[Entry] = list(range(n))
        truth = {e: rng.gauss(0, 200) for e in entries}
        scheduler = Adaptive("mixed")
        scheduled: list[Table] = []
        results: list[ScoredMatch] = []
        for _ in range(6):
            ranking = WengLin().show(results, entries, states_after(WengLin(), results, entries))
            tables = scheduler.next_tables(Situation(entries, scheduled, ranking, WengLin.scale))
            for i, ((a, c), (b, d)) in enumerate(tables, len(scheduled)):
                won = rng.random() < 1 / (
                    1 + math.exp(-(truth[a] + truth[c] - truth[b] - truth[d]) * NATS / 2)
                )
                results.append(
                    ScoredMatch(i, ((a, c), (b, d)), (1, 0) if won else (0, 1), float(won))
                )
            scheduled += tables
        return scheduled

    scheduled = mixed_run()
    assert scheduled and all(len({a, b, c, d}) == 4 for (a, c), (b, d) in scheduled)
    placed = Counter(e for table in scheduled for team in table for e in team)
    assert set(placed) == set(range(n))  # every entry placed
    assert mixed_run() == scheduled
