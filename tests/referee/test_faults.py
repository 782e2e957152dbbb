"""A bot that breaks the protocol loses by a typed forfeit that names it and what it sent.

Each bot here is a real submission (a directory with bot.py) run by the real ``arena play``;
the others are the sample ``random`` bot. The replay records the forfeit and still verifies.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from tests.cli.runner import run_arena

# A bot that speaks raw gRPC (no SDK) and answers decisions with whatever ANSWER returns.
RAW_BOT = """
import os
from concurrent import futures

import grpc
from backalley.v1 import player_pb2 as pb

VERSION = {version}


def hello(request, context):
    return pb.HelloResponse(protocol_version=VERSION, bot_name="raw").SerializeToString()


def answer(request, context):
    request = pb.DecisionRequest.FromString(request)
{answer}


def notify(request, context):
    return b""


same = lambda b: b
handlers = {{
    "Hello": grpc.unary_unary_rpc_method_handler(hello, same, same),
    "Bid": grpc.unary_unary_rpc_method_handler(answer, same, same),
    "Play": grpc.unary_unary_rpc_method_handler(answer, same, same),
    "Notify": grpc.unary_unary_rpc_method_handler(notify, same, same),
}}
server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
server.add_generic_rpc_handlers(
    [grpc.method_handlers_generic_handler("backalley.v1.Player", handlers)]
)
server.add_insecure_port("unix:" + os.environ["ARENA_SOCKET"])
server.start()
server.wait_for_termination()
"""

# The same through the SDK: BID and PLAY are method bodies.
SDK_BOT = """
import os
import sys
from arena_sdk import Bot, run

class Hostile(Bot):
    def bid(self, obs):
{bid}
    def play(self, obs):
{play}

if __name__ == "__main__":
    run(Hostile())
"""


def indent(code: str, by: int) -> str:
    return textwrap.indent(textwrap.dedent(code).strip(), " " * by)


def raw_bot(answer: str, version: int = 1) -> str:
    return RAW_BOT.format(answer=indent(answer, 4), version=version)


def sdk_bot(bid: str = "return obs.legal_bids[0]", play: str = "return obs.legal_plays[0]") -> str:
    return SDK_BOT.format(bid=indent(bid, 8), play=indent(play, 8))


LEGAL_FIRST = """
if request.legal_bids:
    return pb.BidResponse(bid=request.legal_bids[0]).SerializeToString()
"""

CASES = {
    "illegal card": (
        raw_bot(
            LEGAL_FIRST
            + """
legal = set(request.legal_plays)
held = [c for c in request.observation.hand if c not in legal]
card = held[0] if held else next(c for c in ("AS", "2C", "BB") if c not in legal)
return pb.PlayResponse(card=card).SerializeToString()
"""
        ),
        "illegal",
        r"answered 'play [2-9TJQKA][SHDC]|answered 'play (BB|LB)",
    ),
    "unknown card string": (
        raw_bot(LEGAL_FIRST + 'return pb.PlayResponse(card="ZZ").SerializeToString()'),
        "protocol",
        "not a card: 'ZZ'",
    ),
    "bid out of range": (
        raw_bot(
            "return pb.BidResponse(bid=pb.Bid(kind=pb.BID_KIND_NUMBER, number=40))"
            ".SerializeToString()"
        ),
        "protocol",
        "bid number 40 is out of range",
    ),
    "bid of no kind": (
        raw_bot("return pb.BidResponse(bid=pb.Bid()).SerializeToString()"),
        "protocol",
        "bid of unknown kind 0",
    ),
    "garbage bytes": (
        raw_bot('return b"\\xff\\xfe\\x00garbage"'),
        "protocol",
        r"malformed BidResponse \(10 bytes: ff fe 00",
    ),
    "wrong protocol version": (raw_bot("return b''", version=7), "protocol", "version 7"),
    "SDK refuses an illegal play": (
        sdk_bot(play='return "ZZ"'),
        "illegal",
        "play\\(\\) returned 'ZZ', not one of the legal plays",
    ),
    "SDK refuses a bid out of range": (
        sdk_bot(bid="return 40"),
        "illegal",
        "bid\\(\\) returned 40, not one of the legal bids",
    ),
    "exception in the bot": (
        sdk_bot(bid='raise RuntimeError("boom")'),
        "crash",
        "RuntimeError: boom",
    ),
    "exits mid-game": (sdk_bot(play="os._exit(3)"), "crash", "exit status 3"),
    "crashes at import": ("import no_such_module_here\n", "startup", "exit status 1"),
    "hangs in bid": (sdk_bot(bid="while True: pass"), "timeout", "no answer to a bid"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_faulting_bot_forfeits_with_a_typed_reason(case: str, tmp_path: Path) -> None:
    source, reason, evidence = CASES[case]
    bot = tmp_path / "hostile"
    bot.mkdir()
    (bot / "bot.py").write_text(source)
    replay = tmp_path / "game.json"
    result = run_arena(
        "play", bot, "random", "random", "random", "--seed", 4, "--replay", replay,
        "--move-ms", 300, "--bank-ms", 300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    forfeit_lines = [line for line in result.stdout.splitlines() if line.startswith("forfeit:")]
    assert len(forfeit_lines) == 1, result.stdout
    assert forfeit_lines[0].startswith(f"forfeit: seat 0 ({bot}) {reason}"), forfeit_lines[0]
    assert re.search(evidence, forfeit_lines[0]), forfeit_lines[0]
    data = json.loads(replay.read_text())
    forfeit = data["result"]["forfeit"]
    assert forfeit["seat"] == 0 and forfeit["team"] == 0
    assert forfeit["reason"] == reason
    assert data["result"]["winner"] == 1
    verified = run_arena("replay", "verify", replay)
    assert verified.returncode == 0, verified.stderr
