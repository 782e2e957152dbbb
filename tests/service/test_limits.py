"""The server's limits on tokens and callers (issue 24), over real gRPC against a real
``arena server``: a cap on a user's live tokens, token creation rate-limited, the per-user
call limit counted per user (not per token), and wrong tokens limited per address; and an
upload's hostile member names refused in one line."""

from __future__ import annotations

import threading
import zipfile
from pathlib import Path

import grpc
import pytest

from arena.service.v1 import arena_pb2 as pb
from arena.service.v1 import arena_pb2_grpc as rpc
from arena.store.tokens import MAX_LIVE_TOKENS
from tests.cli.runner import error_line

from .conftest import Service
from .test_internet import bearer, stalled_upload
from .test_service import wait_for

pytestmark = pytest.mark.postgres


def create(stub: rpc.ArenaStub, token: str, name: str) -> str:
    return stub.CreateToken(pb.CreateTokenRequest(name=name), metadata=bearer(token)).token


def refused(call: object) -> grpc.RpcError:
    assert callable(call)
    with pytest.raises(grpc.RpcError) as e:
        call()
    return e.value


def test_token_creation_is_rate_limited_and_live_tokens_capped(service: Service) -> None:
    service.kill_server()
    service.start_server("--tokens-per-hour", 3)
    with service.store() as store:
        ann = store.add_user("ann")
    with service.channel() as channel:
        stub = rpc.ArenaStub(channel)
        for n in range(3):
            create(stub, ann, f"t{n}")
        e = refused(lambda: create(stub, ann, "t3"))
        assert e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert str(e.details()).startswith(
            "at most 3 token creations per hour (tokens_per_hour): try again in "
        )
    service.kill_server()
    service.start_server("--tokens-per-hour", 100)
    with service.channel() as channel:
        stub = rpc.ArenaStub(channel)
        for n in range(3, MAX_LIVE_TOKENS - 1):  # "first" and t0..t2 before
            create(stub, ann, f"t{n}")
        with service.store() as store:
            rows = len(store.tokens(store.authenticate(ann)))
        assert rows == MAX_LIVE_TOKENS
        e = refused(lambda: create(stub, ann, "one-too-many"))
        assert e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert e.details() == (
            f"you have {MAX_LIVE_TOKENS} live tokens, the most a user may have"
            f" ({MAX_LIVE_TOKENS}): revoke one first (arena token list, arena token revoke NAME)"
        )
        with service.store() as store:
            assert len(store.tokens(store.authenticate(ann))) == MAX_LIVE_TOKENS  # none added
    # The CLI says it in one line; revoking one makes room.
    line = error_line(service.arena("token", "create", "cli", "--token", ann))
    assert line.startswith(f"error: you have {MAX_LIVE_TOKENS} live tokens")
    assert service.arena("token", "revoke", "t0", "--token", ann).returncode == 0
    assert service.arena("token", "create", "cli", "--token", ann).returncode == 0


def test_the_per_user_call_limit_counts_the_user_however_many_tokens(service: Service) -> None:
    service.kill_server()
    service.start_server("--max-calls-per-user", 2, "--max-uploads-per-user", 8)
    with service.store() as store:
        ann, bob = store.add_user("ann"), store.add_user("bob")
        user = store.authenticate(ann)
        tokens = [ann] + [store.create_token(user, f"t{n}") for n in range(3)]
    release = threading.Event()
    failures: list[grpc.RpcError] = []
    with service.channel() as channel:
        stub = rpc.ArenaStub(channel)
        threads = [
            threading.Thread(target=lambda t=t: failures.append(stalled_upload(stub, t, release)))
            for t in tokens
        ]
        for thread in threads:
            thread.start()
        wait_for(lambda: len(failures) >= 2, 30, "the refusals")
        assert [e.details() for e in failures] == [
            "you have your limit of 2 calls in progress (max_calls_per_user): wait for one to end"
        ] * 2  # four tokens, one user: two calls
        # Another user is served meanwhile.
        assert stub.ListTokens(pb.ListTokensRequest(), metadata=bearer(bob), timeout=30)
        release.set()
        for thread in threads:
            thread.join(timeout=60)


def test_wrong_tokens_are_limited_per_address(service: Service) -> None:
    service.kill_server()
    service.start_server("--failed-auths-per-hour", 3)
    with service.store() as store:
        ann = store.add_user("ann")
    with service.channel() as channel:
        stub = rpc.ArenaStub(channel)
        for n in range(3):
            e = refused(
                lambda n=n: stub.ListTokens(pb.ListTokensRequest(), metadata=bearer(f"bogus{n}"))
            )
            assert (e.code(), e.details()) == (grpc.StatusCode.UNAUTHENTICATED, "wrong token")
        # Past the limit this address's tokens are not even looked up, right or wrong ...
        for token in ("bogus", ann):
            e = refused(lambda t=token: stub.ListTokens(pb.ListTokensRequest(), metadata=bearer(t)))
            assert e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert str(e.details()).startswith(
                "at most 3 failed authentications from your address per hour"
                " (failed_auths_per_hour): try again in "
            )
        # ... while what needs no token is still served.
        assert list(stub.ListBots(pb.ListBotsRequest(), timeout=30).versions) == []


@pytest.mark.parametrize(
    ("member", "problem"),
    [
        ("a/" * 1900 + "x.py", "is 1901 levels deep, over the limit of 32"),
        ("n" * 300 + ".py", "has a name over 255 bytes"),
        ("evil\x1b[2J\n.py", "has a character that is not printable"),
        ("Bot.py", "is the same as 'bot.py' on a case-insensitive or normalising file system"),
    ],
)
def test_the_server_refuses_hostile_member_names_in_one_line_without_its_paths(
    service: Service, tmp_path: Path, member: str, problem: str
) -> None:
    """Issue 24, through the server: INVALID_ARGUMENT, the member named (escaped, cut), no
    path of the server's (its spool, its temporary directories); nothing stored."""
    with service.store() as store:
        ann = store.add_user("ann")
    archive = tmp_path / "hostile.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("bot.py", b"print(1)\n")
        zf.writestr(member, b"")
    line = error_line(service.arena("submit", archive, "--name", "hostile", "--token", ann))
    assert line.startswith("error: hostile.zip: member '") and problem in line, line
    assert str(service.root) not in line and "/tmp" not in line and "upload-" not in line
    with service.store() as store:
        assert store.bots() == []
