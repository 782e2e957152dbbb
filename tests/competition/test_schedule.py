"""Round-robin schedules: who meets whom how often, growth by appending, seeds."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.competition import (
    MIXED_MAX_ENTRIES,
    Entry,
    Fixture,
    Format,
    ScheduleError,
    grow,
    match_count,
    match_seed,
    round_robin,
)
from arena.competition.schedule import SEED_BITS, match_seeds

SIZES = st.integers(min_value=0, max_value=11)
REPEATS = st.integers(min_value=1, max_value=3)
FORMATS_ST = st.sampled_from(["pairs", "mixed"])


def entries(n: int) -> list[Entry]:
    # Mixed kinds on purpose: entries are opaque, never compared with each other.
    return [f"bot{i}" if i % 3 == 0 else 100 - i for i in range(n)]


def pairing(m: Fixture) -> frozenset[frozenset[Entry]]:
    """A match as an unordered split: which entries play together against which."""
    return frozenset(frozenset(team) for team in m.teams)


def partner_opponent_counts(matches: Sequence[Fixture]) -> tuple[Counter[frozenset[Entry]], ...]:
    partners: Counter[frozenset[Entry]] = Counter()
    opponents: Counter[frozenset[Entry]] = Counter()
    for m in matches:
        (a, c), (b, d) = m.teams
        partners.update([frozenset((a, c)), frozenset((b, d))])
        opponents.update(frozenset(p) for p in itertools.product((a, c), (b, d)))
    return partners, opponents


@settings(max_examples=40, deadline=None)
@given(SIZES, REPEATS, st.integers(min_value=0, max_value=2**70))
def test_pairs_every_two_entries_meet_games_per_pairing_times(n: int, g: int, seed: int) -> None:
    es = entries(n)
    matches = round_robin(es, "pairs", g, str(seed).encode())
    assert len(matches) == match_count(n, "pairs", g) == g * math.comb(n, 2)
    met = Counter(frozenset((m.teams[0][0], m.teams[1][0])) for m in matches)
    assert met == {frozenset(p): g for p in itertools.combinations(es, 2)}
    for m in matches:
        assert m.teams[0][0] == m.teams[0][1] and m.teams[1][0] == m.teams[1][1]
        assert m.teams[0][0] != m.teams[1][0]


def test_pairs_sit_first_equally_often_over_two_repetitions() -> None:
    matches = round_robin(entries(7), "pairs", 2)
    first = Counter((m.teams[0][0], m.teams[1][0]) for m in matches)
    assert all(first[(b, a)] == 1 for a, b in first)


@pytest.mark.parametrize("n", [2, 6, 8, 9])
def test_pairs_circle_rounds_keep_everyone_level(n: int) -> None:
    """After each round of the circle method every entry has played as often as any other
    (with an odd count, all but the one that sat out)."""
    matches = round_robin(entries(n), "pairs", 2)
    per_round = n // 2
    played: Counter[Entry] = Counter()
    for start in range(0, len(matches), per_round):
        chunk = matches[start : start + per_round]
        seen = [m.teams[t][0] for m in chunk for t in (0, 1)]
        assert len(seen) == len(set(seen)) == 2 * per_round  # nobody twice in a round
        played.update(seen)
        assert max(played.values()) - min(played.values()) <= 1


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=4, max_value=9), REPEATS)
def test_mixed_every_entry_partners_and_opposes_every_other_equally(n: int, g: int) -> None:
    es = entries(n)
    matches = round_robin(es, "mixed", g)
    assert len(matches) == match_count(n, "mixed", g) == g * 3 * math.comb(n, 4)
    assert all(len(m.entries) == 4 for m in matches)
    partners, opponents = partner_opponent_counts(matches)
    pairs = {frozenset(p) for p in itertools.combinations(es, 2)}
    per_pair = g * math.comb(n - 2, 2)
    assert partners == dict.fromkeys(pairs, per_pair)
    assert opponents == dict.fromkeys(pairs, 2 * per_pair)


def test_mixed_four_entries_play_the_three_partnership_splits() -> None:
    matches = round_robin([1, 2, 3, 4], "mixed")
    assert {pairing(m) for m in matches} == {
        frozenset({frozenset({1, 2}), frozenset({3, 4})}),
        frozenset({frozenset({1, 3}), frozenset({2, 4})}),
        frozenset({frozenset({1, 4}), frozenset({2, 3})}),
    }


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_mixed_needs_four_entries(n: int) -> None:
    assert round_robin(entries(n), "mixed") == []
    assert len(grow(entries(n), "new", "mixed")) == 3 * math.comb(n, 3)  # 3 splits of 1 table


@settings(max_examples=40, deadline=None)
@given(SIZES, REPEATS, FORMATS_ST, st.integers(min_value=0, max_value=10**6))
def test_growth_is_the_difference_of_round_robins(n: int, g: int, fmt: Format, start: int) -> None:
    es = entries(n)
    before = round_robin(es, fmt, g, seed_key=b"5")
    after = round_robin([*es, "new"], fmt, g, seed_key=b"5")
    added = grow(es, "new", fmt, g, seed_key=b"5", start=start)
    assert Counter(map(pairing, before)) + Counter(map(pairing, added)) == Counter(
        map(pairing, after)
    )
    assert all("new" in m.entries for m in added)
    assert [m.index for m in added] == list(range(start, start + len(added)))
    assert [m.seed for m in added] == match_seeds(b"5", start, len(added))
    if fmt == "mixed":  # mixed's round-robin *is* the sequence of growth steps
        assert before + grow(es, "new", fmt, g, seed_key=b"5", start=len(before)) == after


@pytest.mark.parametrize("fmt", ["pairs", "mixed"])
def test_a_ladder_grown_entry_by_entry_is_a_full_round_robin(fmt: Format) -> None:
    es = entries(7)
    schedule = round_robin(es[:2], fmt, 2, seed_key=b"9")
    for k in range(2, len(es)):
        schedule += grow(es[:k], es[k], fmt, 2, seed_key=b"9", start=len(schedule))
    assert [m.index for m in schedule] == list(range(len(schedule)))
    assert [m.seed for m in schedule] == [match_seed(b"9", m.index) for m in schedule]
    full = round_robin(es, fmt, 2, seed_key=b"9")
    assert Counter(map(pairing, schedule)) == Counter(map(pairing, full))


def test_seeds_are_deterministic_distinct_and_fit_a_signed_64_bit_column() -> None:
    a = round_robin(entries(30), "pairs", 3, seed_key=b"1")
    assert a == round_robin(entries(30), "pairs", 3, seed_key=b"1")
    seeds = [m.seed for m in a]
    assert len(set(seeds)) == len(seeds)
    assert all(0 <= s < 2**SEED_BITS <= 2**63 for s in seeds)
    other = {m.seed for m in round_robin(entries(30), "pairs", 3, seed_key=b"2")}
    assert not other & set(seeds)
    assert [match_seed(b"1", i) for i in range(len(a))] == seeds


def test_seeds_are_pinned() -> None:
    """Changing the derivation changes every ladder's deals: do it on purpose only."""
    seeds = [1065151918579463304, 7562793839081330586, 2540463905319795480]
    assert match_seeds(b"0", 0, 3) == seeds
    assert match_seed(b"5", 2**40) == 5482417414363502697


def test_the_second_game_swaps_the_partnerships_seats() -> None:
    m = Fixture(0, 1, (("a", "c"), ("b", "d")))
    first, second = m.games
    assert first == ("a", "b", "c", "d")
    assert second == ("d", "a", "b", "c")  # every player one seat clockwise
    assert {first[0], first[2]} == {second[1], second[3]} == {"a", "c"}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: round_robin([1, 2, 1]), "entry 1 is scheduled twice"),
        (lambda: grow([1, 2], 2), "entry 2 is scheduled twice"),
        (lambda: round_robin([1, 2], "swiss"), "unknown format 'swiss'"),  # type: ignore[arg-type]
        (lambda: round_robin([1, 2], "pairs", 0), "at least 1"),
        (lambda: grow(list(range(MIXED_MAX_ENTRIES)), -1, "mixed"), "capped"),
    ],
)
def test_bad_schedules_are_refused(call: Callable[[], object], message: str) -> None:
    with pytest.raises(ScheduleError, match=message):
        call()
