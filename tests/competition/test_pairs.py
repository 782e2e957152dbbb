"""The duplicate pair: its seating, its teams and its scores, from ``arena.competition.pairs``."""

from __future__ import annotations

import pytest

from arena.competition.pairs import (
    Pair,
    PairGame,
    by_team,
    seat_in,
    second_seating,
    summarize,
    team_in_game,
)


def test_the_second_game_seats_everyone_one_seat_on() -> None:
    first = ("a", "b", "c", "d")
    second = second_seating(first)
    assert second == ("d", "a", "b", "c")
    for seat, player in enumerate(first):
        assert second[seat_in(2, seat)] == player
        assert first[seat_in(1, seat)] == player
        assert team_in_game(1, seat) == team_in_game(2, seat_in(2, seat))  # a player keeps its team


def test_team_0_holds_seats_0_and_2_then_1_and_3() -> None:
    assert [team_in_game(1, s) for s in range(4)] == [0, 1, 0, 1]
    assert [team_in_game(2, s) for s in range(4)] == [1, 0, 1, 0]
    assert by_team(1, (10, 20)) == (10, 20)
    assert by_team(2, (10, 20)) == (20, 10)


def pair(first: tuple[int, int], second: tuple[int, int]) -> Pair:
    return Pair(PairGame(first), PairGame(second))


@pytest.mark.parametrize(
    ("first", "second", "points", "pentanomial"),
    [
        ((300, -100), (-50, 200), 1.0, 1.0),  # team 0 won both games
        ((300, -100), (100, -50), 1.0, 0.5),  # 250 vs 0: won the pair, one game each
        ((100, 0), (300, 0), 0.0, 0.5),  # 100 vs 300: lost the pair, one game each
        ((100, 100), (40, 40), 0.5, 0.5),  # two drawn games
        ((200, 100), (0, 0), 1.0, 0.75),  # a win and a draw
        ((100, 200), (50, 150), 0.5, 0.5),  # 250 vs 250, one game each
    ],
)
def test_pair_scores(
    first: tuple[int, int], second: tuple[int, int], points: float, pentanomial: float
) -> None:
    p = pair(first, second)
    assert p.score == points
    assert p.pentanomial_score == pentanomial
    assert p.points == (first[0] + second[1], first[1] + second[0])


def test_the_first_forfeit_loses_the_pair() -> None:
    b_first = Pair(PairGame((0, 500), forfeit_seat=1), PairGame((0, 0)))  # seat 1: team 1's
    assert (b_first.forfeit, b_first.winner, b_first.score) == ((1, 1), 0, 1.0)
    b_second = Pair(PairGame((0, 0)), PairGame((0, 0), forfeit_seat=0))  # game 2 seat 0: team 1
    assert b_second.score == 1.0
    a_second = Pair(PairGame((0, 0)), PairGame((0, 0), forfeit_seat=3))  # game 2 seat 3: team 0
    assert a_second.score == 0.0
    both = Pair(PairGame((900, 0), forfeit_seat=2), PairGame((0, 0), forfeit_seat=0))
    assert both.forfeit == (1, 2) and both.score == 0.0  # team 0 faulted first
    assert both.pentanomial_score == 0.5  # each game lost by the side that faulted in it


def test_a_pentanomial_forfeit_loses_only_its_game() -> None:
    p = Pair(PairGame((50, 0), forfeit_seat=0), PairGame((0, 80)))  # team 0 won game 2
    assert p.score == 0.0
    assert p.pentanomial_score == 0.5


def test_summary_of_pairs() -> None:
    s = summarize([pair((10, 0), (0, 0)), pair((0, 0), (0, 30))])  # +10, +30
    assert (s.pairs, s.totals, s.mean_diff) == (2, (40, 0), 20.0)
    assert s.stderr == pytest.approx(10.0)
