"""``RemoteLadder``: the ladder's operations (``arena.league.api.Ladder``) on an ``arena
server``, so ``arena --server HOST:PORT ...`` runs the same commands as locally.

A failed call raises ``RemoteError`` with the server's one-line message (or, when nothing
answers or the two ends disagree about TLS, one naming the address). The channel speaks TLS
unless told otherwise (``arena.service.tls``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc

from arena.bots import submission
from arena.engine.replay import Replay
from arena.read_model import (
    BotLog,
    BotStatistics,
    CompareLine,
    CompareSettings,
    MatchRow,
    MatchStatus,
    Standing,
    Status,
    StoredCode,
    SubmitOutcome,
    TokenRow,
    VersionRow,
)

from . import convert
from .tls import ClientTls, client_channel
from .v1 import arena_pb2 as pb
from .v1 import arena_pb2_grpc as rpc

CHUNK = 64 * 1024
QUERY_S = 60.0  # deadline of a read
SUBMIT_S = 900.0  # an upload and its validation game


class RemoteError(Exception):
    """A call the server refused, or a server that does not answer. One line."""

    def __init__(self, message: str, code: grpc.StatusCode | None = None) -> None:
        super().__init__(" ".join(message.split()))
        self.code = code


class RemoteLadder:
    def __init__(self, address: str, tls: ClientTls) -> None:
        self.address = address
        self.tls = tls
        self.channel = client_channel(address, tls)
        self.stub = rpc.ArenaStub(self.channel)

    def close(self) -> None:
        self.channel.close()

    def submit(self, token: str, path: Path, name: str) -> SubmitOutcome:
        if path.is_dir():
            data, filename = submission.pack(path), f"{name}.tar.gz"
        elif path.is_file():
            data, filename = path.read_bytes(), path.name
        else:
            raise submission.SubmissionError(f"{path}: no such file or directory")

        def parts() -> Iterator[pb.SubmitRequest]:
            yield pb.SubmitRequest(header=pb.SubmitHeader(bot_name=name, filename=filename))
            for at in range(0, len(data), CHUNK):
                yield pb.SubmitRequest(chunk=data[at : at + CHUNK])

        reply = self._call(self.stub.Submit, parts(), token=token, timeout=SUBMIT_S)
        return convert.submit_outcome(reply)

    def versions(self) -> list[VersionRow]:
        reply = self._call(self.stub.ListBots, pb.ListBotsRequest())
        return [convert.version_row(v) for v in reply.versions]

    def standings(self, tournament: str) -> list[Standing]:
        reply = self._call(self.stub.Ladder, pb.LadderRequest(tournament=tournament))
        return [convert.standing_row(s) for s in reply.standings]

    def matches(
        self, tournament: str, status: MatchStatus | None, bot: str | None = None
    ) -> list[MatchRow]:
        request = pb.ListMatchesRequest(tournament=tournament, status=status or "", bot=bot or "")
        reply = self._call(self.stub.ListMatches, request)
        return [convert.match_row(m) for m in reply.matches]

    def replay(self, match_id: int, game: int) -> Replay:
        request = pb.GetReplayRequest(match_id=match_id, game=game)
        return convert.replay_of(self._call(self.stub.GetReplay, request))

    def validation_replay(self, bot: str, number: int) -> Replay:
        request = pb.GetReplayRequest(validation=convert.version_ref(bot, number))
        return convert.replay_of(self._call(self.stub.GetReplay, request))

    def logs(self, token: str, match_id: int) -> list[BotLog]:
        return self._logs(token, pb.GetLogsRequest(match_id=match_id))

    def validation_logs(self, token: str, bot: str, number: int) -> list[BotLog]:
        ref = convert.version_ref(bot, number)
        return self._logs(token, pb.GetLogsRequest(validation=ref))

    def _logs(self, token: str, request: pb.GetLogsRequest) -> list[BotLog]:
        try:
            parts = self.stub.GetLogs(request, timeout=QUERY_S, metadata=_auth(token))
            return convert.logs_of(parts)
        except grpc.RpcError as e:
            raise self._error(e) from None

    def code(self, token: str, version: str) -> StoredCode:
        request = pb.GetCodeRequest(version=version)
        try:
            parts = self.stub.GetCode(request, timeout=QUERY_S, metadata=_auth(token))
            return convert.stored_code(parts)
        except grpc.RpcError as e:
            raise self._error(e) from None

    def status(self, silent_after: float) -> Status:
        reply = self._call(self.stub.Status, pb.StatusRequest(silent_after=silent_after))
        return convert.status_of(reply)

    def bot_statistics(self, bot: str, tournament: str) -> BotStatistics:
        request = pb.BotStatisticsRequest(bot=bot, tournament=tournament)
        reply = self._call(self.stub.BotStatistics, request)
        return convert.statistics_of(reply)

    def tokens(self, token: str) -> list[TokenRow]:
        reply = self._call(self.stub.ListTokens, pb.ListTokensRequest(), token=token)
        return [convert.token_row(t) for t in reply.tokens]

    def create_token(self, token: str, name: str, expires_at: float | None) -> str:
        request = pb.CreateTokenRequest(name=name, expires_at=expires_at or 0)
        made: str = self._call(self.stub.CreateToken, request, token=token).token
        return made

    def revoke_token(self, token: str, name: str, user: str | None) -> None:
        request = pb.RevokeTokenRequest(name=name, user=user or "")
        self._call(self.stub.RevokeToken, request, token=token)

    def compare(
        self, token: str, a: str, b: str, settings: CompareSettings
    ) -> Iterator[CompareLine]:
        request = convert.compare_request(a, b, settings)
        stream = self.stub.Compare(request, metadata=_auth(token))
        try:
            for update in stream:
                yield convert.compare_line(update)
        except grpc.RpcError as e:
            raise self._error(e) from None
        finally:
            stream.cancel()  # a reader that stops early cancels the comparison's queued rest

    def _call(
        self, method: Any, request: Any, *, token: str | None = None, timeout: float = QUERY_S
    ) -> Any:
        try:
            return method(request, timeout=timeout, metadata=_auth(token) if token else None)
        except grpc.RpcError as e:
            raise self._error(e) from None

    def _error(self, e: grpc.RpcError) -> RemoteError:
        code: grpc.StatusCode = e.code()
        details: str = e.details() or code.name
        lowered = details.lower()
        if code == grpc.StatusCode.UNAVAILABLE and "failed to connect" in lowered:
            if "ssl" in lowered or "handshake" in lowered or "certificate" in lowered:
                return RemoteError(f"server {self.address}: TLS failed ({_tls_why(details)})", code)
            if not self.tls.plaintext:
                return RemoteError(f"server {self.address} does not answer", code)
        if code == grpc.StatusCode.UNAVAILABLE and self.tls.plaintext:
            return RemoteError(
                f"server {self.address} does not answer in plaintext: does it speak TLS? "
                "(drop --plaintext, and give --tls-ca FILE unless its certificate is public)",
                code,
            )
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            return RemoteError(f"server {self.address} did not answer in time", code)
        return RemoteError(details, code)


def _tls_why(details: str) -> str:
    """The end of gRPC's handshake error: what OpenSSL said, without the address list."""
    why = details.rsplit(":", 1)[-1].strip()
    if "WRONG_VERSION_NUMBER" in details:
        return "the server does not speak TLS: pass --plaintext if it is on loopback"
    if "CERTIFICATE_VERIFY_FAILED" in details:
        return "its certificate is not signed by a trusted CA: pass --tls-ca FILE"
    return why or details


def _auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)
