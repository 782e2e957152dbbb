"""Observations for unit tests of a bot's ``bid`` and ``play``, from a compact description.

>>> from arena_sdk.testing import observation
>>> obs = observation("AS KD 3C", trump="H", bids="1 pass")
>>> obs.seat, [str(b) for b in obs.legal_bids]
(0, ['pass', '1', '2', 'board'])
>>> obs = observation("AS KD 3D", trump="H", bids="1 pass 2 pass", trick="QD")
>>> [str(c) for c in obs.legal_plays]
['KD', '3D']

The bids are this deal's so far, in bidding order; with all four given it is the play, and
``trick`` holds the cards already played to the first trick, from its leader. The seat to
act is ``seat`` (default 0): the dealer and the leader are chosen to make it so, following
the rules (the highest number leads, else the last board claimer). The legal bids and plays
are the rules' for that moment, as the referee would send them.
"""

from __future__ import annotations

from collections.abc import Sequence

from backalley.v1 import player_pb2 as pb

from .cards import Card
from .observation import Observation

SEATS = 4
RANKS = "23456789TJQKA"
JOKERS = ("BB", "LB")


def observation(
    hand: str | Sequence[str],
    *,
    trump: str | None = "S",
    bids: str | Sequence[str | int] = "",
    trick: str | Sequence[str] = "",
    seat: int = 0,
    trumps_broken: bool = False,
    totals: tuple[int, int] = (0, 0),
) -> Observation:
    """The observation of ``seat`` holding ``hand`` (e.g. ``"AS KD 3C"``) in a deal of
    ``len(hand)`` cards with ``trump`` (``"S"``, ``"H"``, ``"D"``, ``"C"`` or None), after
    ``bids`` (e.g. ``"1 pass board"``) and, once all four have bid, the first trick's ``trick``
    so far (e.g. ``"QD 2D"``). Raises ``ValueError`` for a description no deal can reach."""
    cards = _cards(hand)
    played = _cards(trick)
    bid_list = [_bid(b) for b in (bids.split() if isinstance(bids, str) else bids)]
    n = len(cards)
    if not 1 <= n <= 13 or not 0 <= seat < SEATS:
        raise ValueError(f"a hand holds 1 to 13 cards and seat is 0-3, got {n} cards, seat {seat}")
    if trump is not None and trump not in "SHDC":
        raise ValueError(f"trump is S, H, D, C or None, got {trump!r}")
    if trump is None and any(c in JOKERS for c in cards + played):
        raise ValueError("no joker is in play in a no-trump deal")
    if len(set(cards + played)) != len(cards) + len(played):
        raise ValueError("a card is given twice")
    if len(bid_list) > SEATS or (played and len(bid_list) < SEATS) or len(played) > 3:
        raise ValueError("give at most four bids, all four before a trick, at most 3 cards")
    for b in bid_list:
        if isinstance(b, int) and not 1 <= b < n:
            raise ValueError(f"bid {b} is out of range for {n} cards")
    bidding = len(bid_list) < SEATS
    first = len(bid_list) if bidding else _leader_index(bid_list) + len(played)
    dealer = (seat - 1 - first) % SEATS
    request = pb.DecisionRequest()
    obs = request.observation  # filled in place: a message given to a constructor is copied
    obs.MergeFrom(
        pb.Observation(
            seat=seat,
            deal_number=14 - n,
            hand_size=n,
            dealer=dealer,
            hand=cards,
            turned=_turned(trump, cards + played),
            trump=trump or "",
            trumps_broken=trumps_broken,
            tricks_won=[0] * SEATS,
            totals=list(totals),
        )
    )
    level = 0
    for j, b in enumerate(bid_list):
        level += b == "board"
        obs.bids.add(seat=(dealer + 1 + j) % SEATS, bid=_bid_pb(b, level))
    if bidding:
        request.legal_bids.extend(
            [_bid_pb("pass", 0), *(_bid_pb(k, 0) for k in range(1, n)), _bid_pb("board", 0)]
        )
    else:
        leader = (seat - len(played)) % SEATS
        obs.current_trick.leader = leader
        for i, card in enumerate(played):
            obs.current_trick.plays.add(seat=(leader + i) % SEATS, card=card)
        claimed = any(
            b == "board" and (dealer + 1 + j) % SEATS == seat for j, b in enumerate(bid_list)
        )
        request.legal_plays.extend(legal_plays(cards, played, trump, trumps_broken, claimed))
    return Observation(request)


def legal_plays(
    hand: Sequence[str], trick: Sequence[str], trump: str | None, trumps_broken: bool,
    claimed_board: bool,
) -> list[str]:  # fmt: skip
    """The cards of ``hand`` the rules allow after ``trick`` (docs/rules.md, "Play")."""

    def is_trump(card: str) -> bool:
        return trump is not None and (card in JOKERS or card[1] == trump)

    def strength(card: str) -> int:
        return {"BB": 15, "LB": 14}.get(card) or RANKS.index(card[0])

    trumps = [c for c in hand if is_trump(c)]
    if not trick:
        if trumps and len(trumps) < len(hand) and not trumps_broken and not claimed_board:
            return [c for c in hand if not is_trump(c)]
        return list(hand)
    led = trick[0]
    if led in JOKERS:
        if not trumps:
            return list(hand)
        if led == "BB":
            return [max(trumps, key=strength)]
        plain = [c for c in trumps if c not in JOKERS]
        return [min(plain, key=strength)] if plain else ["BB"]
    suit = [c for c in hand if c not in JOKERS and c[1] == led[1]]
    return (trumps if is_trump(led) else suit) or list(hand)


def _cards(cards: str | Sequence[str]) -> list[str]:
    names = cards.split() if isinstance(cards, str) else list(cards)
    return [str(Card.parse(name)) for name in names]  # Card.parse names a bad one


def _bid(value: str | int) -> str | int:
    if value in ("pass", "board"):
        return str(value)
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"not a bid: {value!r} (pass, board or a number)") from None


def _bid_pb(bid: str | int, level: int) -> pb.Bid:
    if bid == "pass":
        return pb.Bid(kind=pb.BID_KIND_PASS)
    if bid == "board":
        return pb.Bid(kind=pb.BID_KIND_BOARD, board_level=level)
    return pb.Bid(kind=pb.BID_KIND_NUMBER, number=int(bid))


def _leader_index(bids: list[str | int]) -> int:
    """Which bid, in bidding order, leads the first trick: the last board claim, else the
    earliest of the highest numbers (all passes: the dealer's left, bid 0)."""
    boards = [j for j, b in enumerate(bids) if b == "board"]
    if boards:
        return boards[-1]
    numbers = [b if isinstance(b, int) else 0 for b in bids]
    return numbers.index(max(numbers))


def _turned(trump: str | None, used: list[str]) -> str:
    """A turned card that gives ``trump`` and is in nobody's view already."""
    if trump is None:
        return "LB"
    return next(r + trump for r in RANKS if r + trump not in used)
