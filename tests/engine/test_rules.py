"""One rule per test, each on a hand-built position (see ``helpers.deal`` for the notation).

Unless a test says otherwise the dealer is seat 3, so seat 0 bids first, and a bid sequence
``bid(state, a, b, c, d)`` is seats 0, 1, 2, 3 in that order.
"""

from __future__ import annotations

import random

import pytest

from arena.engine import (
    BB,
    BOARD,
    HAND_SIZES,
    LB,
    PASS,
    GameState,
    IllegalActionError,
    JokerSwap,
    Phase,
    Rules,
    card_name,
    number_bid,
    observe,
    parse_card,
    partner_of,
    score_team,
    team_of,
)
from arena.engine.seeds import sequential_deals

from .helpers import (
    Script,
    bid,
    boss_deal,
    cards,
    hand_names,
    legal_names,
    mask_names,
    names,
    play,
    play_out_deal,
    position,
)

SPADES_4_TO_A = {r + "S" for r in "456789TJQKA"}


def boss_game(boss: int = 0, *, dealer: int = 3, rules: Rules | None = None) -> GameState:
    """Every dealing is ``boss_deal``: seat ``boss`` holds only trumps and takes every trick."""
    source = Script(lambda n: boss_deal(n, boss))
    return GameState(rules or Rules(), dealer, source)


def points_after(state: GameState, *bids: str | int) -> tuple[int, int] | None:
    bid(state, *bids)
    play_out_deal(state)
    return state.deals[0].points


# ------------------------------------------------------------------ seats, teams, dealer


def test_teams_are_seats_0_and_2_against_1_and_3() -> None:
    assert [team_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert [partner_of(s) for s in range(4)] == [2, 3, 0, 1]
    # Seat 2 takes every trick: its partner's bid of 3 is made by seat 2's tricks, and
    # seats 1 and 3 add their bids into one contract of 3 that takes nothing.
    state = boss_game(boss=2)
    assert points_after(state, 3, 2, "pass", 1) == (5 * 3 + 10, -15)
    assert state.deals[0].tricks_won == [0, 0, 13, 0]


def test_first_dealer_comes_from_the_seed() -> None:
    first = {seed: GameState.new(seed).deals[0].dealer for seed in range(40)}
    assert set(first.values()) == {0, 1, 2, 3}
    assert all(GameState.new(seed).deals[0].dealer == d for seed, d in first.items())


def test_deal_passes_clockwise_at_every_dealing_redeals_included() -> None:
    source = Script(lambda n: boss_deal(n, 0))
    state = GameState(Rules(), 1, source)
    bid(state, "pass", "pass", "pass", "pass")  # redealt by seat 2
    bid(state, 1, "pass", "pass", "pass")
    play_out_deal(state)  # deal 2 is dealt by seat 3
    assert source.calls == [(1, 13), (2, 13), (3, 12)]
    assert [(d.number, d.dealer) for d in state.deals] == [(1, 1), (1, 2), (2, 3)]


# ------------------------------------------------------------------ deck, schedule, dealing


def test_25_deals_of_13_down_to_1_and_back_up_to_13() -> None:
    assert list(HAND_SIZES) == [*range(13, 0, -1), *range(2, 14)]
    source = Script(lambda n: boss_deal(n, 0))
    state = GameState(Rules(max_redeals=0), 0, source)
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    assert [n for _, n in source.calls] == list(HAND_SIZES)
    assert [(d.number, d.hand_size) for d in state.deals] == list(enumerate(HAND_SIZES, 1))
    assert all(len(d.tricks) == d.hand_size for d in state.deals)


def test_deck_is_52_cards_and_two_jokers() -> None:
    state = GameState.new(7)
    rng = random.Random(7)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    for d in state.deals:
        dealt = [mask_names(h) for h in d.hands]
        assert all(len(h) == d.hand_size for h in dealt)
        everything = [c for h in dealt for c in h] + [card_name(c) for c in d.stock]
        assert sorted(everything) == sorted(card_name(c) for c in range(54))


class _IdentityRng:
    """Leaves the deck in order 0..53, whether the dealer shuffles or sorts by random keys."""

    def __init__(self) -> None:
        self.count = 0

    def shuffle(self, deck: list[int]) -> None:
        pass

    def random(self) -> float:
        self.count += 1
        return self.count / 1000


def test_cards_are_dealt_one_at_a_time_clockwise_from_the_dealers_left() -> None:
    state = GameState(Rules(), 2, sequential_deals(_IdentityRng()))  # type: ignore[arg-type]
    hands = state.deals[0].hands
    # Seat 3 (the dealer's left) gets cards 0, 4, 8, ...; then seats 0, 1, 2.
    for seat, first in ((3, 0), (0, 1), (1, 2), (2, 3)):
        assert mask_names(hands[seat]) == {names([c]) for c in range(first, 52, 4)}
    assert state.deals[0].stock == (BB, LB)


def test_undealt_cards_form_the_stock_and_its_top_card_is_turned() -> None:
    state = position(["", "", "LB", "2D"], "7C BB")
    record = state.deals[0]
    assert record.stock == tuple(cards("7C BB"))
    assert record.turned == parse_card("7C")
    assert not any(h >> parse_card("7C") & 1 for h in state.hands)
    assert observe(state, 1).turned == parse_card("7C")


@pytest.mark.parametrize("suit", range(4))
def test_the_turned_cards_suit_is_trump(suit: int) -> None:
    hands = ["", "", "", ""]
    hands[suit] = "LB"  # LB takes the turned card's place in its home seat
    turned = "7" + "SHDC"[suit]
    state = position(hands, f"{turned} BB")
    assert state.trump == suit
    assert state.deals[0].trump == suit
    assert state.deals[0].joker_swap is None


# ------------------------------------------------------------------ a joker turned


@pytest.mark.parametrize(("turned", "other", "holder"), [("BB", "LB", 2), ("LB", "BB", 1)])
def test_a_turned_joker_means_no_trump_and_the_other_jokers_holder_swaps_it(
    turned: str, other: str, holder: int
) -> None:
    hands = ["", "", "", ""]
    hands[holder] = other
    hands[3 if holder != 3 else 0] += " 2" + "SHDC"[holder]  # room for the joker
    state = position(hands, f"{turned} 5C")
    record = state.deals[0]
    assert state.trump is None
    assert record.trump is None
    assert record.joker_swap == JokerSwap(holder, parse_card(other), parse_card("5C"))
    assert other in mask_names(record.hands[holder])  # as dealt
    assert "5C" in hand_names(state, holder) and other not in hand_names(state, holder)
    assert all(len(hand_names(state, s)) == 13 for s in range(4))


def test_the_swapper_draws_the_card_under_the_turned_joker() -> None:
    # Deal 2 has 12 cards and a 6-card stock: BB turned, then 3S, 4S, ...; seat 0 holds LB.
    def deal_2(n: int) -> tuple[list[list[int]], list[int]]:
        hands, stock = boss_deal(n, 0)
        hands[0] = [parse_card("2S") if c == BB else c for c in hands[0]]
        return hands, [BB] + [c for c in stock if c != parse_card("2S")]

    source = Script(lambda n: boss_deal(n, 0), deal_2)
    state = GameState(Rules(), 3, source)
    bid(state, 1, "pass", "pass", "pass")
    play_out_deal(state)
    record = state.deals[1]
    assert (record.hand_size, len(record.stock)) == (12, 6)
    assert names(record.stock[:3]) == "3S 4S BB"
    assert record.joker_swap == JokerSwap(0, LB, parse_card("3S"))
    assert "3S" in hand_names(state, 0) and "LB" not in hand_names(state, 0)
    assert state.trump is None


def test_a_turned_joker_with_the_other_joker_in_the_stock_swaps_nothing() -> None:
    state = position(["", "", "", ""], "BB LB")
    assert state.trump is None
    assert state.deals[0].joker_swap is None
    assert state.hands == list(state.deals[0].hands)


def test_no_joker_is_in_play_in_a_no_trump_deal() -> None:
    state = position(["", "", "LB", "2D"], "BB 5C")
    assert not any({"BB", "LB"} & hand_names(state, s) for s in range(4))
    bid(state, 1, "pass", "pass", "pass")
    play_out_deal(state)
    played = {c for t in state.deals[0].tricks for c in t.cards}
    assert len(played) == 52 and BB not in played and LB not in played


def test_only_the_swapper_sees_the_drawn_card() -> None:
    state = position(["", "", "LB", "2D"], "BB 5C")
    for seat in range(4):
        obs = observe(state, seat)
        assert (obs.joker_swap_seat, obs.joker_discarded) == (2, LB)
        assert obs.joker_drawn == (parse_card("5C") if seat == 2 else None)


# ------------------------------------------------------------------ card order

# Hearts are trump. Seat 0 leads 4S; seats 1-3 have no spade and play what the case says.
RANKING = (["", "BB AH 2D 3D 4D", "LB KH 2C", "QH"], "2H 3H")


@pytest.mark.parametrize(
    ("plays", "winner"),
    [
        (("AH", "LB", "QH"), 2),  # LB beats the trump ace
        (("BB", "LB", "QH"), 1),  # BB beats LB
        (("AH", "KH", "QH"), 1),  # then A > K > Q
        (("4H", "KH", "QH"), 2),
        (("2D", "2C", "QH"), 3),  # the lowest trump played beats the led suit
    ],
)
def test_highest_trump_wins_with_jokers_on_top_bb_lb_a_k(
    plays: tuple[str, str, str], winner: int
) -> None:
    state = position(*RANKING)
    bid(state, 1, "pass", "pass", "pass")
    play(state, "4S", *plays)
    assert state.deals[0].tricks[0].winner == winner


def test_without_trump_in_the_trick_the_highest_card_of_the_led_suit_wins() -> None:
    state = position(*RANKING)
    bid(state, 1, "pass", "pass", "pass")
    play(state, "4S", "4D", "2C", "AC")  # aces of other suits do not win
    assert state.deals[0].tricks[0].winner == 0


def test_plain_suits_rank_ace_high_down_to_two() -> None:
    state = position(["2H 2D 2C", "KS", "AS", "2S"], "BB LB")  # no trump
    bid(state, 1, "pass", "pass", "pass")
    play(state, "5S", "KS", "AS", "2S")
    assert state.deals[0].tricks[0].winner == 2
    play(state, "3D", "AC", "2D", "AH")  # off-suit aces do not win
    assert state.deals[0].tricks[1].winner == 2


def test_the_trick_winner_leads_the_next_trick() -> None:
    state = position(*RANKING)
    bid(state, 1, "pass", "pass", "pass")
    play(state, "4S", "AH", "LB", "QH")
    assert state.current_player() == 2
    assert observe(state, 0).current_trick.leader == 2


# ------------------------------------------------------------------ bidding


def test_each_player_bids_once_clockwise_from_the_dealers_left() -> None:
    state = position(["", "", "", ""], "BB LB", dealer=1)
    movers = []
    for b in (2, "pass", 3, 1):
        movers.append(state.current_player())
        bid(state, b)
    assert movers == [2, 3, 0, 1]
    assert state.phase is Phase.PLAY
    assert [s for s, _ in state.deals[0].bids] == [2, 3, 0, 1]


def test_a_bid_is_pass_a_number_below_the_hand_size_or_board() -> None:
    state = boss_game(rules=Rules(max_redeals=0))
    seen = set()
    while not state.is_terminal():
        if state.phase is Phase.BIDDING:
            n = state.hand_size
            expected = [PASS, *(number_bid(k) for k in range(1, n)), BOARD]
            assert state.legal_actions() == expected
            too_high = [number_bid(n)] if n < 13 else []  # number_bid(13) is BOARD
            for wrong in (*too_high, parse_card("AS"), BB):
                with pytest.raises(IllegalActionError):
                    state.apply(wrong)
            seen.add(n)
        state.apply(state.legal_actions()[0])
    assert seen == set(range(1, 14))  # with 1 card: pass or board only


def test_the_kth_board_claim_has_level_k_whoever_makes_it() -> None:
    state = boss_game()
    bid(state, "board", "board", "pass", "board")  # seat 2 is seat 0's partner
    assert observe(state, 1).board_levels == (1, 2, 0, 3)


def test_a_teams_board_contract_is_at_its_members_highest_level() -> None:
    # Team 0 claims at levels 1 and 3 and takes all 13; team 1 at level 2 takes none.
    # Seat 3's number is ignored under its partner's board.
    state = boss_game()
    assert points_after(state, "board", "board", "board", 3) == (10 * 13 * 3, -10 * 13 * 2)


def test_a_numeric_team_contract_is_the_sum_of_its_members_numbers() -> None:
    # Team 0 bids 2 + 3 = 5 and takes 13; team 1 bids pass + 4 = 4 and takes none.
    state = boss_game()
    assert points_after(state, 2, "pass", 3, 4) == (5 * 5 + 8, -5 * 4)


def test_all_pass_is_redealt_by_the_next_dealer_at_the_same_hand_size() -> None:
    source = Script(lambda n: boss_deal(n, 0))
    state = GameState(Rules(), 3, source)
    bid(state, "pass", "pass", "pass", "pass")
    assert state.deals[0].redeal
    assert state.deals[0].points is None and not state.deals[0].tricks
    assert source.calls == [(3, 13), (0, 13)]
    assert (state.deals[1].number, state.deals[1].hand_size) == (1, 13)
    assert state.phase is Phase.BIDDING
    assert state.current_player() == 1  # the new dealer's left


def test_after_max_redeals_an_all_pass_deal_is_played_with_both_contracts_zero() -> None:
    state = boss_game(rules=Rules(max_redeals=2))
    for _ in range(3):
        bid(state, *["pass"] * 4)
    assert [d.redeal for d in state.deals] == [True, True, False]
    assert state.phase is Phase.PLAY
    play_out_deal(state)
    assert state.deals[2].points == (13, 0)  # contract 0: one point per trick


def test_max_redeals_defaults_to_five() -> None:
    assert Rules().max_redeals == 5
    state = boss_game()
    for _ in range(6):
        bid(state, *["pass"] * 4)
    assert [d.redeal for d in state.deals] == [True] * 5 + [False]
    assert state.phase is Phase.PLAY


def test_the_redeal_limit_counts_only_consecutive_redeals() -> None:
    state = boss_game(rules=Rules(max_redeals=1))
    bid(state, *["pass"] * 4)  # redeal
    bid(state, *["pass"] * 4)  # the limit: played
    play_out_deal(state)
    bid(state, *["pass"] * 4)  # deal 2 starts a new count: redealt again
    assert [(d.number, d.redeal) for d in state.deals] == [
        (1, True),
        (1, False),
        (2, True),
        (2, False),
    ]


# ------------------------------------------------------------------ first leader


def test_the_last_board_claimant_leads_first() -> None:
    state = boss_game()
    bid(state, "board", 5, "board", 7)
    assert state.deals[0].leader == 2
    assert state.current_player() == 2


def test_without_board_the_earliest_of_the_highest_numbers_leads_first() -> None:
    state = boss_game(dealer=1)  # bidding order 2, 3, 0, 1
    bid(state, "pass", 3, 3, 2)
    assert state.deals[0].leader == 3


def test_an_all_pass_deal_that_is_played_is_led_by_the_dealers_left() -> None:
    state = boss_game(dealer=1, rules=Rules(max_redeals=0))
    bid(state, *["pass"] * 4)
    assert state.deals[0].leader == 2


# ------------------------------------------------------------------ leading trumps

# Hearts are trump. Seat 0: LB, AH and eleven spades. Seat 1: BB, 2D, 3D and ten hearts.
# Seat 2: 2S, 3S and eleven diamonds. Seat 3: clubs.
LEADS = (["AH LB", "BB 2D 3D", "2S 3S", ""], "2H 3H")


def test_a_trump_may_not_be_led_before_a_trump_is_played() -> None:
    state = position(*LEADS)
    bid(state, 1, "pass", "pass", "pass")
    assert legal_names(state) == SPADES_4_TO_A  # neither AH nor LB


def test_a_trump_may_be_led_once_one_was_played_to_an_earlier_trick() -> None:
    state = position(*LEADS)
    bid(state, 1, "pass", "pass", "pass")
    play(state, "4S", "4H", "2S", "2C")  # seat 1 trumps in and wins
    assert state.current_player() == 1
    assert legal_names(state) == hand_names(state, 1) >= {"BB", "KH", "2D"}


def test_a_board_claimant_may_lead_a_trump_on_the_first_trick() -> None:
    state = position(*LEADS)
    bid(state, "pass", 1, "pass", "pass")
    assert legal_names(state) == {"2D", "3D"}
    state = position(*LEADS)
    bid(state, "pass", "board", "pass", "pass")
    assert legal_names(state) == hand_names(state, 1)


def test_a_partners_board_claim_does_not_let_the_leader_lead_a_trump() -> None:
    # Hearts are trump. Seat 3 claims board and leads 2C; seat 1 (its partner) wins with AC
    # and holds 2S and eleven hearts.
    state = position(["BB", "AC 2S", "", "LB"], "2H 3H")
    bid(state, "pass", "pass", "pass", "board")
    play(state, "2C", "3S", "AC", "2D")
    assert state.current_player() == 1
    assert legal_names(state) == {"2S"}


def test_a_leader_holding_only_trumps_may_lead_one() -> None:
    state = boss_game()
    bid(state, 1, "pass", "pass", "pass")
    assert legal_names(state) == hand_names(state, 0)
    assert len(legal_names(state)) == 13


# ------------------------------------------------------------------ following

# Hearts are trump. Seat 0 leads 4S. Seat 1: 2S, 3S, LB and ten hearts. Seat 2: AH, BB and
# eleven diamonds (no spade).
FOLLOWS = (["2D 3D", "2S 3S LB", "AH BB", ""], "2H 3H")


def test_a_player_must_follow_the_led_suit() -> None:
    state = position(*FOLLOWS)
    bid(state, 1, "pass", "pass", "pass")
    play(state, "4S")
    assert legal_names(state) == {"2S", "3S"}  # not a trump, not the joker


def test_a_player_void_in_the_led_suit_may_play_any_card() -> None:
    state = position(*FOLLOWS)
    bid(state, 1, "pass", "pass", "pass")
    play(state, "4S", "2S")
    assert legal_names(state) == hand_names(state, 2)
    assert {"AH", "BB", "4D"} <= legal_names(state)


def test_jokers_follow_a_trump_suit_lead() -> None:
    # Seat 0 claims board and leads AH. Seat 1 holds nine hearts and BB; seat 2's only
    # trump is LB.
    state = position(["AH KH", "2S 3S 2D BB", "LB", ""], "2H 3H")
    bid(state, "board", "pass", "pass", "pass")
    play(state, "AH")
    assert legal_names(state) == {r + "H" for r in "456789TJQ"} | {"BB"}
    play(state, "4H")
    assert legal_names(state) == {"LB"}


def test_when_bb_is_led_each_player_with_a_trump_plays_the_highest() -> None:
    # Seat 0 claims board and leads BB. Seat 1 has LB and hearts; seat 2 has AH and 5H;
    # seat 3 has no trump.
    state = position(["BB", "LB 2D 3D 4D", "AH 5H 2C", "2S"], "2H 3H")
    bid(state, "board", "pass", "pass", "pass")
    play(state, "BB")
    assert legal_names(state) == {"LB"}
    play(state, "LB")
    assert legal_names(state) == {"AH"}
    play(state, "AH")
    assert legal_names(state) == hand_names(state, 3)
    play(state, "2S")
    assert state.deals[0].tricks[0].winner == 0


def test_when_lb_is_led_each_player_with_a_trump_plays_the_lowest() -> None:
    # Seat 0 claims board and leads LB. Seat 1 has eleven hearts; seat 2's only trump is BB;
    # seat 3 has no trump.
    state = position(["LB", "2D 3D", "BB 2C", "2S"], "2H 3H")
    bid(state, "board", "pass", "pass", "pass")
    play(state, "LB")
    assert legal_names(state) == {"4H"}
    play(state, "4H")
    assert legal_names(state) == {"BB"}
    play(state, "BB")
    assert legal_names(state) == hand_names(state, 3)
    play(state, "2S")
    assert state.deals[0].tricks[0].winner == 2


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    state = position(*FOLLOWS)
    bid(state, 1, "pass", "pass", "pass")
    play(state, "4S")
    before = (state.current_player(), list(state.hands), list(state.trick.cards))
    for name in ("4H", "LB", "AH", "4S"):  # must follow; not held; already played
        with pytest.raises(IllegalActionError):
            play(state, name)
    for action in (PASS, BOARD, number_bid(2), -1, 68):
        with pytest.raises(IllegalActionError):
            state.apply(action)
    assert (state.current_player(), list(state.hands), list(state.trick.cards)) == before
    assert legal_names(state) == {"2S", "3S"}


# ------------------------------------------------------------------ scoring


@pytest.mark.parametrize(
    ("bids", "points"),
    [
        ((2, "pass", 3, "pass"), (5 * 5 + 8, 0)),  # 5 bid, 13 taken
        ((12, "pass", 1, "pass"), (5 * 13, 0)),  # made exactly
    ],
)
def test_a_made_numeric_contract_scores_5_per_trick_bid_and_1_per_overtrick(
    bids: tuple[str | int, ...], points: tuple[int, int]
) -> None:
    assert points_after(boss_game(), *bids) == points


def test_a_set_numeric_contract_loses_5_per_trick_bid() -> None:
    assert points_after(boss_game(), "pass", 2, "pass", 2) == (13, -20)


def test_a_made_board_scores_10_per_card_times_its_level() -> None:
    assert points_after(boss_game(), "board", "pass", "pass", "pass") == (130, 0)
    assert points_after(boss_game(), "pass", "board", "board", "pass") == (260, -130)


def test_a_failed_board_loses_10_per_card_times_its_level() -> None:
    assert points_after(boss_game(), "pass", "board", "pass", "pass") == (13, -130)
    assert points_after(boss_game(), "board", "pass", "pass", "board") == (130, -260)


@pytest.mark.parametrize(
    ("number", "level", "tricks", "n", "points"),
    [
        (4, 0, 6, 13, 22),
        (4, 0, 3, 13, -20),
        (0, 0, 3, 5, 3),
        (7, 0, 5, 5, -35),  # a contract above the hand size cannot be made
        (0, 2, 5, 5, 100),
        (0, 2, 4, 5, -100),
        (0, 1, 1, 1, 10),
        (0, 4, 0, 1, -40),
    ],
)
def test_score_formula(number: int, level: int, tricks: int, n: int, points: int) -> None:
    assert score_team(number, level, tricks, n) == points


def test_both_teams_are_scored_independently() -> None:
    # Both teams claim board; team 0 makes it, team 1 fails at its own level.
    assert points_after(boss_game(), "board", "board", "pass", "pass") == (130, -260)
    # Both numeric: team 0 makes 1, team 1 is set on 3.
    assert points_after(boss_game(), 1, 1, "pass", 2) == (5 + 12, -15)


# ------------------------------------------------------------------ end of game

# A full game in which one seat takes every trick of every deal, all deals played with both
# contracts 0 (max_redeals=0) except that seat 1 may bid in deal 5. Seat 1 takes the tricks
# of these deals (13+12+11+10+1+10+11+12+13 = 93 cards), seat 0 those of the others (88).
TEAM_1_DEALS = {1, 2, 3, 4, 13, 22, 23, 24, 25}


def scripted_game(seat_1_bid_in_deal_5: int | None) -> GameState:
    def source(dealer: int, n: int) -> tuple[list[list[int]], list[int]]:
        calls.append(n)
        return boss_deal(n, 1 if len(calls) in TEAM_1_DEALS else 0)

    calls: list[int] = []
    state = GameState(Rules(max_redeals=0), 0, source)
    while not state.is_terminal():
        if (
            seat_1_bid_in_deal_5
            and state.phase is Phase.BIDDING
            and state.deal_number == 5
            and state.current_player() == 1
        ):
            state.apply(number_bid(seat_1_bid_in_deal_5))
        else:
            state.apply(state.legal_actions()[0])
    assert calls == list(HAND_SIZES)
    return state


@pytest.mark.parametrize(
    ("seat_1_bid", "totals", "winner"),
    [(None, (88, 93), 1), (2, (88, 83), 0)],
)
def test_after_25_deals_the_higher_total_wins(
    seat_1_bid: int | None, totals: tuple[int, int], winner: int
) -> None:
    state = scripted_game(seat_1_bid)
    assert state.is_terminal()
    assert len(state.deals) == 25
    assert tuple(state.totals) == state.deals[-1].totals == totals
    assert state.winner() == winner


def test_equal_totals_are_a_draw() -> None:
    state = scripted_game(1)  # seat 1 is set on 1 in deal 5: 93 - 5 = 88
    assert state.is_terminal()
    assert tuple(state.totals) == (88, 88)
    assert state.winner() is None
