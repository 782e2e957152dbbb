"""One game of Back Alley as a state machine: ``legal_actions()``, ``apply(action)``.

The state holds hands as bitmasks and cards as ints (see ``cards``); it deals each hand
itself from a ``DealSource`` (seeded shuffles by default), so a whole game is driven by
nothing but player actions. Everything that happened is kept in ``deals`` (one
``DealRecord`` per dealing, redeals included), which is what a replay is written from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from .bids import BOARD, NUM_ACTIONS, PASS, action_name, bid_number, legal_bid_mask
from .cards import BB, DECK_SIZE, LB, SUIT_MASKS, card_name, cards_of, mask_of, trump_mask
from .rules import HAND_SIZES, NUM_DEALS, SEATS, Rules
from .scoring import score_team
from .seeds import DealSource, first_dealer, seeded_deals

# Strength of a trump in a trick: above any card of the led suit (0..12); BB > LB > A.
_TRUMP_STRENGTH = [100 + c % 13 for c in range(52)] + [114, 113]
_BID_LISTS = {
    n: tuple(a for a in range(NUM_ACTIONS) if legal_bid_mask(n) >> a & 1) for n in HAND_SIZES
}


class Phase(IntEnum):
    BIDDING = 0
    PLAY = 1
    OVER = 2


_BIDDING, _PLAY, _OVER = Phase.BIDDING, Phase.PLAY, Phase.OVER  # plain globals: faster to read


class IllegalActionError(ValueError):
    """An action that is not among ``legal_actions()`` in this state."""


class Trick:
    """One trick: who led, the cards in play order, who won, and (if recorded) what was legal."""

    __slots__ = ("cards", "leader", "legal", "winner")

    def __init__(self, leader: int, legal: list[list[int]] | None = None) -> None:
        self.leader = leader
        self.cards: list[int] = []
        self.winner: int | None = None
        self.legal = legal  # per play, the cards that were allowed

    def seat_of(self, i: int) -> int:
        return (self.leader + i) % SEATS


@dataclass(frozen=True)
class JokerSwap:
    seat: int
    discarded: int
    drawn: int


@dataclass
class DealRecord:
    """One dealing as it happened: the cards dealt, the bids, the tricks and the score."""

    number: int  # 1..25; a redeal repeats the number
    hand_size: int
    dealer: int
    hands: tuple[int, ...]  # masks as dealt, before the joker swap
    stock: tuple[int, ...]  # undealt cards, top first; stock[0] is the turned card
    trump: int | None
    joker_swap: JokerSwap | None
    bids: list[tuple[int, int]] = field(default_factory=list)  # (seat, action)
    redeal: bool = False
    leader: int | None = None
    tricks: list[Trick] = field(default_factory=list)
    tricks_won: list[int] = field(default_factory=lambda: [0] * SEATS)
    points: tuple[int, int] | None = None
    totals: tuple[int, int] | None = None

    @property
    def turned(self) -> int:
        return self.stock[0]


class GameState:
    """A full 25-deal game. Seats 0..3 clockwise; teams {0, 2} and {1, 3}."""

    __slots__ = (
        "rules", "seed", "first_dealer", "record_legal", "_deal_source",
        "phase", "deal_number", "hand_size", "dealer", "to_move", "redeals_in_row",
        "hands", "trump", "trump_mask", "board_levels", "boards_claimed",
        "trumps_broken", "trick", "led_mask", "best_seat", "best_strength", "tricks_won",
        "totals", "deals",
        "_legal", "_record",
    )  # fmt: skip

    phase: Phase
    deal_number: int
    hand_size: int
    dealer: int
    to_move: int
    redeals_in_row: int
    hands: list[int]  # one mask per seat
    trump: int | None
    trump_mask: int
    board_levels: list[int]  # per seat: 0, or k for the k-th board claim of the deal
    boards_claimed: int
    trumps_broken: bool
    trick: Trick
    led_mask: int  # cards that follow the led suit (the whole trump mask on a trump lead)
    best_seat: int  # who is winning the trick in play
    best_strength: int
    tricks_won: list[int]
    totals: list[int]
    _legal: int  # in play: the legal mask of the seat to move, -1 until computed
    _record: DealRecord

    def __init__(
        self,
        rules: Rules,
        first_dealer: int,
        deal_source: DealSource,
        *,
        seed: int | None = None,
        record_legal: bool = False,
    ) -> None:
        self.rules = rules
        self.seed = seed
        self.first_dealer = first_dealer
        self.record_legal = record_legal
        self._deal_source = deal_source
        self.deal_number = 1
        self.dealer = first_dealer
        self.redeals_in_row = 0
        self.totals = [0, 0]
        self.deals: list[DealRecord] = []
        self._start_dealing()

    @classmethod
    def new(cls, seed: int, rules: Rules | None = None, *, record_legal: bool = False) -> GameState:
        """A game whose first dealer and every shuffle come from ``seed`` (an int >= 0), one
        way each (``seeds``)."""
        # Negative seeds are refused: each game has one seed, written as an int >= 0.
        if not isinstance(seed, int) or seed < 0:
            raise ValueError(f"a seed is an int >= 0, got {seed!r}")
        return cls(rules or Rules(), first_dealer(seed), seeded_deals(seed), seed=seed,
                   record_legal=record_legal)  # fmt: skip

    # ------------------------------------------------------------------ queries

    def current_player(self) -> int:
        """The seat to act, or -1 once the game is over."""
        return -1 if self.phase is Phase.OVER else self.to_move

    def is_terminal(self) -> bool:
        return self.phase is _OVER

    def legal_mask(self) -> int:
        """The legal actions as a mask over action ints (cards 0..53, bids 54..67)."""
        if self.phase is _PLAY:
            if self._legal < 0:
                self._legal = self._play_mask()
            return self._legal
        return legal_bid_mask(self.hand_size) if self.phase is _BIDDING else 0

    def legal_actions(self) -> list[int]:
        if self.phase is _PLAY:
            legal = self._legal
            if legal < 0:
                legal = self._legal = self._play_mask()
            return cards_of(legal)
        return list(_BID_LISTS[self.hand_size]) if self.phase is _BIDDING else []

    def winner(self) -> int | None:
        """The winning team once the game is over; ``None`` for a draw or a game in play."""
        if self.phase is not Phase.OVER or self.totals[0] == self.totals[1]:
            return None
        return 0 if self.totals[0] > self.totals[1] else 1

    @property
    def current_deal(self) -> DealRecord:
        return self._record

    # ------------------------------------------------------------------ moves

    def apply(self, action: int) -> None:
        """Make one bid or play one card for the seat to move."""
        if self.phase is _PLAY:
            legal = self._legal
            if legal < 0:
                legal = self._play_mask()
            if action < 0 or not legal >> action & 1:
                raise IllegalActionError(self._illegal_message(action, legal))
            self._legal = -1
            self._play(action, legal)
        else:
            legal = self.legal_mask()
            if action < 0 or not legal >> action & 1:
                raise IllegalActionError(self._illegal_message(action, legal))
            self._bid(action)

    def _play_mask(self) -> int:
        """The cards the seat to move may play (``_legal`` caches it between calls)."""
        seat = self.to_move
        hand = self.hands[seat]
        trumps = hand & self.trump_mask
        cards = self.trick.cards
        if not cards:
            if trumps and trumps != hand and not self.trumps_broken and not self.board_levels[seat]:
                return hand & ~trumps
            return hand
        led = cards[0]
        if led >= BB:
            if not trumps:
                return hand
            if led == BB:  # Big Blooper led: the highest trump
                if trumps >> LB & 1:
                    return 1 << LB
                return 1 << (trumps.bit_length() - 1)
            plain = trumps & ~(1 << BB | 1 << LB)  # Little Blooper led: the lowest trump
            if plain:
                return plain & -plain
            return 1 << BB
        return hand & self.led_mask or hand

    def _bid(self, action: int) -> None:
        seat = self.to_move
        record = self._record
        record.bids.append((seat, action))
        if action == BOARD:
            self.boards_claimed += 1
            self.board_levels[seat] = self.boards_claimed
        if len(record.bids) < SEATS:
            self.to_move = (seat + 1) % SEATS
            return
        all_pass = all(a == PASS for _, a in record.bids)
        if all_pass and self.redeals_in_row < self.rules.max_redeals:
            record.redeal = True
            self.redeals_in_row += 1
            self.dealer = (self.dealer + 1) % SEATS
            self._start_dealing()
            return
        self.redeals_in_row = 0
        self.phase = Phase.PLAY
        record.leader = self._first_leader(record.bids)
        self._new_trick(record.leader)

    def _first_leader(self, bids: list[tuple[int, int]]) -> int:
        """The last board claimant; else the earliest of the highest numeric bidders."""
        leader, best = bids[0][0], -1
        for seat, action in bids:
            if action == BOARD:
                best = 99
                leader = seat
            elif bid_number(action) > best:
                best = bid_number(action)
                leader = seat
        return leader

    def _play(self, card: int, legal: int) -> None:
        seat = self.to_move
        bit = 1 << card
        self.hands[seat] ^= bit
        trick = self.trick
        cards = trick.cards
        if trick.legal is not None:
            trick.legal.append(cards_of(legal))
        cards.append(card)
        trumps = self.trump_mask
        played = len(cards)
        if played == 1:
            self.led_mask = trumps if bit & trumps else SUIT_MASKS[card // 13]
        # Strength in this trick: any trump beats the led suit, which beats the rest.
        if bit & trumps:
            self.trumps_broken = True
            strength = _TRUMP_STRENGTH[card]
        else:
            strength = card % 13 if bit & self.led_mask else -1
        if strength > self.best_strength:
            self.best_strength = strength
            self.best_seat = seat
        if played < 4:
            self.to_move = following = (seat + 1) & 3
            if cards[0] < BB:  # the common case, inline: follow suit if you can
                hand = self.hands[following]
                self._legal = hand & self.led_mask or hand
            return
        winner = trick.winner = self.best_seat
        record = self._record
        record.tricks.append(trick)
        self.tricks_won[winner] += 1
        if len(record.tricks) < self.hand_size:
            self._new_trick(winner)
        else:
            self._finish_deal()

    def _new_trick(self, leader: int) -> None:
        self.to_move = leader
        self.trick = Trick(leader, [] if self.record_legal else None)
        self.best_strength = -2

    def _finish_deal(self) -> None:
        record = self._record
        won = self.tricks_won
        levels = self.board_levels
        points = []
        for team in (0, 1):
            number = sum(bid_number(a) for s, a in record.bids if s & 1 == team)
            level = max(levels[team], levels[team + 2])
            points.append(score_team(number, level, won[team] + won[team + 2], self.hand_size))
        self.totals[0] += points[0]
        self.totals[1] += points[1]
        record.points = (points[0], points[1])
        record.totals = (self.totals[0], self.totals[1])
        self.dealer = (self.dealer + 1) % SEATS
        if self.deal_number == NUM_DEALS:
            self.phase = Phase.OVER
            self._legal = -1
            return
        self.deal_number += 1
        self._start_dealing()

    def _start_dealing(self) -> None:
        hand_size = HAND_SIZES[self.deal_number - 1]
        dealt, stock = self._deal_source(self.dealer, hand_size)
        hands = [mask_of(h) for h in dealt]
        record = DealRecord(
            number=self.deal_number,
            hand_size=hand_size,
            dealer=self.dealer,
            hands=tuple(hands),
            stock=tuple(stock),
            trump=None,
            joker_swap=None,
        )
        turned = stock[0]
        if turned >= BB:
            other = LB if turned == BB else BB
            for seat in range(SEATS):
                if hands[seat] >> other & 1:
                    drawn = stock[1]
                    hands[seat] ^= (1 << other) | (1 << drawn)
                    record.joker_swap = JokerSwap(seat, other, drawn)
                    break
            self.trump = None
        else:
            self.trump = turned // 13
        record.trump = self.trump
        self.trump_mask = trump_mask(self.trump)
        self.deals.append(record)
        self._record = record
        self.hand_size = hand_size
        self.hands = hands
        self.phase = Phase.BIDDING
        self.to_move = (self.dealer + 1) % SEATS
        self.board_levels = [0, 0, 0, 0]
        self.boards_claimed = 0
        self.trumps_broken = False
        self.trick = Trick(self.to_move)
        self.led_mask = 0
        self.best_strength = -2
        self.best_seat = -1
        self.tricks_won = record.tricks_won
        self._legal = -1

    def _illegal_message(self, action: int, legal: int) -> str:
        if self.phase is Phase.OVER:
            return "the game is over: no action is legal"
        allowed = ", ".join(action_name(a) for a in range(NUM_ACTIONS) if legal >> a & 1)
        held = self.hands[self.to_move]
        if self.phase is Phase.PLAY and 0 <= action < DECK_SIZE and not held >> action & 1:
            return f"seat {self.to_move} does not hold {card_name(action)}; legal: {allowed}"
        return f"seat {self.to_move} may not {action_name(action)} now; legal: {allowed}"
