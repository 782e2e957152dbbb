"""Hand-built positions for the engine tests, written with card names.

``deal(hands, stock)`` builds a 13-card deal (deal 1) from the cards that matter. Each
seat holds the cards listed for it plus every card of its *home suit* that is listed
nowhere else: seat 0 spades, seat 1 hearts, seat 2 diamonds, seat 3 clubs. The stock is
given in full, turned card first. The result must be four 13-card hands and a 2-card
stock that use each of the 54 cards once, so nothing is chosen behind the test's back.

>>> hands, stock = deal(["BB LB", "", "", ""], "2S 3S")
>>> names(hands[0])
'4S 5S 6S 7S 8S 9S TS JS QS KS AS BB LB'
>>> names(hands[1])[:8], names(stock)
('2H 3H 4H', '2S 3S')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from arena.engine import GameState, Rules, card_name, cards_of, parse_bid, parse_card

HOME_SUITS = "SHDC"
RANKS = "23456789TJQKA"
ALL_NAMES = [r + s for s in "SHDC" for r in RANKS] + ["BB", "LB"]

Deal = tuple[list[list[int]], list[int]]
Bid = str | int


def cards(text: str) -> list[int]:
    """``"AS 2H BB"`` -> the card ints."""
    return [parse_card(name) for name in text.split()]


def names(items: Iterable[int]) -> str:
    """Card ints -> their names, lowest int first (S, H, D, C; two to ace; BB, LB)."""
    return " ".join(card_name(c) for c in sorted(items))


def mask_names(mask: int) -> set[str]:
    return {card_name(c) for c in cards_of(mask)}


def deal(hands: Sequence[str], stock: str) -> Deal:
    """Four 13-card hands and a 2-card stock: the listed cards plus each seat's home suit."""
    listed = [cards(h) for h in hands] + [cards(stock)]
    flat = [c for part in listed for c in part]
    assert len(flat) == len(set(flat)), f"a card is listed twice: {names(flat)}"
    used = set(flat)
    full: list[list[int]] = []
    for seat in range(4):
        home = [parse_card(r + HOME_SUITS[seat]) for r in RANKS]
        hand = listed[seat] + [c for c in home if c not in used]
        assert len(hand) == 13, f"seat {seat} would hold {len(hand)} cards: {names(hand)}"
        full.append(hand)
    stock_cards = listed[4]
    assert len(stock_cards) == 2, "a 13-card deal leaves a 2-card stock"
    assert len({c for h in full for c in h} | set(stock_cards)) == 54, "cards left over"
    return full, stock_cards


def boss_deal(hand_size: int, boss: int) -> Deal:
    """A deal of any size in which seat ``boss`` holds only trumps and no one else holds one.

    The turned card is 2S (spades are trump); ``boss`` holds BB, LB, AS, KS, ... from the top,
    so it wins every trick it plays to; the others hold hearts, diamonds and clubs.
    """
    trumps = cards("BB LB AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S")
    plain = [c for c in range(52) if c // 13 != 0]
    hands: list[list[int]] = [[], [], [], []]
    hands[boss] = trumps[:hand_size]
    rest = iter(plain)
    for seat in range(4):
        if seat != boss:
            hands[seat] = [next(rest) for _ in range(hand_size)]
    dealt = {c for h in hands for c in h}
    stock = [parse_card("2S")] + [c for c in range(54) if c not in dealt and c != parse_card("2S")]
    return hands, stock


class Script:
    """A deal source that hands out ``deals`` in turn (the last one repeats) and logs requests.

    Each item is a ``Deal`` or a function ``hand_size -> Deal``; ``calls`` holds every
    ``(dealer, hand_size)`` the engine asked for.
    """

    def __init__(self, *deals: Deal | Callable[[int], Deal]) -> None:
        self.deals = deals
        self.calls: list[tuple[int, int]] = []

    def __call__(self, dealer: int, hand_size: int) -> Deal:
        self.calls.append((dealer, hand_size))
        item = self.deals[min(len(self.calls), len(self.deals)) - 1]
        hands, stock = item(hand_size) if callable(item) else item
        return [list(h) for h in hands], list(stock)


def position(
    hands: Sequence[str], stock: str, *, dealer: int = 3, rules: Rules | None = None
) -> GameState:
    """A game whose first dealing is ``deal(hands, stock)``; dealer 3, so seat 0 bids first."""
    return GameState(rules or Rules(), dealer, Script(deal(hands, stock)))


def bid(state: GameState, *bids: Bid) -> None:
    """Make the next bids in turn: ``"pass"``, ``"board"`` or a number."""
    for b in bids:
        state.apply(parse_bid(b))


def play(state: GameState, *card_names: str) -> None:
    """Play the named cards in turn."""
    for name in card_names:
        state.apply(parse_card(name))


def legal_names(state: GameState) -> set[str]:
    """The legal plays of the seat to move, by name."""
    return {card_name(a) for a in state.legal_actions() if a < 54}


def hand_names(state: GameState, seat: int) -> set[str]:
    return mask_names(state.hands[seat])


def play_out_deal(state: GameState) -> None:
    """Play the deal in progress to its end, always the first legal card."""
    record = state.current_deal
    while record.points is None:
        state.apply(state.legal_actions()[0])
