"""``arena server``: the ladder's operations (``arena.league.api.LocalLadder``) over gRPC.

Every call is logged as one structured event (method, peer, status code, milliseconds).
Errors become status codes with the error's one-line message (see protos/arena/service/
v1/arena.proto). An upload is spooled to a private file and handed to ``submit`` only once
it is whole; a server killed mid-upload leaves only its spool file, cleared at the next
start, and nothing in the database.
"""

from __future__ import annotations

import functools
import json
import logging
import shutil
import tempfile
import time
from collections.abc import Callable, Generator, Iterator
from concurrent import futures
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar

import grpc

from arena.ladder import ScheduleError
from arena.league.api import LocalLadder, NoResult
from arena.league.compare import CompareSettings
from arena.league.worker import WorkerConfig
from arena.sandbox import SandboxError
from arena.store import AuthError, MatchStatus, NameTaken, NotFound, StoreError, Unavailable
from arena.submission import MAX_SUBMISSION_BYTES, SubmissionError

from .convert import standing_message, version_message
from .v1 import arena_pb2 as pb
from .v1 import arena_pb2_grpc as rpc

log = logging.getLogger("arena.server")
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".zip")
T = TypeVar("T")

# The first matching class decides the status code.
CODES: list[tuple[type[BaseException], grpc.StatusCode]] = [
    (AuthError, grpc.StatusCode.UNAUTHENTICATED),
    (NotFound, grpc.StatusCode.NOT_FOUND),
    (NameTaken, grpc.StatusCode.PERMISSION_DENIED),
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


def token_of(context: grpc.ServicerContext) -> str:
    for key, value in context.invocation_metadata():
        if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value.removeprefix("Bearer ").strip()
    raise Refused(
        grpc.StatusCode.UNAUTHENTICATED, "no token: this call needs authorization: Bearer <token>"
    )


class ArenaService(rpc.ArenaServicer):
    def __init__(self, ladder: LocalLadder, spool: Path) -> None:
        self.ladder = ladder
        self.spool = spool

    @_rpc
    def Submit(
        self, request_iterator: Iterator[pb.SubmitRequest], context: grpc.ServicerContext
    ) -> pb.SubmitResponse:
        token = token_of(context)
        self.ladder.store.authenticate(token)  # refuse before reading the upload
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
        return pb.SubmitResponse(
            version=version_message(done.version), new=done.new, scheduled=done.scheduled
        )

    @_rpc
    def ListBots(
        self, request: pb.ListBotsRequest, context: grpc.ServicerContext
    ) -> pb.ListBotsResponse:
        return pb.ListBotsResponse(versions=[version_message(v) for v in self.ladder.versions()])

    @_rpc
    def Ladder(self, request: pb.LadderRequest, context: grpc.ServicerContext) -> pb.LadderResponse:
        rows = self.ladder.standings(request.tournament or "ladder")
        return pb.LadderResponse(standings=[standing_message(r) for r in rows])

    @_rpc
    def ListMatches(
        self, request: pb.ListMatchesRequest, context: grpc.ServicerContext
    ) -> pb.ListMatchesResponse:
        status = MatchStatus(request.status) if request.status else None
        rows = self.ladder.matches(request.tournament or "ladder", status)
        return pb.ListMatchesResponse(matches=[pb.MatchRow(**asdict(r)) for r in rows])

    @_rpc
    def GetReplay(
        self, request: pb.GetReplayRequest, context: grpc.ServicerContext
    ) -> pb.GetReplayResponse:
        replay = self.ladder.replay(request.match_id, request.game)
        return pb.GetReplayResponse(replay_json=json.dumps(replay))

    @_rpc
    def GetLogs(
        self, request: pb.GetLogsRequest, context: grpc.ServicerContext
    ) -> pb.GetLogsResponse:
        logs = self.ladder.logs(request.match_id)
        return pb.GetLogsResponse(logs=[pb.BotLog(**asdict(entry)) for entry in logs])

    @_rpc
    def Status(self, request: pb.StatusRequest, context: grpc.ServicerContext) -> pb.StatusResponse:
        now = self.ladder.status(request.silent_after or WorkerConfig.silent_after_s)
        return pb.StatusResponse(status_json=json.dumps(now.as_json()))

    @_stream
    def Compare(
        self, request: pb.CompareRequest, context: grpc.ServicerContext
    ) -> Generator[pb.CompareUpdate, None, None]:
        token = token_of(context)
        settings = CompareSettings(
            seed=request.seed,
            elo0=request.elo0,
            elo1=request.elo1,
            alpha=request.alpha,
            beta=request.beta,
            max_pairs=request.max_pairs,
            pentanomial=request.pentanomial,
            batch=request.batch or CompareSettings.batch,
        )
        for line, verdict in self.ladder.compare(token, request.a, request.b, settings):
            yield pb.CompareUpdate(line=line, verdict=verdict or "")


def serve(address: str, ladder: LocalLadder, spool: Path, *, threads: int = 16) -> grpc.Server:
    """Start serving on ``address`` (host:port; port 0 picks one: ``server.port``)."""
    shutil.rmtree(spool, ignore_errors=True)  # half uploads of a server that was killed
    spool.mkdir(parents=True, exist_ok=True)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=threads))
    rpc.add_ArenaServicer_to_server(ArenaService(ladder, spool), server)
    port = server.add_insecure_port(address)
    if port == 0:
        raise ValueError(f"cannot listen on {address}")
    server.start()
    server.port = port  # type: ignore[attr-defined]
    log.info("serving", extra={"event": "serving", "address": address, "port": port})
    return server
