"""What a bot reads of a card is computed once per card, and the bot's gRPC server starts on
the C core's older poller unless its environment says otherwise (bench/README.md)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from arena_sdk import Card
from arena_sdk.cards import ALL_CARDS, CARDS_BY_TRUMP, RANKS, SUITS


@pytest.mark.parametrize("trump", [None, *SUITS])
def test_every_shared_card_carries_its_attributes_as_plain_values(trump: str | None) -> None:
    for name in ALL_CARDS:
        card = CARDS_BY_TRUMP[trump][name]
        kept = vars(card)
        joker = name in ("BB", "LB")
        assert kept["is_joker"] is joker
        assert kept["rank"] == (name if joker else name[0])
        assert kept["suit"] == (None if joker else name[1])
        value = (14 if name == "BB" else 13) if joker else RANKS.index(name[0])
        assert kept["rank_value"] == value


def test_a_card_made_by_hand_answers_the_same() -> None:
    card = Card("QH", is_trump=True)
    assert (card.rank, card.suit, card.rank_value, card.is_joker) == ("Q", "H", 10, False)
    assert Card("LB").rank_value == 13 and Card("LB").suit is None
    assert card == Card.parse("QH", "H") and hash(card) == hash(Card.parse("QH"))


def _experiments_after_import(env: dict[str, str]) -> str:
    code = "import os, arena_sdk; print(os.environ.get('GRPC_EXPERIMENTS'))"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_importing_the_sdk_asks_for_the_older_poller_unless_told_otherwise() -> None:
    env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    assert _experiments_after_import(env) == "-event_engine_listener"
    assert _experiments_after_import({**env, "GRPC_EXPERIMENTS": "mine"}) == "mine"
