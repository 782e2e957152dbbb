"""What a bot sees when it must act: a read-only view of one seat's observation.

Built lazily from the protocol message: a bot that only reads ``legal_plays`` pays for
nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from backalley.v1 import player_pb2 as pb

from .cards import ALL_CARDS, CARDS_BY_TRUMP, Bid, Card, cached

SEATS = 4


@dataclass(frozen=True)
class SeatBid:
    seat: int
    bid: Bid
    board_level: int = 0  # 1 board, 2 double, 3 triple, 4 quadruple; 0 if not a board claim


@dataclass(frozen=True)
class Play:
    seat: int
    card: Card


@dataclass(frozen=True)
class Trick:
    leader: int
    plays: tuple[Play, ...]  # in play order, from the leader
    winner: int | None  # None while the trick is in play

    @property
    def led(self) -> Card | None:
        return self.plays[0].card if self.plays else None


@dataclass(frozen=True)
class JokerSwap:
    """After a turned joker: ``seat`` discarded the other joker and drew a card."""

    seat: int
    discarded: Card
    drawn: Card | None  # known only to the swapper


@dataclass(frozen=True)
class Contract:
    """A team's contract this deal: ``board_level`` > 0 for a board, else ``tricks``.

    With a board the partners' numbers no longer count; ``tricks`` still sums them.
    """

    tricks: int
    board_level: int

    @property
    def is_board(self) -> bool:
        return self.board_level > 0


def bid_from_pb(msg: pb.Bid) -> Bid:
    if msg.kind == pb.BID_KIND_NUMBER:
        return Bid.number_of(msg.number)
    if msg.kind == pb.BID_KIND_PASS:
        return Bid.PASS
    if msg.kind == pb.BID_KIND_BOARD:
        return Bid.BOARD
    raise ValueError(f"unknown bid kind {msg.kind}")


# The usual encodings of every bid, so that reading legal_bids is a lookup per bid.
_BIDS_BY_PB: dict[tuple[int, int], Bid] = {
    (pb.BID_KIND_PASS, 0): Bid.PASS,
    (pb.BID_KIND_BOARD, 0): Bid.BOARD,
    **{(pb.BID_KIND_NUMBER, n): Bid.number_of(n) for n in range(1, 13)},
}


class Observation:
    """One seat's view of the game at a decision. Seats 0-3 clockwise; teams {0,2}, {1,3}."""

    def __init__(self, request: pb.DecisionRequest) -> None:
        self._request = request
        self._obs = request.observation

    def _card(self, name: str) -> Card:
        return Card.parse(name, self.trump)

    def _cards(self, names: Iterable[str]) -> tuple[Card, ...]:
        try:
            return tuple([CARDS_BY_TRUMP[self.trump][name] for name in names])
        except KeyError:  # not a card: Card.parse says which, as it does one card at a time
            return tuple(self._card(name) for name in names)

    def _trick(self, msg: pb.Trick) -> Trick:
        cards = self._cards([p.card for p in msg.plays])
        plays = tuple([Play(p.seat, card) for p, card in zip(msg.plays, cards, strict=True)])
        return Trick(msg.leader, plays, msg.winner if msg.HasField("winner") else None)

    # -------------------------------------------------------------- who and where

    @property
    def seat(self) -> int:
        return self._obs.seat

    @property
    def team(self) -> int:
        return self._obs.seat % 2

    @property
    def partner(self) -> int:
        return (self._obs.seat + 2) % SEATS

    @property
    def opponents(self) -> tuple[int, int]:
        return (self._obs.seat + 1) % SEATS, (self._obs.seat + 3) % SEATS

    @property
    def dealer(self) -> int:
        return self._obs.dealer

    @property
    def deal_number(self) -> int:
        """1..25."""
        return self._obs.deal_number

    @property
    def hand_size(self) -> int:
        return self._obs.hand_size

    @property
    def redeals_in_row(self) -> int:
        """All-pass redeals just before this deal; at the game's ``max_redeals`` (see
        ``Bot.rules``) an all-pass deal is played with both contracts 0."""
        return self._obs.redeals_in_row

    @property
    def time_left_ms(self) -> int:
        """What is left of this bot's time bank for the game."""
        return self._obs.time_left_ms

    @property
    def totals(self) -> tuple[int, int]:
        """Scores per team before this deal."""
        return self._obs.totals[0], self._obs.totals[1]

    # -------------------------------------------------------------- the cards

    @cached
    def trump(self) -> str | None:
        """``'S'``, ``'H'``, ``'D'``, ``'C'``, or None in a no-trump deal."""
        return self._obs.trump or None

    @cached
    def hand(self) -> tuple[Card, ...]:
        return self._cards(self._obs.hand)

    @cached
    def turned(self) -> Card:
        return self._card(self._obs.turned)

    @cached
    def joker_swap(self) -> JokerSwap | None:
        if not self._obs.HasField("joker_swap"):
            return None
        swap = self._obs.joker_swap
        drawn = self._card(swap.drawn) if swap.drawn else None
        return JokerSwap(swap.seat, self._card(swap.discarded), drawn)

    # -------------------------------------------------------------- bidding

    @cached
    def bids(self) -> tuple[SeatBid, ...]:
        """This deal's bids so far, in bidding order."""
        return tuple(SeatBid(b.seat, bid_from_pb(b.bid), b.bid.board_level) for b in self._obs.bids)

    def contract(self, team: int) -> Contract:
        """The team's contract from the bids so far."""
        mine = [b for b in self.bids if b.seat % 2 == team]
        level = max((b.board_level for b in mine), default=0)
        return Contract(sum(b.bid.tricks for b in mine), level)

    # -------------------------------------------------------------- play

    @cached
    def tricks(self) -> tuple[Trick, ...]:
        """This deal's completed tricks."""
        return tuple(self._trick(t) for t in self._obs.tricks)

    @cached
    def current_trick(self) -> Trick:
        return self._trick(self._obs.current_trick)

    @property
    def trumps_broken(self) -> bool:
        return self._obs.trumps_broken

    @cached
    def tricks_won(self) -> tuple[int, ...]:
        """Per seat, this deal."""
        return tuple(self._obs.tricks_won)

    def team_tricks(self, team: int) -> int:
        return self.tricks_won[team] + self.tricks_won[team + 2]

    @cached
    def cards_played(self) -> tuple[Card, ...]:
        """Every card played this deal, in order, the current trick included."""
        return tuple(p.card for t in (*self.tricks, self.current_trick) for p in t.plays)

    @cached
    def unseen(self) -> frozenset[Card]:
        """Cards this seat has not seen: in other hands or the stock. Jokers of a no-trump
        deal are out of play, so they are never unseen."""
        seen = {c.name for c in self.hand} | {c.name for c in self.cards_played}
        seen.add(self.turned.name)
        swap = self.joker_swap
        if swap is not None:
            seen.add(swap.discarded.name)
        if self.trump is None:
            seen.update(("BB", "LB"))
        cards = CARDS_BY_TRUMP[self.trump]
        return frozenset([cards[c] for c in ALL_CARDS if c not in seen])

    def follows(self, card: Card, led: Card) -> bool:
        """Whether ``card`` follows the suit of ``led`` (any trump follows a trump lead)."""
        return card.is_trump if led.is_trump else card.suit == led.suit

    @cached
    def voids(self) -> dict[int, frozenset[str]]:
        """Suits each seat has shown it lacks by not following them.

        A seat that fails to follow a trump lead (a Blooper lead included) has no trump left:
        its void is the trump suit's letter, and it holds no joker either.
        """
        out: dict[int, set[str]] = {s: set() for s in range(SEATS)}
        for trick in (*self.tricks, self.current_trick):
            if not trick.plays:
                continue
            led = trick.plays[0].card
            for play in trick.plays[1:]:
                suit = self.trump if led.is_trump else led.suit
                if suit and not self.follows(play.card, led):
                    out[play.seat].add(suit)
        return {s: frozenset(v) for s, v in out.items()}

    def power(self, card: Card, led: Card | None = None) -> int:
        """How strongly ``card`` contends for a trick led by ``led`` (default: the current
        trick's lead; a card that would lead counts as its own lead). Higher wins."""
        led = led or self.current_trick.led or card
        if card.is_trump:
            return 100 + card.rank_value
        return card.rank_value if self.follows(card, led) else -1

    @cached
    def winning(self) -> Play | None:
        """The play winning the current trick so far (None before the lead)."""
        plays = self.current_trick.plays
        return max(plays, key=lambda p: self.power(p.card)) if plays else None

    # -------------------------------------------------------------- what you may do

    @cached
    def legal_bids(self) -> tuple[Bid, ...]:
        """Empty unless this is a bid decision."""
        known = _BIDS_BY_PB.get
        return tuple(
            [known((b.kind, b.number)) or bid_from_pb(b) for b in self._request.legal_bids]
        )

    @cached
    def legal_plays(self) -> tuple[Card, ...]:
        """Empty unless this is a play decision."""
        return self._cards(self._request.legal_plays)

    @property
    def is_bidding(self) -> bool:
        return len(self._request.legal_bids) > 0

    def __repr__(self) -> str:
        what = "bid" if self.is_bidding else "play"
        return (
            f"<Observation seat {self.seat} deal {self.deal_number} ({self.hand_size} cards)"
            f" to {what}, hand {' '.join(map(str, self.hand))}>"
        )
