"""A bot written with the SDK, run as ``python bot.py`` and called over real gRPC.

Each test writes a ``bot.py``, starts it serving on ``$ARENA_SOCKET`` (or ``--port``) and
talks to it with the generated client stub, as the referee does.
"""

from __future__ import annotations

import importlib.metadata
import json
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import arena_sdk
import grpc
import pytest
from backalley.v1 import player_pb2 as pb

from arena.engine import GameState

from .botproc import RunningBot, bot_environment, free_port, write_bot
from .conftest import StartBot
from .positions import (
    advance,
    bidding,
    decisions,
    engine_request,
    following_with_a_choice,
    play_game,
    trick_msg,
)

REPO = Path(__file__).resolve().parents[2]

FIRST_BOT = """
    from arena_sdk import Bot, run

    class FirstBot(Bot):
        def bid(self, obs):
            return obs.legal_bids[0]

        def play(self, obs):
            return obs.legal_plays[0]

    run(FirstBot())
"""

RANDOM_BOT = """
    from arena_sdk import Bot, run

    class RandomBot(Bot):
        def bid(self, obs):
            return self.rng.choice(obs.legal_bids)

        def play(self, obs):
            return self.rng.choice(obs.legal_plays)

    run(RandomBot())
"""

# Prints what each hook saw to stderr, one "SAW <json>" line per call.
HOOK_BOT = """
    import json, sys
    from dataclasses import asdict
    from arena_sdk import Bot, run

    def saw(*what):
        print("SAW", json.dumps(what), file=sys.stderr, flush=True)

    class Listener(Bot):
        name = "listener"

        def bid(self, obs):
            return obs.legal_bids[0]

        def play(self, obs):
            return obs.legal_plays[0]

        def on_game_start(self, seat, limits):
            saw("start", seat, asdict(limits), self.seat, asdict(self.limits))

        def on_trick(self, trick):
            saw("trick", asdict(trick), None if trick.led is None else trick.led.name)

        def on_deal_end(self, result):
            saw("deal", asdict(result))

        def on_game_end(self, result):
            saw("game", asdict(result))

    run(Listener())
"""


def answer(bot: RunningBot, request: pb.DecisionRequest) -> tuple[object, ...]:
    """The bot's answer to a decision, as a comparable value."""
    if request.legal_bids:
        bid = bot.bid(request).bid
        return ("bid", bid.kind, bid.number)
    return ("play", bot.play(request).card)


def legal_answers(request: pb.DecisionRequest) -> set[tuple[object, ...]]:
    if request.legal_bids:
        return {("bid", b.kind, b.number) for b in request.legal_bids}
    return {("play", c) for c in request.legal_plays}


def seen(stderr: str) -> list[list[object]]:
    return [json.loads(line[4:]) for line in stderr.splitlines() if line.startswith("SAW ")]


# ---------------------------------------------------------------- Hello


def test_hello_gives_protocol_version_class_name_sdk_version_and_no_notifications(
    bots: StartBot,
) -> None:
    reply = bots(FIRST_BOT).hello()
    assert reply.protocol_version == pb.PROTOCOL_VERSION_1 == 1
    assert reply.bot_name == "FirstBot"
    sdk_project = tomllib.loads((REPO / "sdk" / "pyproject.toml").read_text())["project"]
    assert reply.sdk_version == arena_sdk.__version__ == sdk_project["version"]
    assert reply.sdk_version == importlib.metadata.version("backalley-sdk")
    assert reply.wants_notifications is False


def test_hello_gives_the_name_attribute_and_wants_notifications_with_on_trick(
    bots: StartBot,
) -> None:
    source = """
        from arena_sdk import Bot, run

        class Counter(Bot):
            name = "trick counter"

            def bid(self, obs):
                return obs.legal_bids[0]

            def play(self, obs):
                return obs.legal_plays[0]

            def on_trick(self, trick):
                pass

        run(Counter())
    """
    reply = bots(source).hello()
    assert reply.bot_name == "trick counter"
    assert reply.wants_notifications is True


@pytest.mark.parametrize(
    ("hook", "wants"),
    [("on_game_start", False), ("on_trick", True), ("on_deal_end", True), ("on_game_end", True)],
)
def test_overriding_a_notification_hook_is_what_asks_for_notifications(
    hook: str, wants: bool
) -> None:
    bot_class = type("HookBot", (arena_sdk.Bot,), {hook: lambda self, *args: None})
    assert bot_class.wants_notifications() is wants
    assert arena_sdk.Bot.wants_notifications() is False


# ---------------------------------------------------------------- decisions


def test_bid_and_play_answer_one_of_the_legal_options(bots: StartBot) -> None:
    bot = bots(RANDOM_BOT)
    bot.hello(seat=2, bot_seed=3)
    requests = decisions(seed=11, seat=2, count=80)
    assert any(r.legal_bids for r in requests) and any(r.legal_plays for r in requests)
    for request in requests:
        assert answer(bot, request) in legal_answers(request)


def test_a_whole_game_between_four_bot_processes_is_legal_throughout(bots: StartBot) -> None:
    seats = [bots(RANDOM_BOT, name=f"seat{seat}") for seat in range(4)]
    for seat, bot in enumerate(seats):
        bot.hello(seat=seat, bot_seed=100 + seat)
    state = play_game(seats, seed=4, notify=[False] * 4)  # the engine refuses illegal answers
    assert state.is_terminal()


def test_answers_may_be_values_or_plain_names(bots: StartBot) -> None:
    """bid() may return a Bid, an int or 'pass'/'board'; play() a Card or its name."""
    source = """
        from arena_sdk import Bid, Bot, run

        class Forms(Bot):
            bids = [Bid.number_of(3), 3, "pass", "board", Bid.PASS, Bid.parse("board")]
            plays = [lambda c: c, lambda c: c.name]

            def bid(self, obs):
                return self.bids.pop(0)

            def play(self, obs):
                return self.plays.pop(0)(obs.legal_plays[-1])

        run(Forms())
    """
    bot = bots(source)
    bot.hello()
    request = engine_request(advance(seed=1, until=bidding))  # 13 cards: 1..12 are legal
    number, passing, board = pb.BID_KIND_NUMBER, pb.BID_KIND_PASS, pb.BID_KIND_BOARD
    expected = [(number, 3), (number, 3), (passing, 0), (board, 0), (passing, 0), (board, 0)]
    assert [(b.kind, b.number) for b in (bot.bid(request).bid for _ in expected)] == expected
    play = engine_request(advance(seed=1, until=following_with_a_choice))
    last = play.legal_plays[-1]
    assert [bot.play(play).card, bot.play(play).card] == [last, last]


# ---------------------------------------------------------------- faults


ILLEGAL_CARD = "return next(c for c in obs.hand if c not in obs.legal_plays)"


@pytest.mark.parametrize(
    ("returns", "shown"),
    [
        pytest.param(ILLEGAL_CARD, None, id="a held card that does not follow suit"),
        pytest.param('return "hello"', "'hello'", id="a string that is no card"),
        pytest.param('return "ts"', "'ts'", id="a card name in lower case"),
        pytest.param("return None", "None", id="nothing"),
    ],
)
def test_an_illegal_play_is_refused_before_sending(
    bots: StartBot, returns: str, shown: str | None
) -> None:
    source = f"""
        from arena_sdk import Bot, run

        class Cheat(Bot):
            def bid(self, obs):
                return obs.legal_bids[0]

            def play(self, obs):
                {returns}

        run(Cheat())
    """
    bot = bots(source)
    bot.hello()
    request = engine_request(advance(seed=1, until=following_with_a_choice))
    if shown is None:
        held = next(c for c in request.observation.hand if c not in request.legal_plays)
        shown = held
    with pytest.raises(grpc.RpcError) as raised:
        bot.play(request)
    error: grpc.RpcError = raised.value
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    details = error.details()
    assert details.startswith("play() returned ")
    assert shown in details
    assert "legal plays: " + " ".join(request.legal_plays) in details
    bot.terminate()
    assert "IllegalDecisionError" in bot.stderr()


@pytest.mark.parametrize(
    ("returns", "shown"),
    [
        pytest.param("13", "13", id="a number above hand size - 1"),
        pytest.param("0", "0", id="zero"),
        pytest.param('"3"', "'3'", id="a number as a string"),
        pytest.param("obs.legal_plays", "()", id="not a bid at all"),
    ],
)
def test_an_illegal_bid_is_refused_before_sending(bots: StartBot, returns: str, shown: str) -> None:
    source = f"""
        from arena_sdk import Bot, run

        class Cheat(Bot):
            def bid(self, obs):
                return {returns}

            def play(self, obs):
                return obs.legal_plays[0]

        run(Cheat())
    """
    bot = bots(source)
    bot.hello()
    request = engine_request(advance(seed=1, until=bidding))
    assert request.observation.hand_size == 13
    with pytest.raises(grpc.RpcError) as raised:
        bot.bid(request)
    error: grpc.RpcError = raised.value
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error.details() == (
        f"bid() returned {shown}, not one of the legal bids: "
        "pass, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, board"
    )


@pytest.mark.parametrize(
    ("method", "body", "call", "raised"),
    [
        ("play", "return 1 / 0", "play", "ZeroDivisionError: division by zero"),
        ("on_trick", "raise KeyError('lost track')", "notify", "KeyError: 'lost track'"),
        ("on_game_start", "raise RuntimeError('no')", "hello", "RuntimeError: no"),
    ],
)
def test_an_exception_in_the_bot_is_internal_with_the_traceback_on_stderr(
    bots: StartBot, method: str, body: str, call: str, raised: str
) -> None:
    params = "self, obs" if method == "play" else "self, *args"
    source = f"""
        from arena_sdk import Bot, run

        class Buggy(Bot):
            def bid(self, obs):
                return obs.legal_bids[0]

            def play(self, obs):
                return obs.legal_plays[0]

            def {method}({params}):
                {body}

        run(Buggy())
    """
    bot = bots(source)
    trick = pb.Notification(
        trick_ended=pb.TrickEnded(
            deal_number=1,
            trick=trick_msg(0, "2S 3S 4S 5S", winner=3),
            trump="H",
        )
    )
    play = engine_request(advance(seed=1, until=following_with_a_choice))
    calls = {
        "hello": bot.hello,
        "notify": lambda: bot.notify(trick),
        "play": lambda: bot.play(play),
    }
    if call != "hello":
        bot.hello()
    with pytest.raises(grpc.RpcError) as caught:
        calls[call]()
    error: grpc.RpcError = caught.value
    assert error.code() == grpc.StatusCode.INTERNAL
    assert error.details() == raised
    bid = engine_request(advance(seed=1, until=bidding))
    assert answer(bot, bid) in legal_answers(bid)  # the bot still serves
    bot.terminate()
    stderr = bot.stderr()
    assert "Traceback (most recent call last):" in stderr
    assert f"in {method}" in stderr
    assert body in stderr  # the line that raised, quoted from bot.py
    assert raised in stderr


def test_a_bot_without_bid_fails_internal_naming_the_missing_method(bots: StartBot) -> None:
    source = """
        from arena_sdk import Bot, run

        class Half(Bot):
            def play(self, obs):
                return obs.legal_plays[0]

        run(Half())
    """
    bot = bots(source)
    bot.hello()
    with pytest.raises(grpc.RpcError) as caught:
        bot.bid(engine_request(advance(seed=1, until=bidding)))
    error: grpc.RpcError = caught.value
    assert error.code() == grpc.StatusCode.INTERNAL
    assert error.details() == "NotImplementedError: a bot must define bid(self, obs)"


# ---------------------------------------------------------------- hooks


def test_hooks_receive_the_game_start_tricks_deal_ends_and_game_ends(bots: StartBot) -> None:
    bot = bots(HOOK_BOT)
    reply = bot.hello(seat=2, bot_seed=9, move_ms=500, bank_ms=7000)
    assert reply.wants_notifications is True
    events = [
        pb.TrickEnded(deal_number=3, trick=trick_msg(1, "AH BB 2H 3C", winner=2), trump="H"),
        pb.DealEnded(
            deal_number=3, redeal=True, tricks_won=[0, 0, 0, 0], points=[0, 0], totals=[10, -5]
        ),
        pb.DealEnded(deal_number=3, tricks_won=[4, 3, 2, 2], points=[32, -15], totals=[42, -20]),
        pb.GameEnded(totals=[42, 42], reason="normal"),
        pb.GameEnded(totals=[0, 0], winner=1, reason="timeout"),
    ]
    for event in events:
        field = {"TrickEnded": "trick_ended", "DealEnded": "deal_ended", "GameEnded": "game_ended"}
        bot.notify(pb.Notification(**{field[type(event).__name__]: event}))
    bot.terminate()
    limits = {"move_ms": 500, "bank_ms": 7000}
    trick = {
        "leader": 1,
        "plays": [
            {"seat": 1, "card": {"name": "AH", "is_trump": True}},
            {"seat": 2, "card": {"name": "BB", "is_trump": True}},
            {"seat": 3, "card": {"name": "2H", "is_trump": True}},
            {"seat": 0, "card": {"name": "3C", "is_trump": False}},
        ],
        "winner": 2,
    }
    redeal = {
        "deal_number": 3,
        "redeal": True,
        "tricks_won": [0, 0, 0, 0],
        "points": [0, 0],
        "totals": [10, -5],
    }
    scored = {
        "deal_number": 3,
        "redeal": False,
        "tricks_won": [4, 3, 2, 2],
        "points": [32, -15],
        "totals": [42, -20],
    }
    assert seen(bot.stderr()) == [
        ["start", 2, limits, 2, limits],
        ["trick", trick, "AH"],
        ["deal", redeal],
        ["deal", scored],
        ["game", {"totals": [42, 42], "winner": None, "reason": "normal"}],
        ["game", {"totals": [0, 0], "winner": 1, "reason": "timeout"}],
    ]


def test_hooks_hear_every_trick_and_deal_of_a_whole_game(bots: StartBot) -> None:
    listener = bots(HOOK_BOT, name="listener")
    others = bots(FIRST_BOT, name="others")  # stateless: one process serves seats 1-3
    listener.hello(seat=0)
    others.hello(seat=1)
    state: GameState = play_game(
        [listener, others, others, others], seed=3, notify=[True] + [False] * 3
    )
    listener.terminate()
    saw = seen(listener.stderr())
    tricks = [s[1] for s in saw if s[0] == "trick"]
    deals = [s[1] for s in saw if s[0] == "deal"]
    games = [s[1] for s in saw if s[0] == "game"]
    played = [t for record in state.deals for t in record.tricks]
    assert len(tricks) == len(played) > 0
    for heard, trick in zip(tricks, played, strict=True):
        assert heard["leader"] == trick.leader and heard["winner"] == trick.winner
        assert len(heard["plays"]) == len(trick.cards) == 4
    assert [d["deal_number"] for d in deals] == [r.number for r in state.deals]
    assert [d["redeal"] for d in deals] == [r.redeal for r in state.deals]
    assert deals[-1]["totals"] == list(state.totals)
    assert games == [{"totals": list(state.totals), "winner": state.winner(), "reason": "normal"}]


# ---------------------------------------------------------------- serving and stopping


def test_port_serves_on_tcp_localhost(bots: StartBot) -> None:
    port = free_port()
    bot = bots(FIRST_BOT, port=port)
    assert bot.target == f"127.0.0.1:{port}"
    assert bot.hello().bot_name == "FirstBot"
    request = engine_request(advance(seed=2, until=bidding))
    assert answer(bot, request) in legal_answers(request)


def test_without_an_address_the_bot_exits_2_with_a_one_line_usage_error(tmp_path: Path) -> None:
    write_bot(tmp_path, FIRST_BOT)
    result = subprocess.run(
        [sys.executable, "bot.py"],
        cwd=tmp_path,
        env=bot_environment(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{result.stderr}"
    assert "error:" in lines[0] and "ARENA_SOCKET" in lines[0] and "--port" in lines[0]


def test_a_socket_it_cannot_create_is_a_one_line_error_not_a_traceback(tmp_path: Path) -> None:
    write_bot(tmp_path, FIRST_BOT)
    socket = tmp_path / "no such directory" / "bot.sock"
    result = subprocess.run(
        [sys.executable, "bot.py"],
        cwd=tmp_path,
        env=bot_environment(ARENA_SOCKET=str(socket)),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stderr.splitlines()[-1] == f"error: cannot serve on unix:{socket}"


def test_sigterm_stops_the_bot(bots: StartBot) -> None:
    bot = bots(FIRST_BOT)
    bot.hello()
    assert bot.process.poll() is None
    assert bot.terminate() in (0, -signal.SIGTERM)


# ---------------------------------------------------------------- self.rng


def test_the_same_bot_seed_gives_the_same_choices(bots: StartBot) -> None:
    requests = decisions(seed=21, seat=3, count=60)
    first, second = bots(RANDOM_BOT, name="first"), bots(RANDOM_BOT, name="second")

    def game(bot: RunningBot, bot_seed: int) -> list[tuple[object, ...]]:
        bot.hello(seat=3, bot_seed=bot_seed)
        return [answer(bot, r) for r in requests]

    choices = game(first, 7)
    assert game(second, 7) == choices  # another process
    assert game(first, 8) != choices
    assert game(first, 7) == choices  # Hello reseeds: every game starts afresh
