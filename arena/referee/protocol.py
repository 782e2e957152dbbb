"""Between the engine's ints and the protocol's messages (backalley.v1)."""

from __future__ import annotations

from backalley.v1 import player_pb2 as pb

from arena.engine import BOARD, PASS, DealRecord, Observation, Phase, Trick, card_name
from arena.engine.bids import MAX_NUMBER, number_bid
from arena.engine.cards import SUITS, CardError, parse_card

NAMES: tuple[str, ...] = tuple(card_name(c) for c in range(54))


class AnswerError(ValueError):
    """An answer the referee cannot read as a card or a bid."""


class RequestEncoder:
    """Encodes one seat's decision requests, each finished trick only once per deal.

    Protobuf parses concatenated encodings of a message as their merge, repeated fields
    appended in order; so a request is the encoding of everything but the finished tricks,
    followed by each finished trick's cached encoding. Same bytes on the wire as one big
    message; a fraction of the work late in a deal, when most of the request is history.
    """

    def __init__(self) -> None:
        self._dealing: tuple[int, int, int] | None = None
        self._tricks: list[bytes] = []

    def encode(self, obs: Observation, time_left_ms: int) -> bytes:
        dealing = (obs.deal_number, obs.dealer, obs.turned)
        if dealing != self._dealing:
            self._dealing, self._tricks = dealing, []
        for trick in obs.tricks[len(self._tricks) :]:
            piece = pb.Observation()
            _fill_trick(piece.tricks.add(), trick.leader, trick.plays, trick.winner)
            self._tricks.append(piece.SerializeToString())
        request = decision_request(obs, time_left_ms, with_tricks=False)
        observation = request.observation.SerializeToString() + b"".join(self._tricks)
        request.ClearField("observation")
        # Field 1 (observation), wire type 2 (length-delimited): tag byte 0x0a.
        return b"\x0a" + _varint(len(observation)) + observation + request.SerializeToString()


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def decision_request(
    obs: Observation, time_left_ms: int, *, with_tricks: bool = True
) -> pb.DecisionRequest:
    """The request for the seat to move: its observation and its legal options.

    Built in place (``add``/``extend``) rather than from lists of sub-messages: this runs
    at every decision, and copying sub-messages was most of its cost.
    """
    request = pb.DecisionRequest()
    o = request.observation
    o.seat = obs.seat
    o.deal_number = obs.deal_number
    o.hand_size = obs.hand_size
    o.dealer = obs.dealer
    o.hand.extend([NAMES[c] for c in obs.hand])
    o.turned = NAMES[obs.turned]
    if obs.trump is not None:
        o.trump = SUITS[obs.trump]
    if obs.joker_swap_seat is not None and obs.joker_discarded is not None:
        o.joker_swap.seat = obs.joker_swap_seat
        o.joker_swap.discarded = NAMES[obs.joker_discarded]
        if obs.joker_drawn is not None:
            o.joker_swap.drawn = NAMES[obs.joker_drawn]
    level = 0
    for seat, action in obs.bids:
        bid = o.bids.add(seat=seat).bid
        _fill_bid(bid, action)
        if action == BOARD:
            level += 1
            bid.board_level = level
    if with_tricks:
        for trick in obs.tricks:
            _fill_trick(o.tricks.add(), trick.leader, trick.plays, trick.winner)
    current = obs.current_trick
    _fill_trick(o.current_trick, current.leader, current.plays, None)
    o.trumps_broken = obs.trumps_broken
    o.tricks_won.extend(obs.tricks_won)
    o.totals.extend(obs.totals)
    o.redeals_in_row = obs.redeals_in_row
    o.time_left_ms = max(0, time_left_ms)
    if obs.phase is Phase.BIDDING:
        for action in obs.legal_actions:
            _fill_bid(request.legal_bids.add(), action)
    else:
        request.legal_plays.extend([NAMES[c] for c in obs.legal_actions])
    return request


_KINDS = {PASS: pb.BID_KIND_PASS, BOARD: pb.BID_KIND_BOARD}


def _fill_bid(msg: pb.Bid, action: int) -> None:
    kind = _KINDS.get(action)
    if kind is None:
        msg.kind = pb.BID_KIND_NUMBER
        msg.number = action - PASS
    else:
        msg.kind = kind


def _fill_trick(
    msg: pb.Trick, leader: int, plays: tuple[tuple[int, int], ...], winner: int | None
) -> None:
    msg.leader = leader
    add = msg.plays.add
    for seat, card in plays:
        add(seat=seat, card=NAMES[card])
    if winner is not None:
        msg.winner = winner


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
    event = pb.Notification()
    ended = event.trick_ended
    ended.deal_number = deal
    plays = tuple((trick.seat_of(i), c) for i, c in enumerate(trick.cards))
    _fill_trick(ended.trick, trick.leader, plays, trick.winner)
    if trump is not None:
        ended.trump = SUITS[trump]
    return event


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
