"""Serve a bot over gRPC: on the Unix socket named by ``ARENA_SOCKET``, or a TCP port."""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from concurrent import futures
from typing import Any, NoReturn

import grpc
from backalley.v1 import player_pb2 as pb

from . import __version__
from .bot import Bot, DealResult, GameResult, Limits
from .cards import ALL_CARDS, Bid, Card, CardError
from .observation import Observation, Play, Trick

PROTOCOL_VERSION = pb.PROTOCOL_VERSION_1


class IllegalDecisionError(ValueError):
    """The bot answered something that is not one of the legal options; nothing was sent."""


_KINDS = {"pass": pb.BID_KIND_PASS, "number": pb.BID_KIND_NUMBER, "board": pb.BID_KIND_BOARD}


def bid_to_pb(bid: Bid) -> pb.Bid:
    return pb.Bid(kind=_KINDS[bid.kind], number=bid.number)


def checked_bid(answer: object, obs: Observation) -> Bid:
    legal = obs.legal_bids
    if answer.__class__ is Bid and answer in legal:  # the usual answer: one of legal_bids
        return answer
    bid: object = answer
    if isinstance(answer, str | int) and not isinstance(answer, bool):
        with contextlib.suppress(ValueError):
            bid = Bid.parse(answer)
    if bid not in legal:
        allowed = ", ".join(map(str, legal))
        raise IllegalDecisionError(
            f"bid() returned {answer!r}, not one of the legal bids: {allowed}"
        )
    assert isinstance(bid, Bid)
    return bid


def checked_card(answer: object, obs: Observation) -> Card:
    legal = obs.legal_plays
    if answer.__class__ is Card and answer in legal:  # the usual answer: one of legal_plays
        return answer
    card: object = answer
    if isinstance(answer, str):
        with contextlib.suppress(CardError):
            card = Card.parse(answer, obs.trump)
    if card not in legal:
        allowed = " ".join(map(str, legal))
        raise IllegalDecisionError(
            f"play() returned {answer!r}, not one of the legal plays: {allowed}"
        )
    assert isinstance(card, Card)
    return card


# Every answer's reply, encoded once: a decision's reply is then a lookup.
_PLAY_REPLIES = {name: pb.PlayResponse(card=name).SerializeToString() for name in ALL_CARDS}
_BID_REPLIES = {
    bid: pb.BidResponse(bid=bid_to_pb(bid)).SerializeToString()
    for bid in (Bid.PASS, Bid.BOARD, *map(Bid.number_of, range(1, 13)))
}


def bid_reply(bid: Bid) -> bytes:
    """The BidResponse for ``bid``, encoded."""
    reply = _BID_REPLIES.get(bid)
    return pb.BidResponse(bid=bid_to_pb(bid)).SerializeToString() if reply is None else reply


def play_reply(card: Card) -> bytes:
    """The PlayResponse for ``card``, encoded."""
    return _PLAY_REPLIES[card.name]


def noted(reply: bytes, note: str) -> bytes:
    """An encoded BidResponse or PlayResponse with ``note`` added ("" adds nothing).

    The note is field 2 of both messages, appended: encoded messages concatenate, so a
    looked-up reply stays as it is.
    """
    return reply + pb.BidResponse(note=note).SerializeToString() if note else reply


class _Servicer:
    """Turns protocol calls into calls on the bot, one at a time."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.notify = type(bot).wants_notifications()

    def _fail(self, context: grpc.ServicerContext, error: Exception) -> NoReturn:
        # The referee records the message; the traceback goes to the bot's own log.
        traceback.print_exc(file=sys.stderr)
        if isinstance(error, IllegalDecisionError):
            context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(error))
        context.abort(grpc.StatusCode.INTERNAL, f"{type(error).__name__}: {error}")

    def Hello(self, request: pb.HelloRequest, context: grpc.ServicerContext) -> pb.HelloResponse:
        bot = self.bot
        bot.seat = request.seat
        bot.limits = Limits(request.limits.move_ms, request.limits.bank_ms)
        bot.rng = random.Random(request.bot_seed)
        bot.rules = dict(request.rules)
        bot._note_parts, bot._notes_sent = [], 0  # a new game: a fresh count of notes
        try:
            bot.on_game_start(bot.seat, bot.limits)
        except Exception as e:
            self._fail(context, e)
        return pb.HelloResponse(
            protocol_version=PROTOCOL_VERSION,
            bot_name=bot.name or type(bot).__name__,
            sdk_version=__version__,
            wants_notifications=self.notify,
        )

    # Bid and Play answer encoded replies (see _method_handlers), made by lookup.
    def Bid(self, request: pb.DecisionRequest, context: grpc.ServicerContext) -> bytes:
        obs = Observation(request)
        self.bot._note_parts = []  # a note made outside a decision is no decision's
        try:
            reply = bid_reply(checked_bid(self.bot.bid(obs), obs))
        except Exception as e:
            self._fail(context, e)
        return noted(reply, self.bot._take_note())

    def Play(self, request: pb.DecisionRequest, context: grpc.ServicerContext) -> bytes:
        obs = Observation(request)
        self.bot._note_parts = []
        try:
            reply = play_reply(checked_card(self.bot.play(obs), obs))
        except Exception as e:
            self._fail(context, e)
        return noted(reply, self.bot._take_note())

    def Notify(self, request: pb.Notification, context: grpc.ServicerContext) -> pb.NotifyResponse:
        try:
            event = request.WhichOneof("event")
            if event == "trick_ended":
                ended = request.trick_ended
                trump = ended.trump or None
                plays = tuple(Play(p.seat, Card.parse(p.card, trump)) for p in ended.trick.plays)
                winner = ended.trick.winner if ended.trick.HasField("winner") else None
                self.bot.on_trick(Trick(ended.trick.leader, plays, winner))
            elif event == "deal_ended":
                d = request.deal_ended
                self.bot.on_deal_end(DealResult(
                    d.deal_number, d.redeal, tuple(d.tricks_won),
                    (d.points[0], d.points[1]) if d.points else (0, 0),
                    (d.totals[0], d.totals[1]) if d.totals else (0, 0),
                ))  # fmt: skip
            elif event == "game_ended":
                g = request.game_ended
                winner = g.winner if g.HasField("winner") else None
                self.bot.on_game_end(GameResult((g.totals[0], g.totals[1]), winner, g.reason))
        except Exception as e:
            self._fail(context, e)
        return pb.NotifyResponse()


_SERVICE = "backalley.v1.Player"


def _method_handlers(servicer: _Servicer) -> dict[str, grpc.RpcMethodHandler[Any, Any]]:
    """The Player service, as the generated ``add_PlayerServicer_to_server`` makes it but for
    Bid and Play, whose handlers return their reply already encoded."""
    decision = pb.DecisionRequest.FromString
    return {
        "Hello": grpc.unary_unary_rpc_method_handler(
            servicer.Hello, pb.HelloRequest.FromString, pb.HelloResponse.SerializeToString
        ),
        "Bid": grpc.unary_unary_rpc_method_handler(servicer.Bid, decision),
        "Play": grpc.unary_unary_rpc_method_handler(servicer.Play, decision),
        "Notify": grpc.unary_unary_rpc_method_handler(
            servicer.Notify, pb.Notification.FromString, pb.NotifyResponse.SerializeToString
        ),
    }


def _address(argv: list[str] | None) -> str:
    parser = argparse.ArgumentParser(description="Serve this bot to the Back Alley referee.")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--port", type=int, help="serve on 127.0.0.1:PORT (local debugging)")
    where.add_argument("--socket", help="serve on this Unix socket (default: $ARENA_SOCKET)")
    args = parser.parse_args(argv)
    if args.port is not None:
        return f"127.0.0.1:{args.port}"
    path = args.socket or os.environ.get("ARENA_SOCKET")
    if not path:
        _exit("no address: set ARENA_SOCKET, or pass --socket PATH or --port PORT", 2)
    return f"unix:{path}"


def _exit(message: str, status: int) -> NoReturn:
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(status)


def run(bot: Bot, argv: list[str] | None = None) -> None:
    """Serve ``bot`` until the referee stops it (SIGTERM) or the process is interrupted."""
    if not isinstance(bot, Bot):
        raise TypeError(f"run() needs a Bot instance, got {type(bot).__name__}")
    serve(_Servicer(bot), bot.name or type(bot).__name__, _address(argv))


def serve(
    servicer: _Servicer,
    name: str,
    address: str,
    started: Callable[[grpc.Server], None] | None = None,
) -> None:
    """Serve ``servicer`` on ``address`` until stopped (``run``; the stdio bridge, which is
    given the server by ``started`` to let a reply out before it exits)."""
    # One worker: the bot's methods are never called concurrently.
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
    server.add_registered_method_handlers(_SERVICE, _method_handlers(servicer))
    try:
        port = server.add_insecure_port(address)
    except RuntimeError:  # grpcio raises where older versions returned 0
        _exit(f"cannot serve on {address}", 1)
    if port == 0:
        _exit(f"cannot serve on {address}", 1)
    if not address.startswith("unix:"):
        address = f"127.0.0.1:{port}"  # --port 0 asks for any free port: say which
    server.start()
    if started is not None:
        started(server)
    print(f"{name} serving on {address}", file=sys.stderr, flush=True)

    stopped = threading.Event()

    def stop(signum: int, frame: object) -> None:
        server.stop(grace=None)
        stopped.set()

    signal.signal(signal.SIGTERM, stop)
    try:
        # Not server.wait_for_termination(): it wakes every 0.1 s, ten wake-ups a second for
        # each idle bot; an Event waits without polling and Ctrl-C still interrupts it.
        stopped.wait()
    except KeyboardInterrupt:
        server.stop(grace=None)
