"""A determinization Monte Carlo bot.

For every decision with more than one option it

1. deals the cards it cannot see to the other seats, many times over, each time consistent
   with what is public: how many cards each seat still holds, the suits a seat has shown it
   lacks, what the Blooper leads and trump leads reveal, the joker swap;
2. for each legal option, plays the rest of the deal out on that deal with a fast greedy
   policy for all four seats, under the exact rules (following suit, the trump-lead
   restriction, Blooper leads);
3. scores the finished deal for both teams with the real scoring, and picks the option with
   the best mean of (our points - their points).

Bids work the same way: the later bidders' bids are filled in from their dealt hands with a
simple trick-count model, and every legal bid is scored on the same playouts (a bid only
changes who leads and who may lead trump, so most bids share one playout).

The simulator works on plain ints: a card is ``suit * 13 + rank`` (suits S, H, D, C; rank 0
is the two, 12 the ace), ``BB`` is 52 and ``LB`` 53, and a hand is a bitmask of cards.

The number of samples per decision is fixed (scaled to the options and the cards left), so
a game plays the same way every time for the same seed; a time cap stops a search early only
on a machine far slower than expected.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from arena_sdk import Bid, Bot, Card, Observation, run

SUITS = "SHDC"
RANKS = "23456789TJQKA"
BB = 52
LB = 53
JOKERS = (1 << BB) | (1 << LB)
FULL_DECK = (1 << 54) - 1
SUIT_MASKS = tuple(8191 << (13 * s) for s in range(4))
NAMES = [r + s for s in SUITS for r in RANKS] + ["BB", "LB"]
INDEX = {name: i for i, name in enumerate(NAMES)}

# Lowest and highest rank in a 13-bit suit pattern (-1 for none).
LOW_RANK = [(m & -m).bit_length() - 1 for m in range(8192)]
HIGH_RANK = [m.bit_length() - 1 for m in range(8192)]

# How much simulation a decision gets, in simulated card plays (samples x options x plays
# left), and the bounds on the number of sampled deals.
PLAY_BUDGET = 60_000
BID_BUDGET = 40_000
MIN_SAMPLES = 30
MAX_SAMPLES = 600
# Fraction of the per-move time after which a search stops early (a safety net only).
TIME_CAP = 0.6


def bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def team_score(number: int, level: int, tricks: int, hand_size: int) -> int:
    """One team's points for a deal: board at ``level`` (0: none) or numeric ``number``."""
    if level:
        value = 10 * hand_size * level
        return value if tricks == hand_size else -value
    if tricks >= number:
        return 5 * number + (tricks - number)
    return -5 * number


class Simulator:
    """The rules of play for one deal's trump, and a greedy policy to play a deal out."""

    def __init__(self, trump: int | None) -> None:
        self.trump = trump
        self.tmask = 0 if trump is None else SUIT_MASKS[trump] | JOKERS
        self.tplain = 0 if trump is None else SUIT_MASKS[trump]
        # strength[c]: how a trump ranks in a trick (a plain card's strength depends on the lead)
        self.strength = [100 + c % 13 for c in range(52)] + [114, 113]
        # above[c]: the cards that beat c whatever was led (higher of its suit, or any trump;
        # for a trump, the higher trumps).
        above = []
        for c in range(54):
            if c == BB:
                above.append(0)
            elif c == LB:
                above.append(1 << BB)
            elif self.tmask >> c & 1:
                above.append((self.tplain & ~((2 << c) - 1)) | JOKERS)
            else:
                above.append((SUIT_MASKS[c // 13] & ~((2 << c) - 1)) | self.tmask)
        self.beats = above
        # same_suit_above[c]: the higher cards of c's own suit (trump order for trumps).
        self.same_suit_above = [
            above[c] if self.tmask >> c & 1 else above[c] & ~self.tmask for c in range(54)
        ]

    # ------------------------------------------------------------------ rules

    def is_trump(self, card: int) -> bool:
        return bool(self.tmask >> card & 1)

    def lead_mask(self, hand: int, broken: bool, claimed_board: bool) -> int:
        """What a leader may lead: no trump unless broken, board claimed, or only trumps."""
        trumps = hand & self.tmask
        if trumps and trumps != hand and not broken and not claimed_board:
            return hand & ~trumps
        return hand

    def power(self, card: int, led_mask: int) -> int:
        """How strongly ``card`` contends for a trick whose led suit is ``led_mask``."""
        if self.tmask >> card & 1:
            return self.strength[card]
        return card % 13 if led_mask >> card & 1 else -1

    def follow_mask(self, hand: int, led: int) -> int:
        """What a follower may play to a trick led with ``led``."""
        tmask = self.tmask
        if led >= BB:  # a Blooper lead (only in a trump deal)
            trumps = hand & tmask
            if not trumps:
                return hand
            if led == BB:  # the highest trump
                if hand >> LB & 1:
                    return 1 << LB
                return 1 << (trumps.bit_length() - 1)
            plain = trumps & ~JOKERS  # LB led: the lowest trump, BB if it is the only one
            return plain & -plain if plain else 1 << BB
        led_mask = tmask if tmask >> led & 1 else SUIT_MASKS[led // 13]
        return hand & led_mask or hand

    # ------------------------------------------------------------------ policy

    def cheapest(self, mask: int) -> int:
        """The card to throw away: the lowest side card, else the lowest trump."""
        plain = mask & ~self.tmask
        if plain:
            if not plain & (plain - 1):
                return plain.bit_length() - 1
            best, best_rank = -1, 99
            for s in range(4):
                m = plain >> (13 * s) & 8191
                if m:
                    r = LOW_RANK[m]
                    if r < best_rank:
                        best, best_rank = 13 * s + r, r
            return best
        low = mask & ~JOKERS
        if low:
            return (low & -low).bit_length() - 1
        return LB if mask >> LB & 1 else BB

    def cheapest_safe(self, winners: int, threat: int) -> int:
        """The cheapest of ``winners`` (all of the led suit, or all trumps) that no card of
        ``threat`` beats; -1 if there is none."""
        beats = self.beats
        plain = winners & ~JOKERS
        while plain:
            low = plain & -plain
            card = low.bit_length() - 1
            if not threat & beats[card]:
                return card
            plain ^= low
        if winners >> LB & 1 and not threat & beats[LB]:
            return LB
        if winners >> BB & 1:
            return BB
        return -1

    def choose_lead(self, seat: int, hands: list[int], legal: int) -> int:
        """Cash a sure winner (a top trump first while opponents hold trumps), else go low."""
        tmask = self.tmask
        opponents = hands[(seat + 1) & 3] | hands[(seat + 3) & 3]
        others = opponents | hands[seat ^ 2]
        lead_trumps = legal & tmask
        if lead_trumps and opponents & tmask:
            if lead_trumps >> BB & 1:
                top = BB
            elif lead_trumps >> LB & 1:
                top = LB
            else:
                top = lead_trumps.bit_length() - 1
            if not others & self.beats[top]:
                return top
        left, right = hands[(seat + 1) & 3], hands[(seat + 3) & 3]
        partner = hands[seat ^ 2]
        to_partner = -1  # a low card in a suit that partner's top card takes
        for s in range(4):
            suit = SUIT_MASKS[s]
            mine = legal & suit & ~tmask
            if not mine:
                continue
            if (not left & suit and left & tmask) or (not right & suit and right & tmask):
                continue  # an opponent would ruff it
            top = 13 * s + HIGH_RANK[mine >> (13 * s) & 8191]
            if not others & self.same_suit_above[top]:
                return top
            theirs = partner & suit
            if to_partner < 0 and theirs:
                partner_top = theirs.bit_length() - 1
                if not opponents & self.same_suit_above[partner_top]:
                    to_partner = 13 * s + LOW_RANK[mine >> (13 * s) & 8191]
        if to_partner >= 0:
            return to_partner
        return self.cheapest(legal)

    def playout(
        self,
        hands: list[int],
        leader: int,
        trick: list[int],
        broken: bool,
        board_seats: Sequence[bool],
        won: list[int],
    ) -> None:
        """Play the deal to its end from the given position; ``won`` (per team) is updated.

        ``hands`` (per seat) and ``trick`` (the cards of the trick in play, from ``leader``)
        are consumed.
        """
        tmask = self.tmask
        strength = self.strength
        beats = self.beats
        cheapest = self.cheapest
        cheapest_safe = self.cheapest_safe
        follow_mask = self.follow_mask
        lead_mask = self.lead_mask
        choose_lead = self.choose_lead
        n_played = len(trick)
        best_card = best_seat = best_strength = -1
        led_mask = 0
        if n_played:
            led = trick[0]
            led_mask = tmask if tmask >> led & 1 else SUIT_MASKS[led // 13]
            for i, c in enumerate(trick):
                s = self.power(c, led_mask)
                if s > best_strength:
                    best_card, best_seat, best_strength = c, (leader + i) & 3, s
        seat = (leader + n_played) & 3
        while True:
            if n_played == 4:
                won[best_seat & 1] += 1
                seat = best_seat
                n_played = 0
                trick = []
                best_strength = -1
            hand = hands[seat]
            if not hand:
                return
            if n_played == 0:
                legal = lead_mask(hand, broken, board_seats[seat])
                if legal & (legal - 1):
                    card = choose_lead(seat, hands, legal)
                else:
                    card = legal.bit_length() - 1
                led_mask = tmask if tmask >> card & 1 else SUIT_MASKS[card // 13]
                best_card, best_seat = card, seat
                best_strength = strength[card] if tmask >> card & 1 else card % 13
                trick.append(card)
            else:
                led = trick[0]
                legal = (hand if led < BB else follow_mask(hand, led)) & led_mask or hand
                if not legal & (legal - 1):
                    card = legal.bit_length() - 1
                else:
                    # The next seat is an opponent unless we play last: what could it play?
                    threat = 0
                    if n_played < 3:
                        nxt = hands[(seat + 1) & 3]
                        threat = (nxt if led < BB else follow_mask(nxt, led)) & led_mask or nxt
                    card = -1
                    if best_seat != seat ^ 2 or threat & beats[best_card]:
                        # Win if the next seat cannot take it back, as cheaply as possible.
                        winners = legal & beats[best_card]
                        if winners:
                            card = cheapest_safe(winners, threat)
                    if card < 0:  # partner has it, or we cannot keep it: play low
                        if legal & ~led_mask or legal & JOKERS:
                            card = cheapest(legal)
                        else:
                            card = (legal & -legal).bit_length() - 1
                # self.power(card, led_mask), inline: this is the hottest loop of the bot
                if tmask >> card & 1:
                    s = strength[card]
                else:
                    s = card % 13 if led_mask >> card & 1 else -1
                if s > best_strength:
                    best_card, best_seat, best_strength = card, seat, s
                trick.append(card)
            if tmask >> card & 1:
                broken = True
            hands[seat] = hand ^ (1 << card)
            n_played += 1
            seat = (seat + 1) & 3

    # ------------------------------------------------------------------ bidding model

    def estimate_tricks(self, hand: int, hand_size: int, unseen: int) -> float:
        """Roughly how many tricks a hand takes (the heuristic bot's count, on ints).

        ``unseen`` is what the holder cannot see: the cards in other hands and the stock.
        """
        tmask = self.tmask
        n_unseen = unseen.bit_count()
        if not n_unseen:
            return float(hand.bit_count())
        share = min(1.0, hand_size / n_unseen)
        in_opponents = min(1.0, 2 * share)
        trumps_out = (unseen & tmask).bit_count()
        opp_has_trump = 1.0 - (1.0 - share) ** trumps_out if trumps_out else 0.0
        my_trumps = hand & tmask
        n_trumps = my_trumps.bit_count()
        total = 0.0
        for c in bits(hand):
            above = (unseen & self.same_suit_above[c]).bit_count()
            p = (1.0 - in_opponents) ** above
            if tmask >> c & 1:
                if n_trumps >= 4 and (my_trumps & self.beats[c]).bit_count() >= 2:
                    p = max(p, 0.5)
            else:
                suit = SUIT_MASKS[c // 13]
                if c % 13 == 11 and above == 1 and (hand & suit).bit_count() >= 2:
                    p = max(p, 0.5)
                if tmask:
                    suit_out = (unseen & suit).bit_count()
                    void = (1.0 - share) ** suit_out if suit_out else 1.0
                    rounds = (hand & self.same_suit_above[c]).bit_count()
                    void = min(1.0, void * (1 + rounds))
                    p *= (1.0 - void * opp_has_trump) ** 2
            total += p
        return total


# ---------------------------------------------------------------------- bids on ints

# A bid as an int: the number (0 for pass), or BOARD_VALUE.
BOARD_VALUE = -1
# How loosely a bid is taken to reflect the bidder's count of tricks (in tricks).
BID_SIGMA = 1.0


def bid_value(bid: Bid) -> int:
    return BOARD_VALUE if bid.kind == "board" else bid.tricks


def model_bid(expected: float, hand_size: int) -> int:
    """The bid the trick-count model makes for a hand expected to take ``expected`` tricks."""
    if expected >= hand_size - 0.3:
        return BOARD_VALUE
    return min(hand_size - 1, int(expected + 0.25))


def bid_likelihood(value: int, expected: float, hand_size: int) -> float:
    """How well a bid fits a hand the model expects to take ``expected`` tricks (0..1]."""
    if value == BOARD_VALUE:
        miss = max(0.0, hand_size - 0.3 - expected)
    elif value == 0:
        miss = max(0.0, expected - 0.75)
    else:
        miss = value + 0.25 - expected
    return math.exp(-miss * miss / (2 * BID_SIGMA * BID_SIGMA))


def first_leader(bids: Sequence[tuple[int, int]]) -> int:
    """The first leader: the last board claimer, else the earliest highest number.

    ``bids`` are (seat, value) in bidding order.
    """
    leader, best = bids[0][0], -1
    for seat, value in bids:
        if value == BOARD_VALUE:
            best, leader = 99, seat
        elif value > best:
            best, leader = value, seat
    return leader


def settle(bids: Sequence[tuple[int, int]]) -> tuple[list[bool], list[int], list[int]]:
    """From (seat, value) bids in order: who claimed board, and per team its board level
    (0: none) and the sum of its numbers."""
    board_seats = [False] * 4
    levels = [0, 0]
    numbers = [0, 0]
    claims = 0
    for seat, value in bids:
        if value == BOARD_VALUE:
            claims += 1
            board_seats[seat] = True
            levels[seat & 1] = max(levels[seat & 1], claims)
        else:
            numbers[seat & 1] += value
    return board_seats, levels, numbers


# ---------------------------------------------------------------------- sampling


class Knowledge:
    """What one seat knows of a deal, on ints: the basis for sampling the hidden hands."""

    def __init__(self, obs: Observation) -> None:
        self.me = obs.seat
        self.n = obs.hand_size
        self.trump = None if obs.trump is None else SUITS.index(obs.trump)
        sim = self.sim = Simulator(self.trump)
        self.hand = 0
        for card in obs.hand:
            self.hand |= 1 << INDEX[card.name]
        self.pool = sorted(INDEX[c.name] for c in obs.unseen)
        unseen = 0
        for c in self.pool:
            unseen |= 1 << c
        self.played = [0, 0, 0, 0]  # per seat, the cards it played this deal
        forbidden = [0, 0, 0, 0]  # per seat, cards it cannot hold
        self.board_seats = [False] * 4
        for b in obs.bids:
            if b.board_level > 0:
                self.board_seats[b.seat] = True
        broken = False  # trumps broken before the trick being looked at
        for trick in (*obs.tricks, obs.current_trick):
            if not trick.plays:
                continue
            led = INDEX[trick.plays[0].card.name]
            if sim.is_trump(led) and not broken and not self.board_seats[trick.leader]:
                # A trump lead before trumps were broken: the leader held nothing else.
                forbidden[trick.leader] |= FULL_DECK & ~sim.tmask
            for i, p in enumerate(trick.plays):
                c = INDEX[p.card.name]
                self.played[p.seat] |= 1 << c
                if i and led >= BB and sim.is_trump(c):
                    # Blooper leads force the highest (BB) or the lowest (LB) trump.
                    if led == BB:
                        forbidden[p.seat] |= sim.beats[c]
                    elif c == BB:
                        forbidden[p.seat] |= sim.tmask
                    else:
                        forbidden[p.seat] |= sim.tplain & ((1 << c) - 1)
                if sim.is_trump(c):
                    broken = True
        for seat, suits in obs.voids.items():
            for suit in suits:
                s = SUITS.index(suit)
                forbidden[seat] |= sim.tmask if s == self.trump else SUIT_MASKS[s]
        played_all = 0
        for m in self.played:
            played_all |= m
        # Out of play for everyone: the turned card, a discarded joker, a no-trump deal's
        # jokers (what this seat has not seen, holds, or saw played).
        self.out_of_play = FULL_DECK & ~(unseen | self.hand | played_all)
        # (seat, cards it still holds, forbidden cards), the most constrained seat first
        self.needs = sorted(
            (
                (s, self.n - self.played[s].bit_count(), forbidden[s])
                for s in range(4)
                if s != self.me
            ),
            key=lambda need: (unseen & ~need[2]).bit_count(),
        )
        # Bids to weigh samples by: (seat, value), skipping a bid made after a partner's
        # board claim (it says nothing about the hand).
        self.bids: list[tuple[int, int]] = []
        claimed = [False] * 4
        for b in obs.bids:
            if b.seat != self.me and not claimed[b.seat ^ 2]:
                self.bids.append((b.seat, bid_value(b.bid)))
            if b.board_level > 0:
                claimed[b.seat] = True

    def deal(self, rng: random.Random, hands: list[int]) -> float:
        """Deal the unseen cards into ``hands`` (shuffled with ``rng``); return the weight
        of the deal: how well the hands fit the bids made."""
        for attempt in range(4):
            if self._try_deal(rng, hands, strict=attempt < 3):
                break
        hands[self.me] = self.hand
        weight = 1.0
        for seat, value in self.bids:
            dealt = hands[seat] | self.played[seat]
            unseen = FULL_DECK & ~dealt & ~self.out_of_play
            expected = self.sim.estimate_tricks(dealt, self.n, unseen)
            weight *= bid_likelihood(value, expected, self.n)
        return weight

    def _try_deal(self, rng: random.Random, hands: list[int], strict: bool) -> bool:
        """Fill the most constrained seat first from a shuffled pool. A seat that cannot get
        enough cards it may hold fails the attempt, or (not ``strict``) takes any cards."""
        pool = list(self.pool)
        rng.shuffle(pool)
        for seat, count, forbidden in self.needs:
            if not forbidden:
                taken, pool = pool[:count], pool[count:]
            else:
                taken, left = [], []
                for c in pool:
                    if len(taken) < count and not forbidden >> c & 1:
                        taken.append(c)
                    else:
                        left.append(c)
                if len(taken) < count:
                    if strict:
                        return False
                    extra = count - len(taken)
                    taken += left[:extra]
                    left = left[extra:]
                pool = left
            mask = 0
            for c in taken:
                mask |= 1 << c
            hands[seat] = mask
        return True


class MonteCarloBot(Bot):
    name = "montecarlo"

    def _deadline(self) -> float:
        return time.perf_counter() + TIME_CAP * self.limits.move_ms / 1000

    @staticmethod
    def _samples(budget: int, per_sample: int) -> int:
        return max(MIN_SAMPLES, min(MAX_SAMPLES, budget // max(1, per_sample)))

    # ------------------------------------------------------------------ play

    def play(self, obs: Observation) -> Card:
        legal = obs.legal_plays
        if len(legal) == 1:
            return legal[0]
        deadline = self._deadline()
        know = Knowledge(obs)
        sim, me, n = know.sim, know.me, know.n
        trick_cards = [INDEX[p.card.name] for p in obs.current_trick.plays]
        leader = obs.current_trick.leader
        options = sorted(INDEX[c.name] for c in legal)
        base_won = [obs.team_tricks(0), obs.team_tricks(1)]
        contracts = [obs.contract(0), obs.contract(1)]
        plays_left = know.hand.bit_count() + sum(count for _, count, _ in know.needs)
        samples = self._samples(PLAY_BUDGET, len(options) * plays_left)

        us = obs.team
        totals = [0.0] * len(options)
        hands = [0, 0, 0, 0]
        for _ in range(samples):
            weight = know.deal(self.rng, hands)
            if not weight:
                continue
            for i, card in enumerate(options):
                sim_hands = list(hands)
                sim_hands[me] ^= 1 << card
                won = list(base_won)
                broken = obs.trumps_broken or sim.is_trump(card)
                sim.playout(sim_hands, leader, [*trick_cards, card], broken, know.board_seats, won)
                points = [
                    team_score(contracts[t].tricks, contracts[t].board_level, won[t], n)
                    for t in (0, 1)
                ]
                totals[i] += weight * (points[us] - points[1 - us])
            if time.perf_counter() > deadline:
                break
        best = max(range(len(options)), key=lambda i: (totals[i], -i))
        return Card.parse(NAMES[options[best]], obs.trump)

    # ------------------------------------------------------------------ bidding

    def bid(self, obs: Observation) -> Bid:
        legal = obs.legal_bids
        if len(legal) == 1:
            return legal[0]
        deadline = self._deadline()
        know = Knowledge(obs)
        sim, me, n = know.sim, know.me, know.n
        earlier = [(b.seat, bid_value(b.bid)) for b in obs.bids]
        later_seats = [(me + k) % 4 for k in range(1, 4 - len(earlier))]
        options = [bid_value(bid) for bid in legal]
        us = obs.team

        samples = self._samples(BID_BUDGET, 2 * 4 * n)
        totals = [0.0] * len(options)
        hands = [0, 0, 0, 0]
        for _ in range(samples):
            weight = know.deal(self.rng, hands)
            if not weight:
                continue
            # The later bidders bid what the trick-count model says (pass after a partner's
            # board claim); a later claim of board does not depend on our bid.
            later = []
            claimed = [v == BOARD_VALUE for _, v in earlier]
            board_before = {seat for (seat, _), c in zip(earlier, claimed, strict=True) if c}
            for seat in later_seats:
                if seat ^ 2 in board_before:
                    later.append((seat, 0))
                    continue
                unseen = FULL_DECK & ~hands[seat] & ~know.out_of_play
                value = model_bid(sim.estimate_tricks(hands[seat], n, unseen), n)
                later.append((seat, value))
                if value == BOARD_VALUE:
                    board_before.add(seat)
            # What the other bids settle whatever ours is (we pass here).
            passing = [*earlier, (me, 0), *later]
            base_seats, base_levels, base_numbers = settle(passing)
            base_leader = first_leader(passing)
            # The highest number before and after us, and who bid it first.
            top_before = max(((v, -k) for k, (_, v) in enumerate(earlier)), default=(-1, 0))
            top_after = max(((v, -k) for k, (_, v) in enumerate(later)), default=(-1, 0))
            everyone_passed = top_before[0] <= 0 and top_after[0] <= 0 and not any(base_seats)
            outcome: dict[tuple[int, bool], list[int]] = {}  # (leader, we claim) -> won
            for i, value in enumerate(options):
                if value == BOARD_VALUE:
                    bids = [*earlier, (me, value), *later]
                    board_seats, levels, numbers = settle(bids)
                    leader = first_leader(bids)
                else:
                    if value == 0 and everyone_passed:
                        continue  # all pass: the deal is redealt, worth nothing to either team
                    board_seats, levels = base_seats, base_levels
                    numbers = list(base_numbers)
                    numbers[us] += value
                    leader = base_leader
                    if not any(base_seats):
                        # The highest number leads; on a tie, the earliest bidder.
                        if top_before[0] >= max(value, top_after[0]):
                            leader = earlier[-top_before[1]][0]
                        elif value >= top_after[0]:
                            leader = me
                        else:
                            leader = later[-top_after[1]][0]
                key = (leader, board_seats[me])
                won = outcome.get(key)
                if won is None:
                    won = [0, 0]
                    sim.playout(list(hands), leader, [], False, board_seats, won)
                    outcome[key] = won
                points = [team_score(numbers[t], levels[t], won[t], n) for t in (0, 1)]
                totals[i] += weight * (points[us] - points[1 - us])
            if time.perf_counter() > deadline:
                break
        best = max(range(len(options)), key=lambda i: (totals[i], -i))
        return legal[best]


if __name__ == "__main__":
    run(MonteCarloBot())
