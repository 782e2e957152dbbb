"""``Observation`` and its helpers, read from hand-built decision requests.

Each test writes the one position it needs with card names (``positions.hand_request``)
and reads it through ``arena_sdk.Observation``, as a bot's ``bid``/``play`` would.
"""

from __future__ import annotations

import pytest
from arena_sdk import Bid, Card, CardError, Contract, JokerSwap, Observation, Play, SeatBid, Trick

from .positions import hand_request

ALL = [r + s for s in "SHDC" for r in "23456789TJQKA"] + ["BB", "LB"]


def split(text: str) -> list[str]:
    return text.split()


def names(cards: object) -> list[str]:
    return [c.name for c in cards]  # type: ignore[attr-defined]


# ---------------------------------------------------------------- who and where


@pytest.mark.parametrize(
    ("seat", "team", "partner", "opponents"),
    [(0, 0, 2, (1, 3)), (1, 1, 3, (2, 0)), (2, 0, 0, (3, 1)), (3, 1, 1, (0, 2))],
)
def test_seat_team_partner_opponents(
    seat: int, team: int, partner: int, opponents: tuple[int, int]
) -> None:
    obs = Observation(hand_request(seat=seat, hand="AS", legal_plays="AS"))
    assert (obs.seat, obs.team, obs.partner, obs.opponents) == (seat, team, partner, opponents)


def test_the_plain_numbers_of_the_observation() -> None:
    request = hand_request(
        seat=1,
        hand="AS KD",
        tricks=[(1, "2C 3C 4C 5C", 0)],
        current=(0, "6C"),
        deal_number=22,
        dealer=0,
        tricks_won=(1, 0, 0, 0),
        totals=(37, -12),
        trumps_broken=True,
        time_left_ms=8_500,
        legal_plays="AS KD",
    )
    obs = Observation(request)
    assert obs.deal_number == 22
    assert obs.hand_size == 3
    assert obs.dealer == 0
    assert obs.tricks_won == (1, 0, 0, 0)
    assert (obs.team_tricks(0), obs.team_tricks(1)) == (1, 0)
    assert obs.totals == (37, -12)
    assert obs.trumps_broken is True
    assert obs.time_left_ms == 8_500
    assert repr(obs) == "<Observation seat 1 deal 22 (3 cards) to play, hand AS KD>"


def test_redeals_in_row_is_readable() -> None:
    """The protocol sends ``redeals_in_row`` (after ``max_redeals`` of them an all-pass deal
    is played with contracts 0), so a bot should be able to read it."""
    obs = Observation(hand_request(hand="AS", redeals_in_row=2, legal_bids=["pass", "board"]))
    assert obs.redeals_in_row == 2  # type: ignore[attr-defined]


# ---------------------------------------------------------------- cards


def test_hand_cards_have_rank_suit_and_trump_jokers_included() -> None:
    obs = Observation(hand_request(hand="AH 2S TC BB LB", trump="H", turned="5H", legal_plays="2S"))
    hand = obs.hand
    assert names(hand) == ["AH", "2S", "TC", "BB", "LB"]
    assert [c.rank for c in hand] == ["A", "2", "T", "BB", "LB"]
    assert [c.suit for c in hand] == ["H", "S", "C", None, None]
    assert [c.is_trump for c in hand] == [True, False, False, True, True]
    assert [c.is_joker for c in hand] == [False, False, False, True, True]
    assert [c.rank_value for c in hand] == [12, 0, 8, 14, 13]
    assert [str(c) for c in hand] == ["AH", "2S", "TC", "BB", "LB"]
    assert obs.trump == "H"
    assert obs.turned == Card.parse("5H") and obs.turned.is_trump


def test_a_no_trump_deal_has_no_trump_card() -> None:
    request = hand_request(
        hand="AH 2S TC", trump="", turned="BB", swap=(2, "LB", ""), legal_plays="AH 2S TC"
    )
    obs = Observation(request)
    assert obs.trump is None
    assert not any(c.is_trump for c in obs.hand + obs.legal_plays)
    assert obs.turned.is_joker and obs.turned.suit is None


def test_cards_compare_by_name_whatever_their_trump_flag() -> None:
    assert Card.parse("AH", trump="H") == Card.parse("AH")
    assert len({Card.parse("AH", trump="H"), Card.parse("AH", trump="S")}) == 1
    assert Card.parse("AH", trump="H") != Card.parse("AS", trump="H")
    with pytest.raises(CardError, match="not a card: 'ZZ'"):
        Card.parse("ZZ")
    assert issubclass(CardError, ValueError)


def test_bids_as_values() -> None:
    assert [str(b) for b in (Bid.PASS, Bid.number_of(4), Bid.BOARD)] == ["pass", "4", "board"]
    assert Bid.parse("pass") == Bid.PASS and Bid.parse("board") == Bid.BOARD
    assert Bid.parse(4) == Bid.number_of(4) == Bid("number", 4)
    assert [b.tricks for b in (Bid.PASS, Bid.number_of(4), Bid.BOARD)] == [0, 4, 0]
    for bad in ("4", True, None):
        with pytest.raises(ValueError, match="not a bid"):
            Bid.parse(bad)  # type: ignore[arg-type]


# ---------------------------------------------------------------- what you may do


def test_legal_bids_are_bid_values() -> None:
    request = hand_request(hand="AS KS QS", legal_bids=["pass", 1, 2, "board"])
    obs = Observation(request)
    assert obs.is_bidding
    assert obs.legal_bids == (Bid.PASS, Bid.number_of(1), Bid.number_of(2), Bid.BOARD)
    assert obs.legal_plays == ()


def test_legal_plays_are_card_values() -> None:
    request = hand_request(hand="AS KH 2H", trump="H", current=(3, "7S"), legal_plays="AS")
    obs = Observation(request)
    assert not obs.is_bidding
    assert obs.legal_bids == ()
    assert obs.legal_plays == (Card.parse("AS"),)
    assert obs.legal_plays[0] in obs.hand


# ---------------------------------------------------------------- bidding


def test_bids_and_numeric_contracts_sum_the_partners_numbers() -> None:
    request = hand_request(
        seat=1,
        hand="AS KS QS JS TS",
        dealer=0,
        bids=[(1, 2), (2, "pass"), (3, 3), (0, 4)],
        legal_plays="AS",
    )
    obs = Observation(request)
    assert obs.bids == (
        SeatBid(1, Bid.number_of(2)),
        SeatBid(2, Bid.PASS),
        SeatBid(3, Bid.number_of(3)),
        SeatBid(0, Bid.number_of(4)),
    )
    assert obs.contract(0) == Contract(tricks=4, board_level=0)
    assert obs.contract(1) == Contract(tricks=5, board_level=0)
    assert not obs.contract(1).is_board


def test_board_claims_carry_their_level_and_a_team_plays_its_highest() -> None:
    request = hand_request(
        hand="AS KS QS JS TS",
        dealer=0,
        bids=[(1, "board"), (2, 3), (3, "board"), (0, "board")],
        legal_plays="AS",
    )
    obs = Observation(request)
    assert [(b.seat, str(b.bid), b.board_level) for b in obs.bids] == [
        (1, "board", 1),
        (2, "3", 0),
        (3, "board", 2),
        (0, "board", 3),
    ]
    assert obs.contract(1).board_level == 2 and obs.contract(1).is_board
    assert obs.contract(0).board_level == 3 and obs.contract(0).is_board


def test_before_any_bid_both_contracts_are_zero() -> None:
    obs = Observation(hand_request(hand="AS KS", dealer=3, legal_bids=["pass", 1, "board"]))
    assert obs.bids == ()
    assert obs.contract(0) == obs.contract(1) == Contract(0, 0)


# ---------------------------------------------------------------- play


def test_tricks_current_trick_and_cards_played_in_order() -> None:
    request = hand_request(
        seat=2,
        hand="2D 3D",
        trump="S",
        tricks=[(0, "AH KH QH JH", 0), (0, "2C 3C 4C 5S", 3)],
        current=(3, "9C TC 8D"),
        legal_plays="2D 3D",
    )
    obs = Observation(request)
    first, second = obs.tricks
    assert first == Trick(
        0, tuple(Play(s, Card.parse(c)) for s, c in enumerate(["AH", "KH", "QH", "JH"])), 0
    )
    assert first.led == Card.parse("AH")
    assert second.winner == 3 and second.plays[3] == Play(3, Card.parse("5S"))
    assert second.plays[3].card.is_trump
    assert obs.current_trick.leader == 3
    assert obs.current_trick.winner is None
    assert [(p.seat, p.card.name) for p in obs.current_trick.plays] == [
        (3, "9C"),
        (0, "TC"),
        (1, "8D"),
    ]
    assert names(obs.cards_played) == split("AH KH QH JH 2C 3C 4C 5S 9C TC 8D")


def test_the_current_trick_is_empty_while_bidding() -> None:
    obs = Observation(hand_request(hand="AS KS", legal_bids=["pass", 1, "board"]))
    assert obs.current_trick.plays == ()
    assert obs.current_trick.led is None
    assert obs.cards_played == ()
    assert obs.winning is None


# ---------------------------------------------------------------- unseen


def test_unseen_is_every_card_not_in_hand_played_or_turned() -> None:
    request = hand_request(
        hand="AH KH 2C",
        trump="H",
        turned="5H",
        tricks=[(1, "3S 4S 5S 6S", 0)],
        current=(0, "7D 8D"),
        seat=2,
        legal_plays="2C",
    )
    obs = Observation(request)
    seen = set(split("AH KH 2C 5H 3S 4S 5S 6S 7D 8D"))
    assert sorted(c.name for c in obs.unseen) == sorted(set(ALL) - seen)
    assert Card.parse("BB") in obs.unseen and Card.parse("LB") in obs.unseen
    assert all(c.is_trump == (c.suit in ("H", None)) for c in obs.unseen)


def test_unseen_never_holds_a_joker_in_a_no_trump_deal() -> None:
    for swap in [(3, "LB", ""), None]:  # another seat swapped; nobody held the other joker
        request = hand_request(
            hand="AH KH 2C",
            trump="",
            turned="BB",
            swap=swap,
            seat=1,
            legal_bids=["pass", 1, 2, "board"],
        )
        obs = Observation(request)
        assert sorted(c.name for c in obs.unseen) == sorted(
            set(ALL) - {"AH", "KH", "2C", "BB", "LB"}
        )


def test_the_swapper_has_seen_the_card_it_drew_and_others_have_not() -> None:
    mine = Observation(
        hand_request(
            seat=2,
            hand="AH 9C",
            trump="",
            turned="LB",
            swap=(2, "BB", "9C"),
            legal_bids=["pass", 1, "board"],
        )
    )
    theirs = Observation(
        hand_request(
            seat=0,
            hand="KH 2S",
            trump="",
            turned="LB",
            swap=(2, "BB", ""),
            legal_bids=["pass", 1, "board"],
        )
    )

    assert mine.joker_swap == JokerSwap(2, Card.parse("BB"), Card.parse("9C"))
    assert theirs.joker_swap == JokerSwap(2, Card.parse("BB"), None)
    assert Card.parse("9C") not in mine.unseen
    assert Card.parse("9C") in theirs.unseen


def test_no_joker_swap_reads_as_none() -> None:
    obs = Observation(hand_request(hand="AH", trump="H", turned="2H", legal_plays="AH"))
    assert obs.joker_swap is None


# ---------------------------------------------------------------- voids


def test_not_following_a_suit_shows_a_void_in_it() -> None:
    request = hand_request(
        hand="2D",
        trump="S",
        tricks=[(0, "AH 2H 3C 4S", 3)],
        current=(3, "7D LB"),
        seat=1,
        legal_plays="2D",
    )
    obs = Observation(request)
    # seat 2 discarded a club and seat 3 trumped on hearts; seat 0 played a joker on a
    # diamond lead: a joker is trump, not a diamond.
    assert obs.voids == {0: frozenset("D"), 1: frozenset(), 2: frozenset("H"), 3: frozenset("H")}


@pytest.mark.parametrize("led", ["KS", "BB", "LB"])
def test_failing_to_follow_a_trump_lead_is_a_void_in_the_trump_suit(led: str) -> None:
    request = hand_request(
        hand="2D",
        trump="S",
        trumps_broken=True,
        tricks=[(1, f"{led} 3S 2D QS", 1)],
        seat=0,
        legal_plays="2D",
    )

    obs = Observation(request)
    assert obs.voids == {0: frozenset(), 1: frozenset(), 2: frozenset(), 3: frozenset("S")}


def test_a_joker_follows_a_trump_suit_lead() -> None:
    request = hand_request(
        hand="2D",
        trump="S",
        trumps_broken=True,
        tricks=[(1, "KS BB 2S LB", 2)],
        seat=0,
        legal_plays="2D",
    )
    assert all(not v for v in Observation(request).voids.values())


def test_voids_in_a_no_trump_deal() -> None:
    request = hand_request(
        hand="2S",
        trump="",
        turned="LB",
        tricks=[(0, "7D 8C AD 2D", 2)],
        current=(2, "AH KH QS"),
        seat=1,
        legal_plays="2S",
    )
    obs = Observation(request)
    assert obs.voids == {0: frozenset("H"), 1: frozenset("D"), 2: frozenset(), 3: frozenset()}


# ---------------------------------------------------------------- power and winning


def test_power_orders_trumps_over_the_led_suit_over_the_rest() -> None:
    request = hand_request(
        hand="AS AH LB BB", trump="H", current=(1, "QD KD 2H"), seat=0, legal_plays="AS AH LB BB"
    )
    obs = Observation(request)
    led = obs.current_trick.led
    assert led == Card.parse("QD")
    powers = {c.name: obs.power(c) for c in (*obs.hand, *obs.cards_played)}
    assert powers == {"QD": 10, "KD": 11, "2H": 100, "AS": -1, "AH": 112, "LB": 113, "BB": 114}
    assert obs.winning == Play(3, Card.parse("2H"))


def test_power_against_another_lead_and_a_card_that_would_lead() -> None:
    obs = Observation(hand_request(hand="KS 2H", trump="H", legal_plays="KS"))
    king, two = obs.hand
    assert obs.power(king, led=Card.parse("AS")) == 11
    assert obs.power(king, led=Card.parse("AD")) == -1
    assert obs.power(king) == 11  # before the lead a card counts as its own lead
    assert obs.power(two, led=Card.parse("AD")) == 100
    assert obs.winning is None


def test_winning_in_a_no_trump_deal_is_the_highest_of_the_led_suit() -> None:
    request = hand_request(
        hand="2S", trump="", turned="BB", current=(1, "7D AC 9D"), seat=0, legal_plays="2S"
    )
    assert Observation(request).winning == Play(3, Card.parse("9D"))
