"""The referee's fast request encoding parses to exactly the plainly built request."""

from __future__ import annotations

import dataclasses
import random

from backalley.v1 import player_pb2 as pb
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import GameState, observe
from arena.referee.protocol import RequestEncoder, decision_request


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**31), choices=st.integers(0, 2**31))
def test_encoded_requests_equal_decision_request_for_every_seat(seed: int, choices: int) -> None:
    rng = random.Random(choices)
    state = GameState.new(seed)
    encoders = [RequestEncoder() for _ in range(4)]
    while not state.is_terminal():
        for seat in range(4):  # the mover's request and the other seats' views alike
            obs = observe(state, seat)
            time_left = rng.choice((0, rng.randrange(128), rng.randrange(20_000), 2**31))
            encoded = encoders[seat].encode(obs, time_left)
            expected = decision_request(obs, time_left)
            assert pb.DecisionRequest.FromString(encoded) == expected
            assert len(encoded) == expected.ByteSize()  # what the bench's echo sends
        state.apply(rng.choice(state.legal_actions()))


@given(totals=st.tuples(st.integers(-(2**31), 2**31 - 1), st.integers(-(2**31), 2**31 - 1)))
def test_any_int32_totals_are_encoded_as_protobuf_does(totals: tuple[int, int]) -> None:
    obs = dataclasses.replace(observe(GameState.new(1), 0), totals=totals)
    encoded = RequestEncoder().encode(obs, -5)
    expected = decision_request(obs, -5)
    assert pb.DecisionRequest.FromString(encoded) == expected
    assert len(encoded) == expected.ByteSize()
