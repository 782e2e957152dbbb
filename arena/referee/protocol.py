"""Between the engine's ints and the protocol's messages (backalley.v1)."""

from __future__ import annotations

from functools import cache

from backalley.v1 import player_pb2 as pb

from arena.engine import BOARD, PASS, DealRecord, Observation, Phase, Trick, card_name
from arena.engine.bids import MAX_NUMBER, NUM_ACTIONS, legal_bid_mask, number_bid
from arena.engine.cards import SUITS, CardError, parse_card

NAMES: tuple[str, ...] = tuple(card_name(c) for c in range(54))


class AnswerError(ValueError):
    """An answer the referee cannot read as a card or a bid."""


class RequestEncoder:
    """Encodes one seat's decision requests as bytes, reusing what a deal repeats.

    Protobuf parses concatenated encodings of a message as their merge, repeated fields
    appended in order. So a request is the encoding of what changes at every decision,
    followed by cached encodings of what does not: each finished trick (once per deal),
    each bid, and the legal bids of a hand size. The bytes parse to exactly
    ``decision_request(obs, time_left_ms)``; this runs at every decision and is several
    times cheaper.
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
        head = pb.Observation(
            seat=obs.seat,
            deal_number=obs.deal_number,
            hand_size=obs.hand_size,
            dealer=obs.dealer,
            hand=[NAMES[c] for c in obs.hand],
            turned=NAMES[obs.turned],
            trump="" if obs.trump is None else SUITS[obs.trump],
            trumps_broken=obs.trumps_broken,
            tricks_won=obs.tricks_won,
            totals=obs.totals,
            redeals_in_row=obs.redeals_in_row,
            time_left_ms=max(0, time_left_ms),
        )
        _fill_swap(head, obs)
        current = obs.current_trick
        _fill_trick(head.current_trick, current.leader, current.plays, None)
        level = 0
        bids = []
        for seat, action in obs.bids:
            level += action == BOARD
            bids.append(_bid_piece(seat, action, level if action == BOARD else 0))
        observation = b"".join((head.SerializeToString(), *bids, *self._tricks))
        if obs.phase is Phase.BIDDING and obs.legal_actions:
            legal = _legal_bids_piece(obs.hand_size)
        else:
            plays = pb.DecisionRequest(legal_plays=[NAMES[c] for c in obs.legal_actions])
            legal = plays.SerializeToString()
        # Field 1 (observation), wire type 2 (length-delimited): tag byte 0x0a.
        return b"\x0a" + _varint(len(observation)) + observation + legal


@cache
def _bid_piece(seat: int, action: int, level: int) -> bytes:
    piece = pb.Observation()
    bid = piece.bids.add(seat=seat).bid
    _fill_bid(bid, action)
    bid.board_level = level
    return piece.SerializeToString()


@cache
def _legal_bids_piece(hand_size: int) -> bytes:
    request = pb.DecisionRequest()
    mask = legal_bid_mask(hand_size)
    for action in (a for a in range(NUM_ACTIONS) if mask >> a & 1):
        _fill_bid(request.legal_bids.add(), action)
    return request.SerializeToString()


def _fill_swap(msg: pb.Observation, obs: Observation) -> None:
    if obs.joker_swap_seat is not None and obs.joker_discarded is not None:
        msg.joker_swap.seat = obs.joker_swap_seat
        msg.joker_swap.discarded = NAMES[obs.joker_discarded]
        if obs.joker_drawn is not None:
            msg.joker_swap.drawn = NAMES[obs.joker_drawn]


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def decision_request(obs: Observation, time_left_ms: int) -> pb.DecisionRequest:
    """The request for the seat to move: its observation and its legal options.

    The plain statement of what a request holds; the referee sends the same message,
    encoded faster, through ``RequestEncoder`` (tests check they agree).
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
    _fill_swap(o, obs)
    level = 0
    for seat, action in obs.bids:
        bid = o.bids.add(seat=seat).bid
        _fill_bid(bid, action)
        if action == BOARD:
            level += 1
            bid.board_level = level
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
