"""Observations for unit tests of a bot's ``bid`` and ``play``, from a compact description.

>>> from arena_sdk.testing import observation
>>> obs = observation("AS KD 3C", trump="H", bids="1 pass")
>>> obs.seat, [str(b) for b in obs.legal_bids]
(0, ['pass', '1', '2', 'board'])
>>> obs = observation("AS KD 3D", trump="H", bids="1 pass 2 pass", trick="QD")
>>> [str(c) for c in obs.legal_plays]
['KD', '3D']
>>> obs = observation("KD 3D", trump="H", bids="1 pass 2 pass", tricks=["QS 2S AS 5H"],
...                   trick="QD")
>>> obs.tricks_won, obs.trumps_broken, [str(c) for c in obs.legal_plays]
((0, 0, 0, 1), True, ['KD', '3D'])

The bids are this deal's so far, in bidding order; with all four given it is the play.
``tricks`` are the deal's completed tricks, each its four cards from its leader (the first
trick's leader follows the bids, each next one is the last trick's winner), and ``trick``
the cards already played to the trick in play, from its leader. The seat to act is
``seat`` (default 0): the dealer is chosen to make it so, following the rules (the highest
number leads, else the last board claimer). The tricks won, whether trumps are broken and
the legal bids and plays are the rules' for that moment, as the referee would send them.
The hidden hands are not checked: a play of an earlier trick is taken as given.
"""

from __future__ import annotations

from collections.abc import Sequence

from backalley.v1 import player_pb2 as pb

from .cards import Card
from .observation import Observation

SEATS = 4
RANKS = "23456789TJQKA"
JOKERS = ("BB", "LB")
Cards = str | Sequence[str]


def observation(
    hand: Cards,
    *,
    trump: str | None = "S",
    bids: str | Sequence[str | int] = "",
    tricks: Sequence[Cards] = (),
    trick: Cards = "",
    seat: int = 0,
    hand_size: int | None = None,
    totals: tuple[int, int] = (0, 0),
) -> Observation:
    """The observation of ``seat`` holding ``hand`` (e.g. ``"AS KD 3C"``) with ``trump``
    (``"S"``, ``"H"``, ``"D"``, ``"C"`` or None), after ``bids`` (e.g. ``"1 pass board"``)
    and, once all four have bid, the deal's completed ``tricks`` (e.g. ``["QS 2S AS 5H"]``)
    and the ``trick`` in play so far (e.g. ``"QD 2D"``).

    The deal's size is ``hand_size`` if given (the hand must then hold one card fewer for
    each completed trick), else the hand's cards plus the tricks. Raises ``ValueError``
    for a description no deal can reach."""
    cards = _cards(hand)
    played = _cards(trick)
    if isinstance(tricks, str):
        raise ValueError("tricks is a list of tricks, each its four cards: ['QS 2S AS 5H', ...]")
    done = [_cards(t) for t in tricks]
    bid_list = [_bid(b) for b in (bids.split() if isinstance(bids, str) else bids)]
    if not 0 <= seat < SEATS:
        raise ValueError(f"seat is 0-3, got {seat}")
    n = _deal_size(len(cards), len(done), hand_size)
    seen = cards + played + [c for t in done for c in t]
    _check(seen, played, done, bid_list, trump, n)
    bidding = len(bid_list) < SEATS
    # Seats relative to the first trick's leader (0): each trick's winner leads the next.
    leader, won, history = 0, [0] * SEATS, []
    for t in done:
        winner = (leader + _winning_index(t, trump)) % SEATS
        history.append((leader, t, winner))
        won[winner] += 1
        leader = winner
    # The seat to act, counted from the dealer's left.
    first = len(bid_list) if bidding else _leader_index(bid_list) + leader + len(played)
    dealer = (seat - 1 - first) % SEATS
    leader0 = (dealer + 1 + (0 if bidding else _leader_index(bid_list))) % SEATS
    current = (seat - len(played)) % SEATS
    counts = [won[(s - leader0) % SEATS] for s in range(SEATS)]
    broken = any(_is_trump(c, trump) for c in seen if c not in cards)  # played this deal
    request = pb.DecisionRequest()
    obs = request.observation  # filled in place: a message given to a constructor is copied
    obs.MergeFrom(
        pb.Observation(
            seat=seat,
            deal_number=14 - n,
            hand_size=n,
            dealer=dealer,
            hand=cards,
            turned=_turned(trump, seen),
            trump=trump or "",
            trumps_broken=broken,
            tricks_won=counts,
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
        return Observation(request)
    for lead, t, winner in history:
        done_trick = obs.tricks.add(
            leader=(leader0 + lead) % SEATS, winner=(leader0 + winner) % SEATS
        )
        for i, card in enumerate(t):
            done_trick.plays.add(seat=(leader0 + lead + i) % SEATS, card=card)
    obs.current_trick.leader = current
    for i, card in enumerate(played):
        obs.current_trick.plays.add(seat=(current + i) % SEATS, card=card)
    claimed = any(b == "board" and (dealer + 1 + j) % SEATS == seat for j, b in enumerate(bid_list))
    request.legal_plays.extend(legal_plays(cards, played, trump, broken, claimed))
    return Observation(request)


def _deal_size(held: int, finished: int, hand_size: int | None) -> int:
    """The deal's size: ``hand_size``, which the hand must fit, else what the hand held."""
    n = held + finished if hand_size is None else hand_size
    if held != n - finished:
        raise ValueError(
            f"a hand of {held} cards after {finished} tricks is not a deal of {n}:"
            f" it holds {n - finished}"
        )
    if not 1 <= held <= n <= 13:
        raise ValueError(f"a deal is 1 to 13 cards, one at least still in hand; got {held} of {n}")
    return n


def _check(
    seen: list[str], played: list[str], done: list[list[str]], bids: list[str | int],
    trump: str | None, n: int,
) -> None:  # fmt: skip
    """Refuse what no deal can reach, saying why."""
    if trump is not None and trump not in "SHDC":
        raise ValueError(f"trump is S, H, D, C or None, got {trump!r}")
    for i, t in enumerate(done, 1):
        if len(t) != SEATS:
            raise ValueError(f"completed trick {i} has {len(t)} cards, not four")
    if trump is None and any(c in JOKERS for c in seen):
        raise ValueError("no joker is in play in a no-trump deal")
    if len(set(seen)) != len(seen):
        twice = sorted({c for c in seen if seen.count(c) > 1})
        raise ValueError(f"a card is given twice: {' '.join(twice)}")
    if len(bids) > SEATS or len(played) > 3:
        raise ValueError("give at most four bids and at most 3 cards of the trick in play")
    if (played or done) and len(bids) < SEATS:
        raise ValueError("a trick is played after the bids, all four before a trick")
    for b in bids:
        if isinstance(b, int) and not 1 <= b < n:
            raise ValueError(f"bid {b} is out of range for {n} cards")


def legal_plays(
    hand: Sequence[str], trick: Sequence[str], trump: str | None, trumps_broken: bool,
    claimed_board: bool,
) -> list[str]:  # fmt: skip
    """The cards of ``hand`` the rules allow after ``trick`` (docs/rules.md, "Play")."""

    def is_trump(card: str) -> bool:
        return _is_trump(card, trump)

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
            return [max(trumps, key=_strength)]
        plain = [c for c in trumps if c not in JOKERS]
        return [min(plain, key=_strength)] if plain else ["BB"]
    suit = [c for c in hand if c not in JOKERS and c[1] == led[1]]
    return (trumps if is_trump(led) else suit) or list(hand)


def _is_trump(card: str, trump: str | None) -> bool:
    return trump is not None and (card in JOKERS or card[1] == trump)


def _strength(card: str) -> int:
    return {"BB": 15, "LB": 14}.get(card) or RANKS.index(card[0])


def _winning_index(trick: list[str], trump: str | None) -> int:
    """Which of a complete trick's cards wins it: the highest trump, else the highest of the
    led suit (a trump lead, a joker's included, is led in trumps)."""

    def power(card: str) -> int:
        if _is_trump(card, trump):
            return 100 + _strength(card)
        led = trick[0]
        return _strength(card) if not _is_trump(led, trump) and card[1] == led[1] else -1

    return max(range(SEATS), key=lambda i: power(trick[i]))


def _cards(cards: Cards) -> list[str]:
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
