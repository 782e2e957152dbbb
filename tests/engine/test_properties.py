"""Properties of whole random games: hypothesis picks the seeds, ``random.Random`` the moves.

The legality check compares the engine against a deliberately plain reference written
here from card names (``"QH"``, ``"BB"``), not from the engine's bitmasks.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import (
    BOARD,
    HAND_SIZES,
    PASS,
    DealRecord,
    GameState,
    IllegalActionError,
    Observation,
    Phase,
    Rules,
    bid_number,
    card_name,
    cards_of,
    number_bid,
    observe,
    parse_card,
)

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
CHOICES = st.integers(min_value=0, max_value=2**32 - 1)
PASS_BIAS = st.sampled_from([0.0, 0.0, 0.7, 0.97])  # high bias: many all-pass redeals
MAX_REDEALS = st.integers(min_value=0, max_value=5)

RANKS = "23456789TJQKA"
JOKERS = ("BB", "LB")

Hook = Callable[[GameState, random.Random], None]


def random_game(
    seed: int,
    choices: int,
    *,
    rules: Rules | None = None,
    pass_bias: float = 0.0,
    on_decision: Hook | None = None,
) -> GameState:
    """Play a whole game with random legal moves; ``on_decision`` sees every decision first."""
    state = GameState.new(seed, rules)
    rng = random.Random(choices)
    while not state.is_terminal():
        if on_decision is not None:
            on_decision(state, rng)
        if state.phase is Phase.BIDDING and pass_bias and rng.random() < pass_bias:
            state.apply(PASS)
        else:
            state.apply(rng.choice(state.legal_actions()))
    return state


# ------------------------------------------------------------------ the reference, by names


def names_of(mask: int) -> set[str]:
    return {card_name(c) for c in cards_of(mask)}


def trump_of(deal: DealRecord) -> str | None:
    """The trump suit letter, from the turned card; None when a joker is turned."""
    turned = card_name(deal.stock[0])
    return None if turned in JOKERS else turned[1]


def is_trump(name: str, trump: str | None) -> bool:
    return trump is not None and (name in JOKERS or name[1] == trump)


def trump_rank(name: str) -> int:
    """BB > LB > A > K > ... > 2."""
    return {"BB": 14, "LB": 13}.get(name, RANKS.find(name[0]))


def dealt_after_swap(deal: DealRecord, seat: int) -> set[str]:
    hand = names_of(deal.hands[seat])
    swap = deal.joker_swap
    if swap is not None and swap.seat == seat:
        hand = (hand - {card_name(swap.discarded)}) | {card_name(swap.drawn)}
    return hand


def plays_of(leader: int, cards: list[int] | tuple[int, ...]) -> list[tuple[int, str]]:
    return [((leader + i) % 4, card_name(c)) for i, c in enumerate(cards)]


def reference_hand(state: GameState, seat: int) -> set[str]:
    """The dealt hand (after the swap) minus what the seat has played this deal."""
    deal = state.current_deal
    played = [p for t in deal.tricks for p in plays_of(t.leader, t.cards)]
    if state.phase is Phase.PLAY:
        played += plays_of(state.trick.leader, state.trick.cards)
    return dealt_after_swap(deal, seat) - {name for s, name in played if s == seat}


def reference_legal(state: GameState) -> set[int]:
    seat = state.current_player()
    deal = state.current_deal
    if state.phase is Phase.BIDDING:
        return {PASS, BOARD} | {number_bid(k) for k in range(1, deal.hand_size)}
    trump = trump_of(deal)
    hand = reference_hand(state, seat)
    trumps = {c for c in hand if is_trump(c, trump)}
    in_trick = [name for _, name in plays_of(state.trick.leader, state.trick.cards)]
    if not in_trick:
        trump_played = any(is_trump(card_name(c), trump) for t in deal.tricks for c in t.cards)
        claimed_board = (seat, BOARD) in deal.bids
        may_lead_trump = trump_played or claimed_board or trumps == hand
        allowed = hand if may_lead_trump else hand - trumps
    else:
        led = in_trick[0]
        if led == "BB":
            allowed = {max(trumps, key=trump_rank)} if trumps else hand
        elif led == "LB":
            allowed = {min(trumps, key=trump_rank)} if trumps else hand
        elif is_trump(led, trump):
            allowed = trumps or hand
        else:
            allowed = {c for c in hand if c not in JOKERS and c[1] == led[1]} or hand
    return {parse_card(c) for c in allowed}


def reference_winner(leader: int, cards: list[int], trump: str | None) -> int:
    plays = plays_of(leader, cards)
    led = plays[0][1]

    def strength(name: str) -> int:
        if is_trump(name, trump):
            return 100 + trump_rank(name)
        if not is_trump(led, trump) and name not in JOKERS and name[1] == led[1]:
            return RANKS.index(name[0])
        return -1

    return max(plays, key=lambda p: strength(p[1]))[0]


def reference_leader(bids: list[tuple[int, int]]) -> int:
    boards = [s for s, a in bids if a == BOARD]
    if boards:
        return boards[-1]
    best = max(bid_number(a) for _, a in bids)
    return next(s for s, a in bids if bid_number(a) == best)


def reference_points(deal: DealRecord) -> tuple[int, int]:
    n = deal.hand_size
    claims = [s for s, a in deal.bids if a == BOARD]  # the k-th claim has level k
    out = []
    for team in (0, 1):
        tricks = sum(1 for t in deal.tricks if t.winner is not None and t.winner % 2 == team)
        levels = [k for k, s in enumerate(claims, 1) if s % 2 == team]
        if levels:
            value = 10 * n * max(levels)
            out.append(value if tricks == n else -value)
        else:
            c = sum(bid_number(a) for s, a in deal.bids if s % 2 == team)
            out.append(5 * c + (tricks - c) if tricks >= c else -5 * c)
    return out[0], out[1]


def summary(state: GameState) -> list[tuple[Any, ...]]:
    """Everything recorded about every dealing, as plain values."""
    return [
        (
            d.number, d.hand_size, d.dealer, d.hands, d.stock, d.trump, d.joker_swap,
            tuple(d.bids), d.redeal, d.leader,
            tuple((t.leader, tuple(t.cards), t.winner) for t in d.tricks),
            tuple(d.tricks_won), d.points, d.totals,
        )
        for d in state.deals
    ]  # fmt: skip


def played_deals(state: GameState) -> list[DealRecord]:
    return [d for d in state.deals if not d.redeal]


# ------------------------------------------------------------------ whole-game properties


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, choices=CHOICES)
def test_every_card_is_played_exactly_once_per_played_deal(seed: int, choices: int) -> None:
    state = random_game(seed, choices)
    assert len(played_deals(state)) == 25
    for deal in played_deals(state):
        by_seat: dict[int, list[str]] = {s: [] for s in range(4)}
        for trick in deal.tricks:
            assert len(trick.cards) == 4
            for seat, name in plays_of(trick.leader, trick.cards):
                by_seat[seat].append(name)
        for seat, cards in by_seat.items():
            assert len(cards) == len(set(cards)) == deal.hand_size
            assert set(cards) == dealt_after_swap(deal, seat)
        if deal.trump is None:
            assert not any(name in JOKERS for cards in by_seat.values() for name in cards)


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, choices=CHOICES)
def test_tricks_add_up_to_the_hand_size(seed: int, choices: int) -> None:
    state = random_game(seed, choices)
    for deal in played_deals(state):
        assert len(deal.tricks) == deal.hand_size
        assert sum(deal.tricks_won) == deal.hand_size
        for seat in range(4):
            assert deal.tricks_won[seat] == sum(1 for t in deal.tricks if t.winner == seat)


@settings(max_examples=100, deadline=None)
@given(seed=SEEDS, choices=CHOICES, pass_bias=PASS_BIAS, max_redeals=MAX_REDEALS)
def test_each_deals_points_follow_from_its_bids_and_tricks(
    seed: int, choices: int, pass_bias: float, max_redeals: int
) -> None:
    rules = Rules(max_redeals=max_redeals)
    state = random_game(seed, choices, rules=rules, pass_bias=pass_bias)
    for deal in state.deals:
        if deal.redeal:
            assert deal.points is None and deal.totals is None and not deal.tricks
        else:
            assert deal.points == reference_points(deal)


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, choices=CHOICES, pass_bias=PASS_BIAS)
def test_totals_are_the_running_sum_of_points(seed: int, choices: int, pass_bias: float) -> None:
    state = random_game(seed, choices, pass_bias=pass_bias)
    running = [0, 0]
    for deal in played_deals(state):
        assert deal.points is not None
        running = [running[0] + deal.points[0], running[1] + deal.points[1]]
        assert deal.totals == tuple(running)
    assert list(state.totals) == running
    expected = None if running[0] == running[1] else int(running[1] > running[0])
    assert state.winner() == expected


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, other=SEEDS, choices=CHOICES)
def test_the_same_seed_gives_the_same_game_and_different_seeds_differ(
    seed: int, other: int, choices: int
) -> None:
    game = summary(random_game(seed, choices))
    assert summary(random_game(seed, choices)) == game
    if other != seed:
        first, first_other = GameState.new(seed).deals[0], GameState.new(other).deals[0]
        assert (first.hands, first.stock) != (first_other.hands, first_other.stock)
        assert summary(random_game(other, choices)) != game


def check_trump_and_swap(deal: DealRecord) -> None:
    """The turned card's suit is trump; a turned joker makes the other joker's holder swap."""
    turned = card_name(deal.stock[0])
    assert deal.trump == (None if turned in JOKERS else "SHDC".index(turned[1]))
    if turned not in JOKERS:
        assert deal.joker_swap is None
        return
    other = "LB" if turned == "BB" else "BB"
    holders = [s for s in range(4) if other in names_of(deal.hands[s])]
    if not holders:
        assert deal.joker_swap is None
        return
    swap = deal.joker_swap
    assert swap is not None
    assert (swap.seat, card_name(swap.discarded), swap.drawn) == (holders[0], other, deal.stock[1])


@settings(max_examples=100, deadline=None)
@given(seed=SEEDS, choices=CHOICES, pass_bias=PASS_BIAS, max_redeals=MAX_REDEALS)
def test_the_dealings_follow_the_schedule_the_dealer_and_the_first_leader(
    seed: int, choices: int, pass_bias: float, max_redeals: int
) -> None:
    rules = Rules(max_redeals=max_redeals)
    state = random_game(seed, choices, rules=rules, pass_bias=pass_bias)
    first_dealer = state.deals[0].dealer
    number, in_row = 1, 0
    for j, deal in enumerate(state.deals):
        assert deal.dealer == (first_dealer + j) % 4
        assert (deal.number, deal.hand_size) == (number, HAND_SIZES[number - 1])
        assert [s for s, _ in deal.bids] == [(deal.dealer + 1 + i) % 4 for i in range(4)]
        check_trump_and_swap(deal)
        all_pass = all(a == PASS for _, a in deal.bids)
        assert deal.redeal == (all_pass and in_row < max_redeals)
        if deal.redeal:
            in_row += 1
            continue
        in_row = 0
        number += 1
        assert deal.leader == reference_leader(deal.bids)
        leader = deal.leader
        for trick in deal.tricks:
            assert trick.leader == leader
            leader = reference_winner(trick.leader, trick.cards, trump_of(deal))
            assert trick.winner == leader
    assert number == 26


# ------------------------------------------------------------------ decision-by-decision

OBSERVATION_CARD_FIELDS = {
    "hand", "turned", "joker_discarded", "joker_drawn", "tricks", "current_trick",
    "legal_actions",
}  # fmt: skip
OBSERVATION_OTHER_FIELDS = {
    "seat", "phase", "to_move", "deal_number", "hand_size", "dealer", "redeals_in_row",
    "trump", "joker_swap_seat", "bids", "board_levels", "trumps_broken", "tricks_won",
    "totals",
}  # fmt: skip


def visible_cards(obs: Observation) -> set[int]:
    """Every card anywhere in an observation."""
    seen = set(obs.hand) | {obs.turned}
    seen |= {c for c in (obs.joker_discarded, obs.joker_drawn) if c is not None}
    for trick in (*obs.tricks, obs.current_trick):
        seen |= {c for _, c in trick.plays}
    seen |= {a for a in obs.legal_actions if 0 <= a < 54}
    return seen


def check_observations(state: GameState, rng: random.Random) -> None:
    deal = state.current_deal
    swap = deal.joker_swap
    drawn = {swap.drawn} if swap is not None else set()
    buried = set(deal.stock[1:]) - drawn  # the stock under the turned card
    for seat in range(4):
        obs = observe(state, seat)
        others = {c for s in range(4) if s != seat for c in cards_of(state.hands[s])}
        leaked = visible_cards(obs) & (others | buried)
        assert not leaked, f"seat {seat} sees {[card_name(c) for c in leaked]}"
        assert set(obs.hand) == set(cards_of(state.hands[seat]))
        assert all(a >= PASS for _, a in obs.bids)  # bids only, never a card
        if state.current_player() != seat:
            assert obs.legal_actions == ()
        if swap is not None and swap.seat != seat:
            assert obs.joker_drawn is None


def test_the_observation_fields_are_all_checked_for_leaks() -> None:
    fields = {f.name for f in dataclasses.fields(Observation)}
    assert fields == OBSERVATION_CARD_FIELDS | OBSERVATION_OTHER_FIELDS


@pytest.mark.slow  # every state of many whole games: most of the fast tier's time
@settings(max_examples=50, deadline=None)
@given(seed=SEEDS, choices=CHOICES, pass_bias=PASS_BIAS)
def test_an_observation_never_shows_another_players_cards(
    seed: int, choices: int, pass_bias: float
) -> None:
    state = random_game(seed, choices, pass_bias=pass_bias, on_decision=check_observations)
    check_observations(state, random.Random(0))


def check_legal(state: GameState, rng: random.Random) -> None:
    offered = state.legal_actions()
    assert offered == sorted(set(offered))
    assert set(offered) == reference_legal(state)
    if state.phase is Phase.PLAY:
        assert names_of(state.hands[state.current_player()]) == reference_hand(
            state, state.current_player()
        )


@pytest.mark.slow  # every state of many whole games: most of the fast tier's time
@settings(max_examples=150, deadline=None)
@given(seed=SEEDS, choices=CHOICES, pass_bias=PASS_BIAS, max_redeals=MAX_REDEALS)
def test_the_offered_actions_are_exactly_the_legal_ones(
    seed: int, choices: int, pass_bias: float, max_redeals: int
) -> None:
    rules = Rules(max_redeals=max_redeals)
    random_game(seed, choices, rules=rules, pass_bias=pass_bias, on_decision=check_legal)


def snapshot(state: GameState) -> tuple[Any, ...]:
    return (
        state.phase, state.current_player(), state.deal_number, state.hand_size, state.dealer,
        state.redeals_in_row, tuple(state.hands), state.trump, tuple(state.totals),
        tuple(state.legal_actions()), state.winner(), tuple(state.trick.cards),
        summary(state), tuple(observe(state, s) for s in range(4)),
    )  # fmt: skip


def ends_a_dealing(state: GameState) -> bool:
    """Would the next action make the engine deal again (which draws on the shared shuffle)?"""
    deal = state.current_deal
    if state.phase is Phase.BIDDING:
        return len(deal.bids) == 3
    return len(state.trick.cards) == 3 and len(deal.tricks) == deal.hand_size - 1


def check_actions(state: GameState, rng: random.Random) -> None:
    if rng.random() > 0.05:
        return
    before = snapshot(state)
    legal = set(state.legal_actions())
    for action in [*range(-2, 70), 10**6]:
        if action not in legal:
            with pytest.raises(IllegalActionError):
                state.apply(action)
    assert snapshot(state) == before
    if not ends_a_dealing(state):
        for action in legal:
            copy.deepcopy(state).apply(action)  # every offered action is accepted
        assert snapshot(state) == before


@pytest.mark.slow  # every state of many whole games: most of the fast tier's time
@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, choices=CHOICES, pass_bias=PASS_BIAS)
def test_illegal_actions_raise_and_leave_the_state_unchanged(
    seed: int, choices: int, pass_bias: float
) -> None:
    state = random_game(seed, choices, pass_bias=pass_bias, on_decision=check_actions)
    before = snapshot(state)
    for action in (0, PASS, BOARD, 53):
        with pytest.raises(IllegalActionError):
            state.apply(action)
    assert snapshot(state) == before
