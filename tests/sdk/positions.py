"""Decision requests for the SDK tests: real ones from the engine, and hand-built ones.

``engine_request`` asks the platform's own converter (``arena.referee.protocol``) for the
message the referee would send, so a bot sees exactly what it sees in a game.
``hand_request`` writes one from card names, for positions chosen to test one helper.
``play_game`` referees a whole game between running bot processes, with notifications.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from backalley.v1 import player_pb2 as pb

from arena.engine import GameState, Phase, observe, parse_card
from arena.engine.events import DealEnded, Event, GameEnded, TrickEnded
from arena.referee import protocol

from .botproc import RunningBot

BidText = str | int  # "pass", "board" or a number


# ---------------------------------------------------------------- from the engine


def engine_request(state: GameState, seat: int | None = None) -> pb.DecisionRequest:
    seat = state.current_player() if seat is None else seat
    return protocol.decision_request(observe(state, seat), time_left_ms=10_000)


def advance(seed: int, until: Callable[[GameState], bool], rng_seed: int = 0) -> GameState:
    """A game played uniformly at random from ``seed`` up to the first state ``until`` likes."""
    rng = random.Random(rng_seed)
    state = GameState.new(seed)
    while not until(state):
        assert not state.is_terminal(), "no such position in this game"
        state.apply(rng.choice(state.legal_actions()))
    return state


def bidding(state: GameState) -> bool:
    return state.phase is Phase.BIDDING


def following_with_a_choice(state: GameState) -> bool:
    """A seat must follow suit and holds cards it may not play."""
    if state.phase is not Phase.PLAY or not state.trick.cards:
        return False
    return len(state.legal_actions()) < bin(state.hands[state.current_player()]).count("1")


def decisions(seed: int, seat: int, count: int) -> list[pb.DecisionRequest]:
    """``count`` successive decision requests of ``seat`` in one random game."""
    rng = random.Random(seed)
    state = GameState.new(seed)
    out = []
    while len(out) < count:
        if state.current_player() == seat:
            out.append(engine_request(state))
        state.apply(rng.choice(state.legal_actions()))
    return out


def play_game(seats: Sequence[RunningBot], seed: int, notify: Sequence[bool]) -> GameState:
    """Referee one game between four running bots, telling those with ``notify`` set what
    happened, as the referee does; the engine raises if an answer is illegal."""
    state = GameState.new(seed)
    listeners = [bot for bot, wants in zip(seats, notify, strict=True) if wants]

    def tell(event: Event) -> None:
        for bot in listeners:
            bot.notify(protocol.notification(event))

    while not state.is_terminal():
        record = state.current_deal
        tricks = len(record.tricks)
        bot = seats[state.current_player()]
        request = engine_request(state)
        if state.phase is Phase.BIDDING:
            state.apply(protocol.bid_action(bot.bid(request).bid))
        else:
            state.apply(parse_card(bot.play(request).card))
        if len(record.tricks) > tricks:
            tell(TrickEnded(record.number, record.tricks[-1], record.trump))
        if state.current_deal is not record or state.is_terminal():
            tell(DealEnded(record))
    a, b = state.totals
    tell(GameEnded((a, b), state.winner(), "normal"))
    return state


# ---------------------------------------------------------------- by hand


def bid_msg(bid: BidText, board_level: int = 0) -> pb.Bid:
    if bid == "pass":
        return pb.Bid(kind=pb.BID_KIND_PASS)
    if bid == "board":
        return pb.Bid(kind=pb.BID_KIND_BOARD, board_level=board_level)
    assert isinstance(bid, int)
    return pb.Bid(kind=pb.BID_KIND_NUMBER, number=bid)


def trick_msg(leader: int, cards: str, winner: int | None = None) -> pb.Trick:
    plays = [pb.CardPlay(seat=(leader + i) % 4, card=c) for i, c in enumerate(cards.split())]
    return pb.Trick(leader=leader, plays=plays, winner=winner)


def hand_request(
    *,
    seat: int = 0,
    hand: str,
    trump: str = "S",
    turned: str = "2S",
    bids: Sequence[tuple[int, BidText]] = (),
    tricks: Sequence[tuple[int, str, int]] = (),  # (leader, cards, winner)
    current: tuple[int, str] = (0, ""),  # (leader, cards so far)
    legal_plays: str = "",
    legal_bids: Sequence[BidText] = (),
    swap: tuple[int, str, str] | None = None,  # (seat, discarded, drawn or "")
    deal_number: int = 1,
    dealer: int = 3,
    tricks_won: Sequence[int] = (0, 0, 0, 0),
    totals: tuple[int, int] = (0, 0),
    trumps_broken: bool = False,
    redeals_in_row: int = 0,
    time_left_ms: int = 10_000,
    hand_size: int | None = None,
) -> pb.DecisionRequest:
    """A request written from card names; board levels are numbered as the rules do (the
    k-th board claim of the deal has level k)."""
    claims = 0
    seat_bids = []
    for bidder, bid in bids:
        claims += bid == "board"
        seat_bids.append(pb.SeatBid(seat=bidder, bid=bid_msg(bid, claims if bid == "board" else 0)))
    cards = hand.split()
    observation = pb.Observation(
        seat=seat,
        deal_number=deal_number,
        hand_size=hand_size or len(cards) + len(tricks) + (seat in _seats(current)),
        dealer=dealer,
        hand=cards,
        turned=turned,
        trump=trump,
        joker_swap=None if swap is None else pb.JokerSwap(seat=swap[0], discarded=swap[1],
                                                          drawn=swap[2]),
        bids=seat_bids,
        tricks=[trick_msg(leader, cs, winner) for leader, cs, winner in tricks],
        current_trick=trick_msg(*current),
        trumps_broken=trumps_broken,
        tricks_won=list(tricks_won),
        totals=list(totals),
        redeals_in_row=redeals_in_row,
        time_left_ms=time_left_ms,
    )  # fmt: skip
    return pb.DecisionRequest(
        observation=observation,
        legal_bids=[bid_msg(b) for b in legal_bids],
        legal_plays=legal_plays.split(),
    )


def _seats(current: tuple[int, str]) -> set[int]:
    leader, cards = current
    return {(leader + i) % 4 for i in range(len(cards.split()))}
