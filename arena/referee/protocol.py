"""Between the engine's ints and the protocol's messages (backalley.v1)."""

from __future__ import annotations

from backalley.v1 import player_pb2 as pb

from arena.engine import BOARD, PASS, DealRecord, Observation, Phase, Trick, card_name
from arena.engine.bids import MAX_NUMBER, number_bid
from arena.engine.cards import SUITS, CardError, parse_card

_PASS_MSG = pb.Bid(kind=pb.BID_KIND_PASS)


class AnswerError(ValueError):
    """An answer the referee cannot read as a card or a bid."""


def bid_msg(action: int, board_level: int = 0) -> pb.Bid:
    if action == PASS:
        return _PASS_MSG
    if action == BOARD:
        return pb.Bid(kind=pb.BID_KIND_BOARD, board_level=board_level)
    return pb.Bid(kind=pb.BID_KIND_NUMBER, number=action - PASS)


def trick_msg(leader: int, cards: list[int] | tuple[int, ...], winner: int | None) -> pb.Trick:
    plays = [pb.CardPlay(seat=(leader + i) % 4, card=card_name(c)) for i, c in enumerate(cards)]
    return pb.Trick(leader=leader, plays=plays, winner=winner)


def decision_request(obs: Observation, time_left_ms: int) -> pb.DecisionRequest:
    """The request for the seat to move: its observation and its legal options."""
    levels = 0
    bids = []
    for seat, action in obs.bids:
        if action == BOARD:
            levels += 1
        bids.append(pb.SeatBid(seat=seat, bid=bid_msg(action, levels if action == BOARD else 0)))
    swap = None
    if obs.joker_swap_seat is not None and obs.joker_discarded is not None:
        swap = pb.JokerSwap(
            seat=obs.joker_swap_seat,
            discarded=card_name(obs.joker_discarded),
            drawn=card_name(obs.joker_drawn) if obs.joker_drawn is not None else "",
        )
    observation = pb.Observation(
        seat=obs.seat,
        deal_number=obs.deal_number,
        hand_size=obs.hand_size,
        dealer=obs.dealer,
        hand=[card_name(c) for c in obs.hand],
        turned=card_name(obs.turned),
        trump="" if obs.trump is None else SUITS[obs.trump],
        joker_swap=swap,
        bids=bids,
        tricks=[trick_msg(t.leader, [c for _, c in t.plays], t.winner) for t in obs.tricks],
        current_trick=trick_msg(
            obs.current_trick.leader, [c for _, c in obs.current_trick.plays], None
        ),
        trumps_broken=obs.trumps_broken,
        tricks_won=obs.tricks_won,
        totals=obs.totals,
        redeals_in_row=obs.redeals_in_row,
        time_left_ms=max(0, time_left_ms),
    )
    if obs.phase is Phase.BIDDING:
        return pb.DecisionRequest(
            observation=observation, legal_bids=[bid_msg(a) for a in obs.legal_actions]
        )
    return pb.DecisionRequest(
        observation=observation, legal_plays=[card_name(c) for c in obs.legal_actions]
    )


def bid_action(msg: pb.Bid) -> int:
    """The action a bid answer names (legality is the engine's to judge)."""
    if msg.kind == pb.BID_KIND_PASS:
        return PASS
    if msg.kind == pb.BID_KIND_BOARD:
        return BOARD
    if msg.kind == pb.BID_KIND_NUMBER and 1 <= msg.number <= MAX_NUMBER:
        return number_bid(msg.number)
    if msg.kind == pb.BID_KIND_NUMBER:
        raise AnswerError(f"bid number {msg.number} is out of range 1..{MAX_NUMBER}")
    raise AnswerError(f"bid of unknown kind {msg.kind}")


def card_action(name: str) -> int:
    try:
        return parse_card(name)
    except CardError as e:
        raise AnswerError(str(e)) from None


def trick_ended(deal: int, trick: Trick, trump: int | None) -> pb.Notification:
    return pb.Notification(
        trick_ended=pb.TrickEnded(
            deal_number=deal,
            trick=trick_msg(trick.leader, trick.cards, trick.winner),
            trump="" if trump is None else SUITS[trump],
        )
    )


def deal_ended(record: DealRecord) -> pb.Notification:
    return pb.Notification(
        deal_ended=pb.DealEnded(
            deal_number=record.number,
            redeal=record.redeal,
            tricks_won=record.tricks_won,
            points=list(record.points or ()),
            totals=list(record.totals or ()),
        )
    )


def game_ended(totals: list[int], winner: int | None, reason: str) -> pb.Notification:
    return pb.Notification(game_ended=pb.GameEnded(totals=totals, winner=winner, reason=reason))
