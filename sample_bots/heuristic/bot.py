"""A rule-based bot: bid the tricks your cards are likely to take, then play to make it.

Bidding counts likely winners. Each card gets the chance that it takes a trick: no
opponent holds a higher card of its suit (for trumps: of the trump order BB > LB > A … 2)
and, for a side card, nobody can ruff it. How likely that is depends on the hand size, since
in small deals most of the deck stays in the stock. Kings with length and long trump suits
get a bonus. The bot bids the rounded-down sum and claims board only when every card is
very likely a winner.

In play it keeps the team's contract in view: while the team still needs tricks it wins as
cheaply as it can (and plays low when partner is already winning the trick); once the
contract is made it ducks. When leading, it cashes a sure winner if the team needs tricks,
otherwise it leads low. With a board contract it tries to win every trick, and against an
opponents' board it tries to take the one trick that beats it.
"""

from __future__ import annotations

import math

from arena_sdk import Bid, Bot, Card, Observation, run


def trump_order(card: Card) -> int:
    """Rank among trumps: 2 … A are 0 … 12, LB is 13, BB is 14 (``Card.rank_value``)."""
    return card.rank_value


def higher_unseen(card: Card, unseen: frozenset[Card]) -> int:
    """How many cards that would beat ``card`` in its own suit are still unseen."""
    if card.is_trump:
        return sum(1 for c in unseen if c.is_trump and trump_order(c) > trump_order(card))
    return sum(1 for c in unseen if c.suit == card.suit and c.rank_value > card.rank_value)


def win_chances(obs: Observation) -> list[float]:
    """For each card of the hand, a rough chance that it takes a trick."""
    n = obs.hand_size
    unseen = obs.unseen
    if not unseen:
        return [1.0] * len(obs.hand)
    # The chance that one given unseen card sits in one given other hand.
    share = min(1.0, n / len(unseen))
    in_opponents = min(1.0, 2 * share)
    trumps_out = sum(1 for c in unseen if c.is_trump)
    # The chance that one opponent holds a trump at all.
    opp_has_trump = 1.0 - (1.0 - share) ** trumps_out if trumps_out else 0.0
    my_trumps = [c for c in obs.hand if c.is_trump]
    chances = []
    for card in obs.hand:
        above = higher_unseen(card, unseen)
        p = (1.0 - in_opponents) ** above
        if card.is_trump:
            # Long trumps win tricks by ruffing and by outlasting the opponents' trumps.
            rank_in_hand = sum(1 for c in my_trumps if trump_order(c) > trump_order(card))
            if len(my_trumps) >= 4 and rank_in_hand >= 2:
                p = max(p, 0.5)
        else:
            length = sum(1 for c in obs.hand if c.suit == card.suit)
            if card.rank == "K" and length >= 2 and above == 1:
                p = max(p, 0.5)  # a king with a guard usually outlives the ace
            if obs.trump is not None:
                # Ruff risk: an opponent who is out of this suit and has a trump.
                suit_out = sum(1 for c in unseen if c.suit == card.suit)
                void = (1.0 - share) ** suit_out if suit_out else 1.0
                # Later rounds of the suit are more likely to be ruffed.
                rounds = sum(
                    1 for c in obs.hand if c.suit == card.suit and c.rank_value > card.rank_value
                )
                void = min(1.0, void * (1 + rounds))
                p *= (1.0 - void * opp_has_trump) ** 2
        chances.append(p)
    return chances


def suggest_bid(obs: Observation) -> Bid:
    n = obs.hand_size
    partner_board = obs.contract(obs.team).is_board
    if partner_board:
        return Bid.PASS  # partner's board is the team's contract; a number would be ignored
    chances = win_chances(obs)
    expected = sum(chances)
    overwhelming = min(chances) >= (0.8 if n == 1 else 0.9) and expected >= n - 0.3
    if overwhelming and Bid.BOARD in obs.legal_bids:
        return Bid.BOARD
    number = min(n - 1, math.floor(expected + 0.25))
    bid = Bid.number_of(number) if number >= 1 else Bid.PASS
    return bid if bid in obs.legal_bids else Bid.PASS


def is_master(card: Card, unseen: frozenset[Card]) -> bool:
    """No unseen card beats it in its suit (trump order for trumps)."""
    return higher_unseen(card, unseen) == 0


def throw_key(card: Card) -> tuple[bool, int]:
    """Cheapest first: side cards before trumps, low ranks before high."""
    return card.is_trump, card.rank_value


class HeuristicBot(Bot):
    name = "heuristic"

    def bid(self, obs: Observation) -> Bid:
        # Notes (shown to the bot's owner beside the step in the replay): why, in words.
        self.note(f"expects {sum(win_chances(obs)):.1f} tricks")
        return suggest_bid(obs)

    def play(self, obs: Observation) -> Card:
        legal = obs.legal_plays
        if len(legal) == 1:
            return legal[0]
        ours = obs.contract(obs.team)
        theirs = obs.contract(1 - obs.team)
        taken = obs.team_tricks(obs.team)
        need = ours.is_board or taken < ours.tricks
        if theirs.is_board and taken == 0:
            need = True  # one trick beats their board
        lowest = min(legal, key=throw_key)

        winning = obs.winning
        if winning is None:  # we lead
            if need:
                masters = [c for c in legal if is_master(c, obs.unseen)]
                if masters:
                    # A top trump first (it draws the opponents' trumps), else a side winner.
                    best = max(masters, key=lambda c: (c.is_trump, c.rank_value))
                    self.note(f"needs tricks: cashing {best}, a sure winner")
                    return best
            self.note("needs tricks, no sure winner: leading low" if need else "made: leading low")
            return lowest

        to_beat = obs.power(winning.card)
        beaters = [c for c in legal if obs.power(c) > to_beat]
        if need:
            if winning.seat == obs.partner or not beaters:
                return lowest  # partner has it covered, or we cannot win: play low
            return min(beaters, key=obs.power)  # win as cheaply as possible
        # The contract is made: duck with the lowest card that does not win.
        duckers = [c for c in legal if obs.power(c) <= to_beat]
        return min(duckers, key=throw_key) if duckers else lowest


if __name__ == "__main__":
    run(HeuristicBot())
