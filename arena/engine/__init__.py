"""The Back Alley rules engine: pure Python, no I/O.

>>> from arena.engine import GameState
>>> state = GameState.new(seed=1)
>>> while not state.is_terminal():
...     state.apply(state.legal_actions()[0])
>>> len([d for d in state.deals if not d.redeal])
25
"""

from .bids import BOARD, PASS, action_name, bid_name, bid_number, number_bid, parse_bid
from .cards import BB, LB, Card, card_name, cards_of, parse_card
from .observation import Observation, TrickView, observe
from .rules import HAND_SIZES, NUM_DEALS, SEATS, Rules, RulesError, partner_of, team_of
from .scoring import score_team
from .state import DealRecord, GameState, IllegalActionError, JokerSwap, Phase, Trick

__all__ = [
    "BB", "BOARD", "HAND_SIZES", "LB", "NUM_DEALS", "PASS", "SEATS",
    "Card", "DealRecord", "GameState", "IllegalActionError", "JokerSwap", "Observation",
    "Phase", "Rules", "RulesError", "Trick", "TrickView",
    "action_name", "bid_name", "bid_number", "card_name", "cards_of", "number_bid",
    "observe", "parse_bid", "parse_card", "partner_of", "score_team", "team_of",
]  # fmt: skip
