"""The stdio bridge: a bot in any language, with no gRPC library, speaks JSON lines.

``python3 -m arena_sdk.stdio_bridge [--socket PATH | --port N] -- CMD ARGS...`` starts
``CMD ARGS...`` (the bot's program) and serves the Player service of
``protos/backalley/v1/player.proto`` on ``$ARENA_SOCKET`` for it, as any bot does. Each call
of the referee becomes ONE line of JSON on the program's stdin; each call that wants an answer
waits for ONE line of JSON on its stdout. Its stderr is the bot's log. A ``bot.toml`` with
``protocol = "stdio"`` makes the platform run this bridge around its ``run`` command.

To the program (one object per line, ``type`` first)::

    {"type": "hello", "seat": 0, "bot_seed": 123, "limits": {"move_ms": 1000, "bank_ms": 10000},
     "rules": {"max_redeals": 5}}
    {"type": "bid", "legal": ["pass", "1", "2", "board"], "observation": {...}}
    {"type": "play", "legal": ["AS", "TH"], "observation": {...}}
    {"type": "trick_ended", ...} {"type": "deal_ended", ...} {"type": "game_ended", ...}

``observation`` is the ``Observation`` message in protobuf's JSON mapping, field names as in
the proto (``hand``, ``trump``, ``current_trick``, ...), every field present. The three
notifications (the ``Notification`` message's fields, likewise) come only to a program that
asked for them in its hello answer, and want no answer.

From the program::

    {"name": "mybot", "notifications": false}   to hello (both keys optional: {} will do)
    {"bid": "2"}                                to bid: one of legal ("pass", "board", a number)
    {"card": "AS"}                              to play: one of legal
    {"card": "AS", "note": "why"}               a bid or play may carry a note for its replay

Faults, as the referee records them: an answer not in ``legal`` is ``illegal``; a line that
is not a JSON object with the key asked for (anything else printed on stdout: log to stderr)
is ``protocol``; a program that exits ends the bridge with its exit status (``crash``, or
``startup`` before its hello answer); an answer later than the time limit is ``timeout``. A
note that is not a string is dropped; a long one is cut as the SDK cuts a bot's.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from typing import IO, Any, NoReturn

import grpc
from backalley.v1 import player_pb2 as pb
from google.protobuf import json_format
from google.protobuf.message import Message

from . import __version__
from .bot import NOTE_MAX_CHARS, NOTES_PER_GAME
from .observation import Observation
from .server import (
    PROTOCOL_VERSION,
    IllegalDecisionError,
    _address,
    _exit,
    _Servicer,
    bid_reply,
    checked_bid,
    checked_card,
    noted,
    play_reply,
    serve,
)

MAX_LINE_BYTES = 1 << 16  # an answer is a few bytes; a longer line is a fault, not a wait
MAX_NAME_CHARS = 64
SHOWN_CHARS = 80  # of a garbage line, in its fault


class ProgramError(Exception):
    """The program's answer is not what the protocol asks for: a ``protocol`` fault."""


class Program:
    """The bot's program: one JSON line out, one JSON line back, one exchange at a time."""

    def __init__(self, command: list[str]) -> None:
        try:
            self.proc = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
            )
        except OSError as e:
            _exit(f"cannot start {command[0]}: {e.strerror}", 127)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in: IO[bytes] = self.proc.stdin
        self._out: IO[bytes] = self.proc.stdout
        self._lock = threading.Lock()
        # Calls under way, and whether one of them met the program's end (see _end_with_program).
        self._calls = threading.Condition()
        self._under_way = 0
        self._met_end = False
        self.server: grpc.Server | None = None
        threading.Thread(target=self._end_with_program, daemon=True).start()

    def _end_with_program(self) -> NoReturn:
        """The program's end is the bot's: the bridge exits with its status (128 + N for a
        signal N, as a shell says it), so the referee reports how it ended.

        A call under way whose answer (or fault) was decided before the end gets its reply
        out first, or the referee would see a crash where the program had, say, printed
        garbage to Hello and then exited. A call that met the end itself sends nothing: its
        fault is the crash. Both waits are bounded, so nothing the program does holds the
        bridge up.
        """
        code = self.proc.wait()
        print(f"stdio bridge: the bot's program ended ({_how(code)})", file=sys.stderr, flush=True)
        with self._calls:
            self._calls.wait_for(lambda: self._under_way == 0 or self._met_end, timeout=5.0)
            let_out = not self._met_end
        if let_out and self.server is not None:
            self.server.stop(grace=3.0).wait(3.0)
        os._exit(128 - code if code < 0 else code)

    @contextlib.contextmanager
    def call(self) -> Iterator[None]:
        """One call of the referee's, from its request to its decided reply."""
        with self._calls:
            self._under_way += 1
        try:
            yield
        finally:
            with self._calls:
                self._under_way -= 1
                self._calls.notify_all()

    def tell(self, message: dict[str, Any]) -> None:
        with self._lock:
            self._send(message)

    def ask(self, message: dict[str, Any], key: str) -> dict[str, Any]:
        """Send ``message``; the one-line JSON object answered, which has ``key`` (if any)."""
        with self._lock:
            self._send(message)
            line = self._out.readline(MAX_LINE_BYTES + 1)
        what = message["type"]
        if not line:
            self._ended()
            raise ProgramError(f"the bot's program closed its stdout instead of answering {what}")
        if not line.endswith(b"\n") and len(line) > MAX_LINE_BYTES:
            raise ProgramError(f"its answer to {what} is longer than {MAX_LINE_BYTES} bytes")
        try:
            answer = json.loads(line)
        except ValueError:
            raise ProgramError(
                f"the bot's program printed {_shown(line)} where a JSON answer to {what} was "
                "expected (stdout is for answers; write logs to stderr)"
            ) from None
        if not isinstance(answer, dict) or (key and key not in answer):
            wanted = f'a JSON object with "{key}"' if key else "a JSON object"
            raise ProgramError(f"its answer to {what} is {_shown(line)}, not {wanted}")
        return answer

    def _send(self, message: dict[str, Any]) -> None:
        try:
            self._in.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        except OSError:  # its stdin is closed: it is ending, and the bridge with it
            self._ended()
            raise ProgramError("the bot's program closed its stdin") from None

    def _ended(self) -> None:
        """This call met the program's end, or a program that closed its pipes: if it is
        ending, the bridge ends with it (see _end_with_program) before the referee asks
        how, and the fault is then the crash, with its exit status."""
        try:
            self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return  # it lives on without its pipes: the fault is the protocol's
        with self._calls:
            self._met_end = True
            self._calls.notify_all()
        threading.Event().wait(1.0)


def _how(code: int) -> str:
    return f"killed by signal {-code}" if code < 0 else f"exit status {code}"


def _shown(line: bytes) -> str:
    text = line.decode(errors="replace").rstrip("\n")
    return repr(text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "...")


def _as_json(message: Message) -> dict[str, Any]:
    return json_format.MessageToDict(
        message, always_print_fields_with_no_presence=True, preserving_proto_field_name=True
    )


class _Bridge(_Servicer):
    """The Player service, each call handed to the program as a JSON line."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.notify = False
        self.notes_sent = 0  # noted decisions this game, capped as the SDK caps a bot's

    def _abort(self, context: grpc.ServicerContext, error: Exception) -> NoReturn:
        print(f"stdio bridge: {error}", file=sys.stderr, flush=True)
        if isinstance(error, IllegalDecisionError):
            context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(error))
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))

    def _note(self, answer: dict[str, Any]) -> str:
        """The answer's optional ``note``, cut as the referee cuts it; one that is not a
        string is dropped, never a fault."""
        note = answer.get("note")
        if not isinstance(note, str) or not note or self.notes_sent >= NOTES_PER_GAME:
            return ""
        self.notes_sent += 1
        return note[:NOTE_MAX_CHARS]

    def Hello(self, request: pb.HelloRequest, context: grpc.ServicerContext) -> pb.HelloResponse:
        message = {
            "type": "hello", "seat": request.seat, "bot_seed": request.bot_seed,
            "limits": {"move_ms": request.limits.move_ms, "bank_ms": request.limits.bank_ms},
            "rules": dict(request.rules),
        }  # fmt: skip
        with self.program.call():
            try:
                answer = self.program.ask(message, "")
            except ProgramError as e:
                self._abort(context, e)
            name = answer.get("name")
            self.notify = answer.get("notifications") is True
            self.notes_sent = 0
            return pb.HelloResponse(
                protocol_version=PROTOCOL_VERSION,
                bot_name=name[:MAX_NAME_CHARS] if isinstance(name, str) else "",
                sdk_version=f"stdio-bridge {__version__}",
                wants_notifications=self.notify,
            )

    def Bid(self, request: pb.DecisionRequest, context: grpc.ServicerContext) -> bytes:
        obs = Observation(request)
        legal = [str(b) for b in obs.legal_bids]
        message = {"type": "bid", "legal": legal, "observation": _as_json(request.observation)}
        with self.program.call():
            try:
                answer = self.program.ask(message, "bid")
                bid = answer["bid"]
                if isinstance(bid, str) and bid.isdigit():
                    bid = int(bid)
                return noted(bid_reply(checked_bid(bid, obs)), self._note(answer))
            except (ProgramError, IllegalDecisionError) as e:
                self._abort(context, e)

    def Play(self, request: pb.DecisionRequest, context: grpc.ServicerContext) -> bytes:
        obs = Observation(request)
        legal = list(request.legal_plays)
        message = {"type": "play", "legal": legal, "observation": _as_json(request.observation)}
        with self.program.call():
            try:
                answer = self.program.ask(message, "card")
                card = checked_card(answer["card"], obs)
                return noted(play_reply(card), self._note(answer))
            except (ProgramError, IllegalDecisionError) as e:
                self._abort(context, e)

    def Notify(self, request: pb.Notification, context: grpc.ServicerContext) -> pb.NotifyResponse:
        event = request.WhichOneof("event")
        if self.notify and event is not None:
            with self.program.call():
                try:
                    self.program.tell({"type": event, **_as_json(getattr(request, event))})
                except ProgramError as e:
                    self._abort(context, e)
        return pb.NotifyResponse()


def _given_to(program: Program) -> Callable[[grpc.Server], None]:
    def give(server: grpc.Server) -> None:
        program.server = server

    return give


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if "--" not in args or args.index("--") == len(args) - 1:
        _exit("usage: python3 -m arena_sdk.stdio_bridge [--socket PATH | --port N] -- CMD ARGS", 2)
    split = args.index("--")
    address = _address(args[:split])
    program = Program(args[split + 1 :])
    serve(_Bridge(program), "stdio bridge", address, started=_given_to(program))


if __name__ == "__main__":
    main()
