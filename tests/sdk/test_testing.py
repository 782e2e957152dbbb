"""``arena_sdk.testing.observation`` against the engine: at every decision of the bidding
and the first trick of many random games, the observation built from the compact
description has the engine's legal bids or plays, seat to act and leader."""

from __future__ import annotations

import random

import pytest
from arena_sdk import Bid
from arena_sdk.testing import observation

from arena.engine import BOARD, GameState, Phase, bid_name, card_name, cards_of
from arena.engine.cards import SUITS

SEEDS = range(40)


def described(state: GameState) -> dict[str, object]:
    deal = state.current_deal
    seat = state.current_player()
    return {
        "hand": [card_name(c) for c in cards_of(state.hands[seat])],
        "trump": None if deal.trump is None else SUITS[deal.trump],
        "bids": [bid_name(a) for _, a in deal.bids],
        "trick": [card_name(c) for c in state.trick.cards] if state.phase is Phase.PLAY else [],
        "seat": seat,
    }


def test_observations_have_the_engines_legal_options() -> None:
    checked = {"bid": 0, "lead": 0, "follow": 0, "board lead": 0}
    for seed in SEEDS:
        rng = random.Random(seed)
        state = GameState.new(seed)
        while not state.is_terminal():
            deal = state.current_deal
            first_trick = state.phase is Phase.PLAY and not deal.tricks
            if state.phase is Phase.BIDDING or first_trick:
                obs = observation(**described(state))  # type: ignore[arg-type]
                assert obs.seat == state.current_player()
                legal = state.legal_actions()
                if state.phase is Phase.BIDDING:
                    names = [str(bid_name(a)) for a in legal]
                    assert [str(b) for b in obs.legal_bids] == names
                    assert obs.hand_size == deal.hand_size
                    checked["bid"] += 1
                else:
                    assert sorted(str(c) for c in obs.legal_plays) == sorted(
                        card_name(c) for c in legal
                    )
                    assert obs.current_trick.leader == state.trick.leader
                    kind = "follow" if state.trick.cards else "lead"
                    if kind == "lead" and any(
                        a == BOARD and s == state.current_player() for s, a in deal.bids
                    ):
                        kind = "board lead"
                    checked[kind] += 1
            state.apply(rng.choice(state.legal_actions()))
    assert min(checked.values()) > 0, checked


def test_a_bid_and_a_play_of_a_simple_bot() -> None:
    """What a bot author writes: the decision, then what it must be."""
    obs = observation("AH KH 3C 4D", trump="H", bids="1 pass")
    assert obs.seat == 0 and obs.legal_bids == (Bid.PASS, *map(Bid.number_of, (1, 2, 3)), Bid.BOARD)
    assert obs.bids[0].seat == 2 and obs.dealer == 1  # seat 0 speaks third
    obs = observation("KD 3D AS 5H", trump="H", bids="1 pass 2 pass", trick="QD")
    assert list(obs.legal_plays) == ["KD", "3D"]  # must follow diamonds
    assert obs.winning is not None and obs.winning.seat == 3 and obs.winning.card == "QD"
    obs = observation("AH 3D", trump="H", bids="pass pass pass 1")
    assert list(obs.legal_plays) == ["3D"]  # no trump lead before trumps are broken


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"hand": "AS AS"}, "a card is given twice"),
        ({"hand": "ZZ"}, "not a card: 'ZZ'"),
        ({"hand": "AS KS", "bids": "5"}, "bid 5 is out of range for 2 cards"),
        ({"hand": "AS KS", "trick": "QS"}, "all four before a trick"),
        ({"hand": "BB", "trump": None}, "no joker is in play"),
    ],
)
def test_impossible_descriptions_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        observation(**kwargs)  # type: ignore[arg-type]
