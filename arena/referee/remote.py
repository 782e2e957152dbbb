"""A player on the other end of a gRPC channel: the referee's side of the protocol.

Each call is given the time the bot has left (its per-move limit plus its bank), so a
hung bot costs its own time and never the referee's; time beyond the per-move limit is
taken from the bank. A notification is allowed only ``notify_ms`` (a round trip) before the
bank is drawn on: the bot's hooks run on its own clock, never on the others' time.

With a pace (``Limits.pace_ms``), a decision's free time is the pace, and every call returns
(so the game goes on, and the other seats hear of it) only at its free time plus a whole
number of paces, those paces taken from the bank: a bot's partner sees how long it thought
only in paces it paid for.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import grpc
from backalley.v1 import player_pb2 as pb
from backalley.v1 import player_pb2_grpc as pb_grpc
from google.protobuf.message import DecodeError

from arena.bots.limits import Limits
from arena.engine import Observation, Phase, Rules, action_name
from arena.engine.events import Event
from arena.engine.replay import ThinkTime

from .faults import BotFault, CrashFault, IllegalFault, ProtocolFault, StartupFault, TimeoutFault
from .notes import NoteTaker
from .protocol import (
    BID_ANSWERS,
    PLAY_ANSWERS,
    AnswerError,
    RequestEncoder,
    bid_action,
    card_action,
    notification,
)

PROTOCOL_VERSION = pb.PROTOCOL_VERSION_1
Reply = TypeVar("Reply")
# Paced, an answer must come this much before its free time ends to be released on time:
# the referee's own work after it (freezing the bot, parsing) must not shift the release.
PACE_MARGIN_MS = 2.0

# Statuses a bot's server answers a call with (never gRPC's own): the bot refused it.
_REFUSALS = (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION)


@dataclass
class Timing:
    """Per-bot timing for one game."""

    decisions: int = 0
    total_ms: float = 0.0
    max_ms: float = 0.0
    bank_ms: float = 0.0
    held_ms: float = 0.0  # paced: how long the referee held this bot's answers back

    def record(self, ms: float) -> None:
        self.decisions += 1
        self.total_ms += ms
        self.max_ms = max(self.max_ms, ms)

    @property
    def mean_ms(self) -> float:
        return self.total_ms / self.decisions if self.decisions else 0.0

    def think(self) -> ThinkTime:
        """What the replay's optional ``think`` key records."""
        return ThinkTime(self.decisions, self.total_ms, self.max_ms)


@dataclass
class RemotePlayer:
    """One seat's bot behind a channel; ``died`` tells how its process ended, if it did."""

    seat: int
    channel: grpc.Channel
    limits: Limits
    label: str  # how the bot is named in faults, e.g. "sample_bots/random"
    died: Callable[[], str | None] = lambda: None
    # Between calls the bot is frozen (its sandbox's freezer), so that it takes no CPU from
    # the bot on turn; thawed for each call of its own.
    freeze: Callable[[], None] = lambda: None
    thaw: Callable[[], None] = lambda: None
    # Returns once the last freeze has taken hold (or after a short bound); paced, the
    # release waits for it, so that how long a bot takes to stop is its own time too.
    wait_frozen: Callable[[], None] = lambda: None
    name: str = ""  # the name the bot gives in Hello
    sdk_version: str = ""
    wants_notifications: bool = False
    timing: Timing = field(default_factory=Timing)
    notes: NoteTaker = field(default_factory=NoteTaker)

    def __post_init__(self) -> None:
        self._note: str | None = None
        self.stub = pb_grpc.PlayerStub(self.channel)
        # Decisions travel as bytes both ways: requests from RequestEncoder (it caches the
        # deal's history), answers parsed here so a malformed one can be shown as it was.
        self._bid: grpc.UnaryUnaryMultiCallable[bytes, bytes] = self.channel.unary_unary(
            "/backalley.v1.Player/Bid"
        )
        self._play: grpc.UnaryUnaryMultiCallable[bytes, bytes] = self.channel.unary_unary(
            "/backalley.v1.Player/Play"
        )
        self._encoder = RequestEncoder()
        self.timing.bank_ms = float(self.limits.bank_ms)

    # ---------------------------------------------------------------- calls

    def hello(self, bot_seed: int, rules: Rules, deadline: float) -> None:
        """Wait for the bot to answer Hello by ``deadline`` (a time.monotonic() value)."""
        request = pb.HelloRequest(
            protocol_version=PROTOCOL_VERSION,
            seat=self.seat,
            limits=pb.Limits(move_ms=self.limits.decision_ms, bank_ms=self.limits.bank_ms),
            bot_seed=bot_seed,
            rules=rules.to_dict(),
        )
        self.thaw()  # a bot waits frozen for its first call once it is up (its sandbox's)
        try:
            self._wait_ready(deadline)
            reply = self.stub.Hello(
                request, timeout=max(0.001, deadline - time.monotonic()), wait_for_ready=True
            )
        except (grpc.FutureTimeoutError, grpc.RpcError) as e:
            died = self.died()
            detail = e.details() if isinstance(e, grpc.RpcError) else ""
            secs = self.limits.startup_ms / 1000
            how = f"{died} during start-up" if died else f"no answer to Hello within {secs:g} s"
            code = e.code() if isinstance(e, grpc.RpcError) else None
            # It answered, with an error: a status only a bot's own server sends (the SDK's,
            # the stdio bridge's) is its answer even if the bot ended just after sending it.
            answered = code in _REFUSALS or (code == grpc.StatusCode.INTERNAL and not died)
            if answered and detail:
                how = "refused Hello:"
            fault = StartupFault(self.seat, self.label, f"{how} {detail}".strip())
            raise fault from None
        if reply.protocol_version != PROTOCOL_VERSION:
            raise ProtocolFault(
                self.seat, self.label,
                f"speaks protocol version {reply.protocol_version}, the referee {PROTOCOL_VERSION}",
            )  # fmt: skip
        self.freeze()
        self.name = reply.bot_name
        self.sdk_version = reply.sdk_version
        self.wants_notifications = reply.wants_notifications

    def _wait_ready(self, deadline: float) -> None:
        """Wait for the bot's socket, but give up at once if its process ends: a bot that
        dies at import (a ``SyntaxError``) is reported in a moment, not at the deadline.
        Asking a container how it is costs an engine call: a quarter second apart."""
        ready = grpc.channel_ready_future(self.channel)
        try:
            while True:
                left = deadline - time.monotonic()
                try:
                    ready.result(timeout=max(0.0, min(left, 0.25)))
                    return
                except grpc.FutureTimeoutError:
                    if left <= 0.25 or self.died():
                        raise
        finally:
            ready.cancel()

    def choose(self, obs: Observation) -> int:
        request = self._encoder.encode(obs, int(self.timing.bank_ms))
        self._note = None
        try:
            # The usual answer is a lookup; one with a note (or odd bytes) is parsed.
            if obs.phase is Phase.BIDDING:
                raw = self._call(self._bid, request, what="a bid")
                action = BID_ANSWERS.get(raw, -1)
                if action < 0:
                    bid = _parse(pb.BidResponse, raw)
                    action, self._note = bid_action(bid.bid), self.notes.take(bid.note)
            else:
                raw = self._call(self._play, request, what="a play")
                action = PLAY_ANSWERS.get(raw, -1)
                if action < 0:
                    play = _parse(pb.PlayResponse, raw)
                    action, self._note = card_action(play.card), self.notes.take(play.note)
        except AnswerError as e:
            raise ProtocolFault(self.seat, self.label, str(e)) from None
        if action not in obs.legal_actions:
            legal = ", ".join(action_name(a) for a in obs.legal_actions)
            raise IllegalFault(
                self.seat, self.label, f"answered '{action_name(action)}'; legal: {legal}",
                answer=action,
            )  # fmt: skip
        return action

    def take_note(self) -> str | None:
        """The note the bot attached to its last decision, as kept (``NoteTaker``), once."""
        note, self._note = self._note, None
        return note

    def notify(self, event: Event) -> None:
        if self.wants_notifications:
            self._call(
                self.stub.Notify,
                notification(event),
                what="a notification",
                free_ms=self.limits.notify_ms,
            )

    def _call(
        self,
        method: Callable[..., Reply],
        request: object,
        *,
        what: str,
        free_ms: int | None = None,  # what it may take before the bank; a decision's by default
    ) -> Reply:
        decision = free_ms is None
        free = self.limits.decision_ms if free_ms is None else free_ms
        pace = self.limits.pace_ms
        bank = self.timing.bank_ms if not pace else pace * (self.timing.bank_ms // pace)
        allowed_ms = free + bank
        self.thaw()
        start = time.monotonic()
        try:
            reply = method(request, timeout=allowed_ms / 1000)
        except grpc.RpcError as e:
            raise self._fault(e, what, allowed_ms) from None
        spent = (time.monotonic() - start) * 1000
        self.freeze()
        if decision:
            self.timing.record(spent)
        if not pace:
            self.timing.bank_ms -= max(0.0, spent - free)
            return reply
        # Released at the free time plus whole paces, each paid from the bank: what the
        # others can time is a number of paces, never the bot's own time within one. Its
        # time runs until it is frozen: the next seat is asked only then (SeatedBot.thaw),
        # and a bot with many busy threads stops slowly.
        self.wait_frozen()
        spent = (time.monotonic() - start) * 1000
        over = pace * math.ceil(max(0.0, spent + PACE_MARGIN_MS - free) / pace)
        self.timing.bank_ms = max(0.0, self.timing.bank_ms - over)
        self.timing.held_ms += _hold_until(start + (free + over) / 1000)
        return reply

    def _fault(self, error: grpc.RpcError, what: str, allowed_ms: float) -> BotFault:
        code = error.code()
        details = error.details() or ""
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            return TimeoutFault(
                self.seat, self.label, f"no answer to {what} within {allowed_ms:.0f} ms"
            )
        if code == grpc.StatusCode.FAILED_PRECONDITION:  # the SDK refused an illegal answer
            return IllegalFault(self.seat, self.label, details)
        # The process may be dying: give the kernel a moment to tell us how.
        for _ in range(20):
            died = self.died()
            if died:
                return CrashFault(self.seat, self.label, f"{died} during {what}")
            time.sleep(0.01)
        if code in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN):
            return CrashFault(self.seat, self.label, f"raised during {what}: {details}")
        return ProtocolFault(self.seat, self.label, f"{code.name} on {what}: {details}")


def _hold_until(release: float) -> float:
    """Sleep until ``release`` (a time.monotonic() value); the ms slept."""
    held = release - time.monotonic()
    while (left := release - time.monotonic()) > 0:
        time.sleep(left)
    return max(0.0, held * 1000)


Message = TypeVar("Message", pb.BidResponse, pb.PlayResponse)


def _parse(kind: type[Message], raw: bytes) -> Message:
    try:
        return kind.FromString(raw)
    except DecodeError:
        shown = raw[:24].hex(" ") + (" ..." if len(raw) > 24 else "")
        raise AnswerError(f"malformed {kind.__name__} ({len(raw)} bytes: {shown})") from None
