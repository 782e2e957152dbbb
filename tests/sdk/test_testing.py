"""``arena_sdk.testing.observation`` against the engine: at every decision of many random
games, the observation built from the compact description (the deal's bids and tricks so
far) has the engine's legal bids or plays, seat to act, leaders, tricks won and broken
trumps; descriptions no deal can reach are refused with the reason."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest
from arena_sdk import Bid, Bot
from arena_sdk.testing import observation

from arena.engine import BOARD, GameState, Phase, bid_name, card_name, cards_of
from arena.engine.cards import SUITS

SEEDS = range(8)


def described(state: GameState) -> dict[str, object]:
    deal = state.current_deal
    seat = state.current_player()
    playing = state.phase is Phase.PLAY
    return {
        "hand": [card_name(c) for c in cards_of(state.hands[seat])],
        "trump": None if deal.trump is None else SUITS[deal.trump],
        "bids": [bid_name(a) for _, a in deal.bids],
        "tricks": [[card_name(c) for c in t.cards] for t in deal.tricks] if playing else [],
        "trick": [card_name(c) for c in state.trick.cards] if playing else [],
        "seat": seat,
    }


def test_observations_have_the_engines_legal_options() -> None:
    checked = {"bid": 0, "lead": 0, "follow": 0, "board lead": 0, "later trick": 0}
    for seed in SEEDS:
        rng = random.Random(seed)
        state = GameState.new(seed)
        while not state.is_terminal():
            deal = state.current_deal
            obs = observation(**described(state))  # type: ignore[arg-type]
            assert obs.seat == state.current_player()
            legal = state.legal_actions()
            if state.phase is Phase.BIDDING:
                names = [str(bid_name(a)) for a in legal]
                assert [str(b) for b in obs.legal_bids] == names
                assert obs.hand_size == deal.hand_size
                checked["bid"] += 1
            else:
                engine_legal = sorted(card_name(c) for c in legal)
                assert sorted(str(c) for c in obs.legal_plays) == engine_legal
                assert obs.current_trick.leader == state.trick.leader
                assert obs.tricks_won == tuple(state.tricks_won)
                assert obs.trumps_broken == state.trumps_broken
                assert [t.winner for t in obs.tricks] == [t.winner for t in deal.tricks]
                assert [t.leader for t in obs.tricks] == [t.leader for t in deal.tricks]
                assert obs.hand_size == deal.hand_size
                kind = "follow" if state.trick.cards else "lead"
                if kind == "lead" and any(
                    a == BOARD and s == state.current_player() for s, a in deal.bids
                ):
                    kind = "board lead"
                checked["later trick" if deal.tricks else kind] += 1
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


def heuristic_bot() -> Bot:
    """The heuristic sample bot, imported as its author's tests would import it."""
    path = Path(__file__).resolve().parents[2] / "sample_bots" / "heuristic" / "bot.py"
    spec = importlib.util.spec_from_file_location("heuristic_bot", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bot: Bot = module.HeuristicBot()
    return bot


def test_the_heuristic_bots_bid_and_play_in_a_later_trick() -> None:
    bot = heuristic_bot()
    # Five sure winners: the two jokers and the top spades, spades trump.
    assert bot.bid(observation("BB LB AS KS QS", trump="S")) == Bid.BOARD
    # Trick 3 of a five-card deal: partner (seat 2, who bid) took trick 1 with AS, seat 3
    # took trick 2 with AC and leads KD; we must follow with AD or 3D.
    done = ["AS 2S 3S 4S", "2C AC 3C 4C"]
    made = observation("AD 3D 5H", trump="H", bids="1 pass pass pass", tricks=done, trick="KD")
    assert made.tricks_won == (0, 0, 1, 1) and made.hand_size == 5
    assert made.current_trick.leader == 3 and list(made.legal_plays) == ["AD", "3D"]
    assert bot.play(made) == "3D"  # the contract of 1 is made: duck
    short = observation("AD 3D 5H", trump="H", bids="2 pass pass pass", tricks=done, trick="KD")
    assert bot.play(short) == "AD"  # one trick short of 2: win it


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"hand": "AS AS"}, "a card is given twice"),
        ({"hand": "ZZ"}, "not a card: 'ZZ'"),
        ({"hand": "AS KS", "bids": "5"}, "bid 5 is out of range for 2 cards"),
        ({"hand": "AS KS", "trick": "QS"}, "all four before a trick"),
        ({"hand": "BB", "trump": None}, "no joker is in play"),
        (
            {"hand": "AS", "bids": "pass pass pass 1", "tricks": ["AS 2S 3S 4S"]},
            "a card is given twice: AS",
        ),
        (
            {"hand": "AS KS", "bids": "pass pass pass 1", "tricks": ["QS 2S 3S"]},
            "completed trick 1 has 3 cards, not four",
        ),
        (
            {
                "hand": "AS KS",
                "hand_size": 4,
                "bids": "pass pass pass 1",
                "tricks": ["QS 2S 3S 4S"],
            },
            "a hand of 2 cards after 1 tricks is not a deal of 4: it holds 3",
        ),
        ({"hand": "AS KS", "hand_size": 3}, "a hand of 2 cards after 0 tricks is not a deal of 3"),
        ({"hand": "AS", "tricks": ["QS 2S 3S 4S"]}, "all four before a trick"),
        ({"hand": "AS", "tricks": "QS 2S 3S 4S"}, "tricks is a list of tricks"),
        ({"hand": "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS AH"}, "a deal is 1 to 13 cards"),
    ],
)
def test_impossible_descriptions_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        observation(**kwargs)  # type: ignore[arg-type]
