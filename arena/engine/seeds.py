"""Everything a game's seed decides, each derived from it one way (SHA-256).

A game's seed is its secret until the game is over: the first dealer, each dealing's
shuffle and each bot's own seed come from it through a hash, so none of them can be turned
back into the seed or into one another. A bot sees its own seed and, by the end of a deal,
every card of that deal; neither tells it anything about the next dealing, which is shuffled
from a seed of its own (no generator state carries over from one dealing to the next).

Replays of version 1 dealt every dealing from one ``random.Random(seed)`` in sequence
(``sequential_deals``), and gave a bot ``seed * 4 + seat``: a bot could deal the whole game
itself. They are still verified that way.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence

from .cards import DECK_SIZE
from .rules import SEATS

# (dealer, hand_size) -> (four hands by seat, stock top card first)
DealSource = Callable[[int, int], tuple[Sequence[Sequence[int]], Sequence[int]]]

BOT_SEED_BITS = 64  # the protocol's uint64


def _digest(purpose: str, seed: int, *more: int) -> bytes:
    # Decimal text, not fixed-width bytes: any int >= 0 is a seed (`arena play --seed N`).
    text = ":".join(str(n) for n in (seed, *more))
    return hashlib.sha256(f"backalley/{purpose}/{text}".encode()).digest()


def first_dealer(seed: int) -> int:
    """The seat that deals first."""
    return _digest("first-dealer", seed)[0] % SEATS  # 256 % 4 == 0: no bias


def dealing_seed(seed: int, dealing: int) -> int:
    """The seed of a game's ``dealing``-th shuffle (1-based, redeals counted)."""
    return int.from_bytes(_digest("dealing", seed, dealing), "big")


def bot_seed(seed: int, seat: int) -> int:
    """What seeds a bot's ``self.rng``: reproducible from the game's seed and the seat, and
    no way back to either (a bot that knew the game's seed could deal the game itself)."""
    return int.from_bytes(_digest("bot", seed, seat)[: BOT_SEED_BITS // 8], "big")


def shuffled_deal(
    rng: random.Random, dealer: int, hand_size: int
) -> tuple[list[list[int]], list[int]]:
    """Shuffle the 54 cards and deal them one at a time clockwise from the dealer's left.

    The shuffle sorts the cards by a random float each: as uniform as ``rng.shuffle`` (ties
    have odds of about 2**-42 per deal) and several times faster, since ``rng.random`` is one
    C call where ``shuffle`` runs a Python loop.
    """
    random_float = rng.random
    keys = [random_float() for _ in range(DECK_SIZE)]
    deck = sorted(range(DECK_SIZE), key=keys.__getitem__)
    hands: list[list[int]] = [[], [], [], []]
    for i in range(hand_size * SEATS):
        hands[(dealer + 1 + i) % SEATS].append(deck[i])
    return hands, deck[hand_size * SEATS :]


def seeded_deals(seed: int) -> DealSource:
    """The game's dealings in order, each shuffled by a generator of its own."""
    dealings = 0

    def deal(dealer: int, hand_size: int) -> tuple[list[list[int]], list[int]]:
        nonlocal dealings
        dealings += 1
        return shuffled_deal(random.Random(dealing_seed(seed, dealings)), dealer, hand_size)

    return deal


def sequential_deals(rng: random.Random) -> DealSource:
    """Version 1's dealings: one generator for the whole game, after the first dealer's draw."""

    def deal(dealer: int, hand_size: int) -> tuple[list[list[int]], list[int]]:
        return shuffled_deal(rng, dealer, hand_size)

    return deal


def version1_dealing(seed: int) -> tuple[int, DealSource]:
    """Version 1's first dealer and dealings: both from one ``random.Random(seed)``."""
    rng = random.Random(seed)
    return rng.randrange(SEATS), sequential_deals(rng)
