"""Between the engine's ints and the protocol's messages (backalley.v1)."""

from __future__ import annotations

from functools import cache

from backalley.v1 import player_pb2 as pb

from arena.engine import BOARD, PASS, Observation, Phase, card_name
from arena.engine.bids import MAX_NUMBER, NUM_ACTIONS, legal_bid_mask, number_bid
from arena.engine.cards import SUITS, CardError, parse_card
from arena.engine.events import DealEnded, Event, GameEnded, TrickEnded

NAMES: tuple[str, ...] = tuple(card_name(c) for c in range(54))


class AnswerError(ValueError):
    """An answer the referee cannot read as a card or a bid."""


class RequestEncoder:
    """Encodes one seat's decision requests as bytes, by hand: the referee's hot path.

    The protobuf wire format is written directly from precomputed pieces (each card's bytes
    in each field, each bid), and what stays the same through a deal (its fixed fields, the
    bids so far, each finished trick) is encoded once. Protobuf parses fields in any order
    and appends repeated ones, so the bytes parse to exactly ``decision_request(obs,
    time_left_ms)`` and are as long as its encoding (tests check both); building that
    message instead costs several times more.
    """

    def __init__(self) -> None:
        self._deal: tuple[object, ...] = ()
        self._fixed = b""  # the deal's fields that do not change during it
        self._bids = b""
        self._bid_count = 0
        self._tricks: list[bytes] = []

    def encode(self, obs: Observation, time_left_ms: int) -> bytes:
        deal = (
            obs.deal_number, obs.dealer, obs.turned, obs.hand_size, obs.trump,
            obs.redeals_in_row, obs.totals,
        )  # fmt: skip
        if deal != self._deal:
            self._deal, self._fixed, self._tricks = deal, _fixed_fields(obs), []
            self._bids, self._bid_count = b"", 0
        if len(obs.bids) != self._bid_count:  # bids only grow during a deal
            self._bids, self._bid_count = _bids(obs.bids), len(obs.bids)
        tricks = self._tricks
        for trick in obs.tricks[len(tricks) :]:
            tricks.append(_trick(_TRICK, trick.leader, trick.plays, trick.winner))
        current = obs.current_trick
        observation = b"".join(
            [
                _SEAT[obs.seat],
                self._fixed,
                *[_HAND[c] for c in obs.hand],
                b"" if obs.joker_swap_seat is None else _swap(obs),
                self._bids,
                *tricks,
                _trick(_CURRENT_TRICK, current.leader, current.plays, None),
                _TRUMPS_BROKEN if obs.trumps_broken else b"",
                _TRICKS_WON[obs.tricks_won],
                b"" if time_left_ms <= 0 else _TIME_LEFT + _varint(time_left_ms),
            ]
        )
        if obs.phase is Phase.BIDDING and obs.legal_actions:
            legal = _legal_bids_piece(obs.hand_size)
        else:
            legal = b"".join([_LEGAL_PLAY[c] for c in obs.legal_actions])
        return b"\x0a" + _varint(len(observation)) + observation + legal


def _varint(n: int) -> bytes:
    """Protobuf's base-128 varint; a negative int32 is sign-extended to 64 bits."""
    if 0 <= n < 0x80:
        return _BYTE[n]
    if 0 < n < 0x4000:  # a message's length, a bank in ms: unrolled for speed
        return bytes((n & 0x7F | 0x80, n >> 7))
    if 0 < n < 0x20_0000:
        return bytes((n & 0x7F | 0x80, n >> 7 & 0x7F | 0x80, n >> 14))
    n &= 0xFFFF_FFFF_FFFF_FFFF
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_BYTE = tuple(bytes((n,)) for n in range(0x80))


# A field is its tag (field number << 3 | wire type: 0 varint, 2 length-delimited), then
# its value: a varint, or a length and the bytes.
def _uint(tag: int, n: int) -> bytes:
    """A singular proto3 scalar: absent when zero."""
    return _BYTE[tag] + _varint(n) if n else b""


def _delimited(tag: int, data: bytes) -> bytes:
    return _BYTE[tag] + _varint(len(data)) + data


def _packed(tag: int, values: tuple[int, ...]) -> bytes:
    return _delimited(tag, b"".join(map(_varint, values))) if values else b""


_NAME_BYTES = tuple(name.encode() for name in NAMES)
# Observation fields, and DecisionRequest.legal_plays (3 << 3 | 2).
_SEAT = tuple(_uint(1 << 3, seat) for seat in range(4))
_HAND = tuple(_delimited(5 << 3 | 2, name) for name in _NAME_BYTES)
_TRICK, _CURRENT_TRICK = 10 << 3 | 2, 11 << 3 | 2
_TRUMPS_BROKEN = _uint(12 << 3, 1)
_TIME_LEFT = _varint(16 << 3)  # a two-byte tag
_LEGAL_PLAY = tuple(_delimited(3 << 3 | 2, name) for name in _NAME_BYTES)
# Trick.plays: a CardPlay {seat, card}, by seat and card.
_PLAY = tuple(
    tuple(_delimited(2 << 3 | 2, _uint(1 << 3, seat) + _delimited(2 << 3 | 2, name))
          for name in _NAME_BYTES)
    for seat in range(4)
)  # fmt: skip


class _PackedCache(dict[tuple[int, ...], bytes]):
    """A packed repeated field's encoding by its values (few distinct ones recur)."""

    def __init__(self, tag: int) -> None:
        super().__init__()
        self.tag = tag

    def __missing__(self, values: tuple[int, ...]) -> bytes:
        self[values] = piece = _packed(self.tag, values)
        return piece


_TRICKS_WON = _PackedCache(13 << 3 | 2)


def _fixed_fields(obs: Observation) -> bytes:
    return b"".join(
        [
            _uint(2 << 3, obs.deal_number),
            _uint(3 << 3, obs.hand_size),
            _uint(4 << 3, obs.dealer),
            _delimited(6 << 3 | 2, _NAME_BYTES[obs.turned]),
            b"" if obs.trump is None else _delimited(7 << 3 | 2, SUITS[obs.trump].encode()),
            _packed(14 << 3 | 2, obs.totals),
            _uint(15 << 3, obs.redeals_in_row),
        ]
    )


def _bids(bids: tuple[tuple[int, int], ...]) -> bytes:
    pieces = []
    level = 0
    for seat, action in bids:
        level += action == BOARD
        pieces.append(_bid_piece(seat, action, level if action == BOARD else 0))
    return b"".join(pieces)


def _trick(tag: int, leader: int, plays: tuple[tuple[int, int], ...], winner: int | None) -> bytes:
    body = b"".join([_uint(1 << 3, leader), *[_PLAY[seat][card] for seat, card in plays]])
    if winner is not None:  # an optional field: 0 is sent too
        body += _BYTE[3 << 3] + _varint(winner)
    return _delimited(tag, body)


def _swap(obs: Observation) -> bytes:
    if obs.joker_swap_seat is None or obs.joker_discarded is None:
        return b""
    body = _uint(1 << 3, obs.joker_swap_seat) + _delimited(
        2 << 3 | 2, _NAME_BYTES[obs.joker_discarded]
    )
    if obs.joker_drawn is not None:
        body += _delimited(3 << 3 | 2, _NAME_BYTES[obs.joker_drawn])
    return _delimited(8 << 3 | 2, body)


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


def _bid_answer(action: int) -> bytes:
    answer = pb.BidResponse()
    _fill_bid(answer.bid, action)
    return answer.SerializeToString()


# Every legal answer as protobuf encodes it, so that reading one is a lookup; other
# encodings of the same answer, and malformed ones, are left to a full parse.
BID_ANSWERS: dict[bytes, int] = {
    _bid_answer(action): action
    for action in (PASS, BOARD, *(number_bid(n) for n in range(1, MAX_NUMBER + 1)))
}
PLAY_ANSWERS: dict[bytes, int] = {
    pb.PlayResponse(card=name).SerializeToString(): card for card, name in enumerate(NAMES)
}


# The last event encoded and its message: the referee tells one event to every player in
# turn, so each bot that listens gets the same message, encoded once. One (event, message)
# tuple, replaced whole: threads refereeing other games at worst encode their own again.
_last: tuple[Event, pb.Notification] | None = None


def notification(event: Event) -> pb.Notification:
    """The protocol's message for an engine event (never to be changed by its caller)."""
    global _last
    last = _last
    if last is not None and last[0] is event:
        return last[1]
    message = _encode(event)
    _last = (event, message)
    return message


def _encode(event: Event) -> pb.Notification:
    match event:
        case TrickEnded(deal, trick, trump):
            message = pb.Notification()
            ended = message.trick_ended
            ended.deal_number = deal
            plays = tuple((trick.seat_of(i), c) for i, c in enumerate(trick.cards))
            _fill_trick(ended.trick, trick.leader, plays, trick.winner)
            if trump is not None:
                ended.trump = SUITS[trump]
            return message
        case DealEnded(record):
            return pb.Notification(
                deal_ended=pb.DealEnded(
                    deal_number=record.number,
                    redeal=record.redeal,
                    tricks_won=record.tricks_won,
                    points=list(record.points or ()),
                    totals=list(record.totals or ()),
                )
            )
        case GameEnded(totals, winner, reason):
            return pb.Notification(
                game_ended=pb.GameEnded(totals=list(totals), winner=winner, reason=reason)
            )
