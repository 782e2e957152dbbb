"""A bot's notes on its decisions: the SDK sends them with its answers, the referee keeps
them in the replay under the seat and the step, capped in size and count, inert, and counts
what it cut; a bot that floods them still plays its game to the end.

Each bot is served over real gRPC on a Unix socket from a thread of this process (the SDK's
own servicer, or raw handlers for the hostile one) and refereed through the real
``RemotePlayer``; the other seats are players in this process, which make no notes.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from arena_sdk import Bot
from arena_sdk.bot import NOTE_MAX_CHARS as SDK_NOTE_MAX_CHARS
from arena_sdk.bot import NOTES_PER_GAME as SDK_NOTES_PER_GAME
from arena_sdk.server import _SERVICE, _method_handlers, _Servicer
from backalley.v1 import player_pb2 as pb

from arena.bots.limits import Limits
from arena.engine import Observation, Rules
from arena.engine.events import Event
from arena.engine.replay import Replay, build_replay, verify_replay
from arena.play.tables import CHANNEL_OPTIONS
from arena.referee import RemotePlayer, run_game
from arena.referee.notes import NOTE_MAX_CHARS, NOTES_PER_GAME


class Quiet:
    """An in-process player that plays a random legal action and notes nothing."""

    def __init__(self) -> None:
        self.rng = random.Random()

    def hello(self, bot_seed: int, rules: Rules) -> None:
        self.rng.seed(bot_seed)

    def choose(self, obs: Observation) -> int:
        return self.rng.choice(obs.legal_actions)

    def notify(self, event: Event) -> None:
        pass


@dataclass
class Served:
    """The served bot as the referee's player (``arena.play.tables.SeatedBot``, no sandbox)."""

    remote: RemotePlayer

    def hello(self, bot_seed: int, rules: Rules) -> None:
        self.remote.hello(bot_seed, rules, time.monotonic() + 10)

    def choose(self, obs: Observation) -> int:
        return self.remote.choose(obs)

    def notify(self, event: Event) -> None:
        self.remote.notify(event)

    def take_note(self) -> str | None:
        return self.remote.take_note()


Handlers = dict[str, "grpc.RpcMethodHandler[Any, Any]"]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[[Handlers], Served]]:
    servers: list[grpc.Server] = []
    channels: list[grpc.Channel] = []

    def start(handlers: Handlers) -> Served:
        path = tmp_path / f"bot{len(servers)}.sock"
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
        server.add_registered_method_handlers(_SERVICE, handlers)
        server.add_insecure_port(f"unix:{path}")
        server.start()
        servers.append(server)
        channel = grpc.insecure_channel(f"unix:{path}", CHANNEL_OPTIONS)
        channels.append(channel)
        return Served(RemotePlayer(0, channel, Limits(), "noter"))

    yield start
    for channel in channels:
        channel.close()
    for server in servers:
        server.stop(grace=None)


def play(seat0: Served, seed: int = 11) -> Replay:
    outcome = run_game([seat0, Quiet(), Quiet(), Quiet()], seed)
    replay = build_replay(
        outcome.state, ["noter", "q", "q", "q"], forfeit=outcome.forfeit,
        notes=outcome.notes, notes_cut=[seat0.remote.notes.cut(), None, None, None],
    )  # fmt: skip
    verify_replay(Replay.from_dict(replay.to_dict()).to_dict())  # it reads back and verifies
    return replay


def notes_in(replay: Replay) -> list[tuple[int, str | None]]:
    """Every decision's (seat, note) in game order, bids then plays of each dealing."""
    found: list[tuple[int, str | None]] = []
    for dealing in replay.deals:
        found += [(b.seat, b.note) for b in dealing.bids]
        for trick in dealing.tricks:
            notes = trick.notes or (None,) * len(trick.plays)
            found += [(seat, note) for (seat, _), note in zip(trick.plays, notes, strict=True)]
    return found


class Noter(Bot):
    """Notes every decision: what it chose, with an escape and a long tail now and then."""

    def bid(self, obs: Any) -> Any:
        self.note(f"deal {obs.deal_number}: bid")
        self.note("\x1b[2J" if obs.deal_number == 1 else "")  # joined with " · "
        return obs.legal_bids[0]

    def play(self, obs: Any) -> Any:
        card = obs.legal_plays[0]
        self.note(f"deal {obs.deal_number}: {card}" + ("!" * 500 if obs.deal_number == 2 else ""))
        return card


def test_the_sdk_s_caps_are_the_referee_s() -> None:
    assert (SDK_NOTE_MAX_CHARS, SDK_NOTES_PER_GAME) == (NOTE_MAX_CHARS, NOTES_PER_GAME)


def test_a_bot_s_notes_are_kept_under_its_seat_and_step_as_inert_text(serve: Any) -> None:
    replay = play(serve(_method_handlers(_Servicer(Noter()))))
    decisions = notes_in(replay)
    mine = [note for seat, note in decisions if seat == 0]
    assert all(note is None for seat, note in decisions if seat != 0)
    # The SDK sends the first NOTES_PER_GAME decisions' notes, cut to NOTE_MAX_CHARS:
    # what it sends the referee keeps, so nothing is counted as cut.
    assert len(mine) > NOTES_PER_GAME
    assert all(n is not None for n in mine[:NOTES_PER_GAME])
    assert mine[NOTES_PER_GAME:] == [None] * (len(mine) - NOTES_PER_GAME)
    assert mine[0] == "deal 1: bid · \\x1b[2J"  # the escape shown, never sent to a terminal
    first = replay.deals[0]
    trick = first.tricks[0]
    at = [seat for seat, _ in trick.plays].index(0)
    assert trick.notes is not None and trick.notes[at] == f"deal 1: {trick.plays[at][1]}"
    long = [n for n in mine if n and n.startswith("deal 2: ") and not n.endswith("bid")]
    assert long and all(len(n) == NOTE_MAX_CHARS for n in long)
    assert replay.players[0].notes_cut is None
    assert "notes_cut" not in replay.to_dict()["players"][0]


def flooding(request: bytes, context: grpc.ServicerContext) -> bytes:
    """Answers the first legal option with a 20,000-character note of control characters
    (40 KB: within the answer's 64 KiB; beyond it any answer is a protocol fault)."""
    asked = pb.DecisionRequest.FromString(request)
    note = "\x07\u202e" * 10_000
    if asked.legal_bids:
        return pb.BidResponse(bid=asked.legal_bids[0], note=note).SerializeToString()
    return pb.PlayResponse(card=asked.legal_plays[0], note=note).SerializeToString()


def test_a_flood_of_notes_is_cut_and_counted_and_the_game_goes_on(serve: Any) -> None:
    def hello(request: bytes, context: grpc.ServicerContext) -> bytes:
        return pb.HelloResponse(protocol_version=pb.PROTOCOL_VERSION_1).SerializeToString()

    same: Callable[[bytes], bytes] = lambda b: b  # noqa: E731
    handlers: Handlers = {
        "Hello": grpc.unary_unary_rpc_method_handler(hello, same, same),
        "Bid": grpc.unary_unary_rpc_method_handler(flooding, same, same),
        "Play": grpc.unary_unary_rpc_method_handler(flooding, same, same),
    }
    replay = play(serve(handlers))
    assert replay.forfeit is None and len([d for d in replay.deals if not d.redeal]) == 25
    mine = [note for seat, note in notes_in(replay) if seat == 0]
    kept = [n for n in mine if n is not None]
    assert len(kept) == NOTES_PER_GAME
    assert set(kept) == {("\\x07\\u202e" * 20)[:NOTE_MAX_CHARS]}
    cut = replay.players[0].notes_cut
    assert cut is not None and (cut.truncated, cut.dropped) == (NOTES_PER_GAME, len(mine) - 100)
    assert replay.to_dict()["players"][0]["notes_cut"] == cut.to_dict()


def test_notes_are_their_owner_s_the_public_replay_has_none(serve: Any) -> None:
    replay = play(serve(_method_handlers(_Servicer(Noter()))))
    assert any(note for _, note in notes_in(replay.notes_only_of([0])))
    for seats in ([], [1, 2, 3]):
        public = json.dumps(replay.notes_only_of(seats).to_dict())
        assert '"note":' not in public and '"notes":' not in public
