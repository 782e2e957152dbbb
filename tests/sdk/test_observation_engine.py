"""``Observation`` against the engine's truth, over whole games played at random.

At every decision of every game, each of the four seats' requests is read through
``arena_sdk.Observation`` and its helpers are checked against the hidden state the engine
knows. The requests are the bytes the referee sends (``RequestEncoder``, one per seat for
the whole game, as in a real game), parsed as the bot's gRPC server parses them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from arena_sdk import Observation
from backalley.v1 import player_pb2 as pb

from arena.engine import GameState, Phase, bid_number, card_name, cards_of, observe
from arena.engine.cards import JOKERS, SUITS, power, suit_of, trump_mask
from arena.referee.protocol import RequestEncoder

SEEDS = [1, 2, 3, 4]
INDEX = {card_name(c): c for c in range(54)}


def positions(seed: int) -> Iterator[GameState]:
    """Every state of one game with random play, the final one excluded."""
    rng = random.Random(seed)
    state = GameState.new(seed)
    while not state.is_terminal():
        yield state
        state.apply(rng.choice(state.legal_actions()))


def held(state: GameState, seat: int) -> set[str]:
    return {card_name(c) for c in cards_of(state.hands[seat])}


def truly_unseen(state: GameState, seat: int) -> set[str]:
    """Other hands, and the stock under the turned card (less the card a swap drew);
    jokers are out of play in a no-trump deal."""
    deal = state.current_deal
    stock = deal.stock[2:] if deal.joker_swap else deal.stock[1:]
    out = {card_name(c) for c in stock}
    for other in range(4):
        if other != seat:
            out |= held(state, other)
    if deal.trump is None:
        out -= {"BB", "LB"}
    return out


def check(state: GameState, seat: int, encoder: RequestEncoder, coverage: set[str]) -> None:
    request = pb.DecisionRequest.FromString(encoder.encode(observe(state, seat), 10_000))
    obs = Observation(request)
    deal = state.current_deal
    mover = state.current_player() == seat

    assert {c.name for c in obs.hand} == held(state, seat)
    assert obs.trump == (None if deal.trump is None else SUITS[deal.trump])
    trumps = trump_mask(deal.trump)
    assert all(c.is_trump == bool(trumps >> INDEX[c.name] & 1) for c in obs.hand)

    # what may be done
    legal = state.legal_actions() if mover else []
    if state.phase is Phase.BIDDING:
        assert obs.is_bidding == mover
        assert [b.tricks for b in obs.legal_bids] == [bid_number(a) for a in legal]
    else:
        assert [c.name for c in obs.legal_plays] == [card_name(a) for a in legal]
        assert set(c.name for c in obs.legal_plays) <= held(state, seat)

    # contracts
    for team in (0, 1):
        numbers = sum(bid_number(a) for s, a in deal.bids if s % 2 == team)
        level = max(state.board_levels[team], state.board_levels[team + 2])
        contract = obs.contract(team)
        assert contract.board_level == level
        if not level:
            assert contract.tricks == numbers
        if level:
            coverage.add("board")

    # unseen
    assert {c.name for c in obs.unseen} == truly_unseen(state, seat)
    if deal.trump is None:
        coverage.add("no trump")
    if deal.joker_swap is not None:
        coverage.add("swap")
        drawn = obs.joker_swap.drawn if obs.joker_swap else None
        assert (drawn is not None) == (deal.joker_swap.seat == seat)

    # voids are never wrong: a seat shown void in a suit holds none of it
    for other, suits in obs.voids.items():
        for suit in suits:
            coverage.add("void")
            mask = ((1 << 13) - 1) << (13 * SUITS.index(suit))
            if suit == obs.trump:
                mask |= JOKERS
            assert not state.hands[other] & mask, (other, suit)

    # the trick in play and the tricks done
    plays = obs.current_trick.plays
    assert len(obs.cards_played) == 4 * len(obs.tricks) + len(plays)
    if plays:
        led = suit_of(INDEX[plays[0].card.name])
        best = max(plays, key=lambda p: power(INDEX[p.card.name], deal.trump, led))
        assert obs.winning == best
    for trick in obs.tricks:
        assert trick.winner == max(trick.plays, key=lambda p: obs.power(p.card, trick.led)).seat
        coverage.add("trick")


@pytest.mark.parametrize("seed", SEEDS)
def test_observation_helpers_agree_with_the_engine_over_a_game(seed: int) -> None:
    coverage: set[str] = set()
    encoders = [RequestEncoder() for _ in range(4)]
    for state in positions(seed):
        for seat in range(4):
            check(state, seat, encoders[seat], coverage)
    assert {"board", "void", "trick"} <= coverage


def test_the_games_cover_a_no_trump_deal_with_a_joker_swap() -> None:
    coverage: set[str] = set()
    for seed in SEEDS:
        for state in positions(seed):
            if state.current_deal.joker_swap is not None:
                check(state, state.current_player(), RequestEncoder(), coverage)
    assert {"no trump", "swap"} <= coverage
