"""What one player may see: their own hand and everything played in the open.

The referee sees the whole ``GameState``; a player only ever gets an ``Observation``.
Hidden from a seat: the other hands, the stock below the turned card, and the card a
joker swap drew for someone else (the discarded joker and who swapped are public).
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import cards_of
from .rules import SEATS
from .state import GameState, Phase


@dataclass(frozen=True)
class TrickView:
    leader: int
    plays: tuple[tuple[int, int], ...]  # (seat, card) in play order
    winner: int | None


@dataclass(frozen=True)
class Observation:
    seat: int
    phase: Phase
    to_move: int  # -1 once the game is over
    deal_number: int  # 1..25
    hand_size: int
    dealer: int
    redeals_in_row: int
    hand: tuple[int, ...]
    turned: int  # the turned card (trump indicator)
    trump: int | None  # 0..3 for S, H, D, C; None in a no-trump deal
    joker_swap_seat: int | None
    joker_discarded: int | None
    joker_drawn: int | None  # only for the seat that drew it
    bids: tuple[tuple[int, int], ...]  # (seat, action) in bidding order
    board_levels: tuple[int, ...]  # per seat, 0 = no board claim
    tricks: tuple[TrickView, ...]  # completed tricks of this deal
    current_trick: TrickView
    trumps_broken: bool
    tricks_won: tuple[int, ...]  # per seat, this deal
    totals: tuple[int, int]  # per team, before this deal is scored
    legal_actions: tuple[int, ...]  # empty unless it is this seat's turn

    @property
    def team(self) -> int:
        return self.seat & 1

    @property
    def partner(self) -> int:
        return (self.seat + 2) % SEATS


def _view(leader: int, cards: list[int], winner: int | None) -> TrickView:
    plays = tuple(((leader + i) % SEATS, c) for i, c in enumerate(cards))
    return TrickView(leader, plays, winner)


def observe(state: GameState, seat: int) -> Observation:
    """The observation of ``seat``: never another player's hidden card."""
    if not 0 <= seat < SEATS:
        raise ValueError(f"seat must be 0..3, got {seat}")
    deal = state.current_deal
    swap = deal.joker_swap
    in_play = state.phase is Phase.PLAY
    return Observation(
        seat=seat,
        phase=state.phase,
        to_move=state.current_player(),
        deal_number=deal.number,
        hand_size=deal.hand_size,
        dealer=deal.dealer,
        redeals_in_row=state.redeals_in_row,
        hand=tuple(cards_of(state.hands[seat])),
        turned=deal.turned,
        trump=deal.trump,
        joker_swap_seat=swap.seat if swap else None,
        joker_discarded=swap.discarded if swap else None,
        joker_drawn=swap.drawn if swap and swap.seat == seat else None,
        bids=tuple(deal.bids),
        board_levels=tuple(state.board_levels),
        tricks=tuple(_view(t.leader, t.cards, t.winner) for t in deal.tricks),
        current_trick=_view(state.trick.leader, state.trick.cards if in_play else [], None),
        trumps_broken=state.trumps_broken,
        tricks_won=tuple(deal.tricks_won),
        totals=(state.totals[0], state.totals[1]),
        legal_actions=tuple(state.legal_actions()) if state.current_player() == seat else (),
    )
