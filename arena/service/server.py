"""``arena server``: the ladder's operations (``arena.league.api.LocalLadder``) over gRPC.

Every call is logged as one structured event (method, peer, status code, milliseconds).
Errors become status codes with the error's one-line message (see protos/arena/service/
v1/arena.proto). Each call counts against the server's limits (``limits.ServiceLimits``)
before it does anything. An upload is spooled to a private file and handed to ``submit``
only once it is whole; a server killed mid-upload leaves only its spool file, cleared at
the next start, and nothing in the database.
"""

from __future__ import annotations

import functools
import logging
import queue
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Generator, Iterator
from concurrent import futures
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import grpc

from arena.bots.submission import MAX_SUBMISSION_BYTES, SubmissionError
from arena.competition import ScheduleError
from arena.league.api import LocalLadder, NoResult
from arena.league.worker import WorkerConfig
from arena.read_model import LADDER
from arena.sandbox import SandboxError
from arena.store import (
    AuthError,
    Forbidden,
    MatchStatus,
    NameTaken,
    NotFound,
    StoreError,
    TooMany,
    Unavailable,
    User,
)

from . import convert
from .quotas import Gate, LimitReached, RateLimit, ServiceLimits
from .v1 import arena_pb2 as pb
from .v1 import arena_pb2_grpc as rpc

log = logging.getLogger("arena.server")
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".zip")
DEFAULT_LIMITS = ServiceLimits()
T = TypeVar("T")

# The first matching class decides the status code.
CODES: list[tuple[type[BaseException], grpc.StatusCode]] = [
    (LimitReached, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (TooMany, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (AuthError, grpc.StatusCode.UNAUTHENTICATED),
    (NotFound, grpc.StatusCode.NOT_FOUND),
    (NameTaken, grpc.StatusCode.PERMISSION_DENIED),
    (Forbidden, grpc.StatusCode.PERMISSION_DENIED),
    (Unavailable, grpc.StatusCode.UNAVAILABLE),
    (SandboxError, grpc.StatusCode.UNAVAILABLE),
    (NoResult, grpc.StatusCode.FAILED_PRECONDITION),
    (SubmissionError, grpc.StatusCode.INVALID_ARGUMENT),
    (ScheduleError, grpc.StatusCode.INVALID_ARGUMENT),
    (StoreError, grpc.StatusCode.INVALID_ARGUMENT),
    (ValueError, grpc.StatusCode.INVALID_ARGUMENT),
]


class Refused(Exception):
    """A request refused before reaching the ladder, with its status code."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def _rpc(method: Callable[..., T]) -> Callable[..., T]:
    """A unary call: logged; the ladder's errors become status codes with their message."""

    @functools.wraps(method)
    def call(self: ArenaService, request: Any, context: grpc.ServicerContext) -> T:
        started = time.perf_counter()
        code = grpc.StatusCode.OK
        try:
            with self.calls.hold(self.caller(context)):
                return method(self, request, context)
        except Exception as e:
            code, message = _status(e)
            context.abort(code, message)
        finally:
            _log_call(method.__name__, context, code, started)

    return call


def _stream(
    method: Callable[..., Generator[T, None, None]],
) -> Callable[..., Generator[T, None, None]]:
    """A server-streaming call: the same, for errors raised while the stream is read; a
    caller that goes away closes the stream (its ``finally`` clauses run)."""

    @functools.wraps(method)
    def call(
        self: ArenaService, request: Any, context: grpc.ServicerContext
    ) -> Generator[T, None, None]:
        started = time.perf_counter()
        code = grpc.StatusCode.OK
        items = method(self, request, context)
        try:
            with self.calls.hold(self.caller(context)):
                for item in items:
                    if not context.is_active():
                        code = grpc.StatusCode.CANCELLED
                        return
                    yield item
        except Exception as e:
            code, message = _status(e)
            context.abort(code, message)
        finally:
            items.close()
            _log_call(method.__name__, context, code, started)

    return call


def _status(e: Exception) -> tuple[grpc.StatusCode, str]:
    if isinstance(e, Refused):
        return e.code, str(e)
    for kind, code in CODES:
        if isinstance(e, kind):
            return code, " ".join(str(e).split())
    log.exception("internal error", extra={"event": "internal_error"})
    return grpc.StatusCode.INTERNAL, f"internal error: {type(e).__name__}"


def _log_call(
    method: str, context: grpc.ServicerContext, code: grpc.StatusCode, started: float
) -> None:
    log.info(
        "call",
        extra={
            "event": "call",
            "method": method,
            "peer": context.peer(),
            "code": code.name,
            "ms": round((time.perf_counter() - started) * 1000, 1),
        },
    )


def bearer_of(context: grpc.ServicerContext) -> str | None:
    for key, value in context.invocation_metadata():
        if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value.removeprefix("Bearer ").strip()
    return None


def token_of(context: grpc.ServicerContext) -> str:
    token = bearer_of(context)
    if token is None:
        raise Refused(
            grpc.StatusCode.UNAUTHENTICATED,
            "no token: this call needs authorization: Bearer <token>"
            " (the arena's operator gives you one)",
        )
    return token


def address_of(context: grpc.ServicerContext) -> str:
    """The caller's address without the port (``ipv4:1.2.3.4``, ``ipv6:[::1]``)."""
    return context.peer().rsplit(":", 1)[0]


def _parts(
    request_iterator: Iterator[pb.SubmitRequest],
    context: grpc.ServicerContext,
    limits: ServiceLimits,
) -> Iterator[pb.SubmitRequest]:
    """The upload's messages, read by a thread of their own so that a caller who stops
    sending is refused after ``upload_idle_s`` (``upload_total_s`` in all) instead of holding
    the call forever; the reader ends with the call."""
    inbox: queue.Queue[pb.SubmitRequest | BaseException | None] = queue.Queue(maxsize=4)

    def put(item: pb.SubmitRequest | BaseException | None) -> bool:
        while context.is_active():  # once the call has ended, nobody takes any more
            try:
                inbox.put(item, timeout=0.5)
                return True
            except queue.Full:
                continue
        return False

    def read() -> None:
        try:
            for part in request_iterator:
                if not put(part):
                    return
            put(None)
        except BaseException as e:  # the call ended (cancelled, or the server stopping)
            put(e)

    threading.Thread(target=read, name="upload-reader", daemon=True).start()
    ends = time.monotonic() + limits.upload_total_s
    while True:
        idle_ends = time.monotonic() + limits.upload_idle_s
        while True:
            if not context.is_active():
                raise Refused(grpc.StatusCode.CANCELLED, "the upload was cancelled")
            left = min(idle_ends, ends) - time.monotonic()
            if left <= 0:
                if time.monotonic() >= ends:
                    raise LimitReached(
                        f"upload took over {limits.upload_total_s:g} s (upload_total_s)"
                    )
                raise LimitReached(
                    f"upload sent nothing for {limits.upload_idle_s:g} s (upload_idle_s)"
                )
            try:
                part = inbox.get(timeout=min(left, 0.5))
                break
            except queue.Empty:
                continue
        if part is None and context.is_active():
            return
        if part is None or isinstance(part, BaseException):  # an end that is no end
            raise Refused(grpc.StatusCode.CANCELLED, "the upload was cancelled")
        yield part


class ArenaService(rpc.ArenaServicer):
    def __init__(self, ladder: LocalLadder, spool: Path, limits: ServiceLimits) -> None:
        self.ladder = ladder
        self.spool = spool
        self.limits = limits
        self.calls = Gate("calls", limits.max_calls, limits.max_calls_per_user)
        self.uploads = Gate("uploads", limits.max_uploads, limits.max_uploads_per_user)
        self.submits = RateLimit("submissions", limits.submits_per_hour, "submits_per_hour")
        self.compares = RateLimit("comparisons", limits.compares_per_hour, "compares_per_hour")
        self.token_creations = RateLimit(
            "token creations", limits.tokens_per_hour, "tokens_per_hour"
        )
        self.failed_auths = RateLimit(
            "failed authentications from your address",
            limits.failed_auths_per_hour,
            "failed_auths_per_hour",
        )

    def caller(self, context: grpc.ServicerContext) -> str:
        """Whom a call counts against: the user its token authenticates (however many
        tokens they hold), else its address. A token that fails counts against the address,
        which past its limit is refused before any token it sends is looked up."""
        address = "peer:" + address_of(context)
        token = bearer_of(context)
        if token is None:
            return address
        self.failed_auths.check(address)
        try:
            return "user:" + self.ladder.store.authenticate(token).name
        except AuthError:  # a call that needs no token goes on; one that does says why
            self.failed_auths.take(address)
            return address

    def _user(self, context: grpc.ServicerContext) -> tuple[str, User]:
        token = token_of(context)
        return token, self.ladder.store.authenticate(token)

    @_rpc
    def Submit(
        self, request_iterator: Iterator[pb.SubmitRequest], context: grpc.ServicerContext
    ) -> pb.SubmitResponse:
        token, user = self._user(context)  # refuse before reading the upload
        with self.uploads.hold(user.name):
            self.submits.take(user.name)
            return self._upload(token, _parts(request_iterator, context, self.limits))

    def _upload(
        self, token: str, request_iterator: Iterator[pb.SubmitRequest]
    ) -> pb.SubmitResponse:
        first = next(request_iterator, None)
        if first is None or first.WhichOneof("part") != "header":
            raise ValueError("an upload starts with its header (the bot's name and file name)")
        header = first.header
        if not header.filename.endswith(ARCHIVE_SUFFIXES):
            raise ValueError(
                f"{header.filename!r}: upload a .tar.gz, .tgz or .zip of the bot's directory"
            )
        with tempfile.TemporaryDirectory(prefix="upload-", dir=self.spool) as tmp:
            path = Path(tmp) / Path(header.filename).name
            size = 0
            with path.open("wb") as f:
                for part in request_iterator:
                    size += len(part.chunk)
                    if size > MAX_SUBMISSION_BYTES:
                        raise Refused(
                            grpc.StatusCode.RESOURCE_EXHAUSTED,
                            f"{header.filename}: over {MAX_SUBMISSION_BYTES >> 20} MiB",
                        )
                    f.write(part.chunk)
            done = self.ladder.submit(token, path, header.bot_name)
        return convert.submit_message(done)

    @_rpc
    def ListBots(
        self, request: pb.ListBotsRequest, context: grpc.ServicerContext
    ) -> pb.ListBotsResponse:
        versions = [convert.version_message(v) for v in self.ladder.versions()]
        return pb.ListBotsResponse(versions=versions)

    @_rpc
    def Ladder(self, request: pb.LadderRequest, context: grpc.ServicerContext) -> pb.LadderResponse:
        rows = self.ladder.standings(request.tournament or LADDER)
        return pb.LadderResponse(standings=[convert.standing_message(r) for r in rows])

    @_rpc
    def ListMatches(
        self, request: pb.ListMatchesRequest, context: grpc.ServicerContext
    ) -> pb.ListMatchesResponse:
        status = MatchStatus(request.status) if request.status else None
        rows = self.ladder.matches(request.tournament or LADDER, status, request.bot or None)
        return pb.ListMatchesResponse(matches=[convert.match_message(r) for r in rows])

    @_rpc
    def GetReplay(
        self, request: pb.GetReplayRequest, context: grpc.ServicerContext
    ) -> pb.GetReplayResponse:
        if request.HasField("validation"):
            ref = request.validation
            replay = self.ladder.validation_replay(ref.bot, ref.number)
        else:
            replay = self.ladder.replay(request.match_id, request.game)
        return convert.replay_message(replay)

    @_stream
    def GetLogs(
        self, request: pb.GetLogsRequest, context: grpc.ServicerContext
    ) -> Generator[pb.LogPart, None, None]:
        if request.HasField("validation"):
            ref = request.validation
            logs = self.ladder.validation_logs(token_of(context), ref.bot, ref.number)
        else:
            logs = self.ladder.logs(token_of(context), request.match_id)
        yield from convert.log_parts(logs)

    @_stream
    def GetCode(
        self, request: pb.GetCodeRequest, context: grpc.ServicerContext
    ) -> Generator[pb.CodePart, None, None]:
        yield from convert.code_parts(self.ladder.code(token_of(context), request.version))

    @_rpc
    def Status(self, request: pb.StatusRequest, context: grpc.ServicerContext) -> pb.StatusResponse:
        now = self.ladder.status(request.silent_after or WorkerConfig.silent_after_s)
        return convert.status_message(now)

    @_rpc
    def BotStatistics(
        self, request: pb.BotStatisticsRequest, context: grpc.ServicerContext
    ) -> pb.BotStatisticsResponse:
        found = self.ladder.bot_statistics(request.bot, request.tournament or LADDER)
        return convert.statistics_message(found)

    @_stream
    def Compare(
        self, request: pb.CompareRequest, context: grpc.ServicerContext
    ) -> Generator[pb.CompareUpdate, None, None]:
        token, user = self._user(context)
        self.compares.take(user.name)
        limits = self.limits
        asked = convert.compare_settings(request)
        settings = replace(
            asked,
            max_pairs=min(asked.max_pairs, limits.max_pairs),
            batch=min(asked.batch, limits.max_batch),
        )
        if asked.max_pairs > limits.max_pairs:
            capped = f"max pairs {asked.max_pairs} capped at {limits.max_pairs} by the server"
            yield convert.compare_update((capped, None))
        gone = threading.Event()  # the caller went away, or the server is stopping
        context.add_callback(gone.set)
        lines = self.ladder.compare(token, request.a, request.b, settings, stop=gone.is_set)
        yield from map(convert.compare_update, lines)

    @_rpc
    def ListTokens(
        self, request: pb.ListTokensRequest, context: grpc.ServicerContext
    ) -> pb.ListTokensResponse:
        infos = map(convert.token_message, self.ladder.tokens(token_of(context)))
        return pb.ListTokensResponse(tokens=infos)

    @_rpc
    def CreateToken(
        self, request: pb.CreateTokenRequest, context: grpc.ServicerContext
    ) -> pb.CreateTokenResponse:
        token, user = self._user(context)
        self.token_creations.take(user.name)
        made = self.ladder.create_token(token, request.name, request.expires_at or None)
        return pb.CreateTokenResponse(token=made)

    @_rpc
    def RevokeToken(
        self, request: pb.RevokeTokenRequest, context: grpc.ServicerContext
    ) -> pb.RevokeTokenResponse:
        self.ladder.revoke_token(token_of(context), request.name, request.user or None)
        return pb.RevokeTokenResponse()


@dataclass
class Serving:
    server: grpc.Server
    port: int
    service: ArenaService

    def stop(self, grace: float) -> bool:
        """Stop taking calls, cancel those still running after ``grace`` seconds; whether
        every call's handler has returned a second later (some, a validation game being
        played, notice only when done)."""
        self.server.stop(grace).wait()
        deadline = time.monotonic() + 1
        while self.service.calls.in_progress and time.monotonic() < deadline:
            time.sleep(0.05)
        return not self.service.calls.in_progress


def serve(
    address: str,
    ladder: LocalLadder,
    spool: Path,
    *,
    limits: ServiceLimits = DEFAULT_LIMITS,
    credentials: grpc.ServerCredentials | None = None,
) -> Serving:
    """Start serving on ``address`` (host:port; port 0 picks one), with TLS when given
    ``credentials``."""
    shutil.rmtree(spool, ignore_errors=True)  # half uploads of a server that was killed
    spool.mkdir(parents=True, exist_ok=True)
    # A thread for every call the limits let in, and a few to refuse the rest with their
    # message; past those gRPC refuses on its own (RESOURCE_EXHAUSTED) rather than queue.
    threads = limits.max_calls + 4
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=threads, thread_name_prefix="call"),
        maximum_concurrent_rpcs=threads,
    )
    service = ArenaService(ladder, spool, limits)
    rpc.add_ArenaServicer_to_server(service, server)
    if credentials is None:
        port = server.add_insecure_port(address)
    else:
        port = server.add_secure_port(address, credentials)
    if port == 0:
        raise ValueError(f"cannot listen on {address}")
    server.start()
    log.info(
        "serving",
        extra={"event": "serving", "address": address, "port": port, "tls": bool(credentials)},
    )
    return Serving(server, port, service)
