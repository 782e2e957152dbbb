"""The server as the open internet meets it: TLS, logs only to their owners, limits that one
user cannot exhaust for the others, a comparison that ends with its caller, and a SIGTERM
that stops it whatever is in flight. Bots: the quick sample ``random``."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.bots.submission import content_hash, pack
from arena.league.stored_files import code_key
from arena.league.submit import settle
from arena.service.v1 import arena_pb2 as pb
from arena.service.v1 import arena_pb2_grpc as rpc
from arena.store import MatchStatus, TournamentKind
from tests.cli.runner import arena_executable, error_line

from .certs import make_certs
from .conftest import Service
from .test_service import all_done, bot_copy, wait_for

pytestmark = pytest.mark.postgres


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def active_version(service: Service, token: str, name: str, code: Path) -> None:
    """An active version of the user's bot with its ladder matches scheduled, as a passed
    submission leaves it, without playing its validation game (tests/league plays those)."""
    with service.store() as store:
        user = store.authenticate(token)
        digest = content_hash(code)
        version = store.add_version(user, name, digest, code_key(digest), pack(code))
        assert version.id is not None
        settle(store, version.id, None)


def test_tls_with_the_tests_ca_and_a_clear_line_for_every_mismatch(
    service: Service, tmp_path: Path
) -> None:
    assert service.arena("bots").returncode == 0  # ARENA_TLS_CA: the test's CA
    plaintext = service.arena("bots", "--plaintext")
    assert error_line(plaintext) == (
        f"error: server {service.address} does not answer in plaintext: does it speak TLS? "
        "(drop --plaintext, and give --tls-ca FILE unless its certificate is public)"
    )
    stranger = make_certs(tmp_path / "other", "another CA")
    untrusted = service.arena("bots", "--tls-ca", stranger.ca)
    assert error_line(untrusted) == (
        f"error: server {service.address}: TLS failed "
        "(its certificate is not signed by a trusted CA: pass --tls-ca FILE)"
    )
    missing = service.arena("bots", "--tls-ca", tmp_path / "nothing.pem")
    assert error_line(missing).startswith("error: cannot read the TLS CA file ")
    # A server without a certificate (loopback only, by default) speaks plaintext only.
    bare = Service(service.url, tmp_path / "bare", service.certs)
    bare.root.mkdir()
    bare.server = bare._spawn("server", "server", "--listen", bare.address)
    try:
        wait_for(lambda: bare.arena("bots", "--plaintext").returncode == 0, 60, "the server")
        tls = bare.arena("bots")
        assert error_line(tls) == (
            f"error: server {bare.address}: TLS failed "
            "(the server does not speak TLS: pass --plaintext if it is on loopback)"
        )
    finally:
        bare.stop()
    half = service.local("server", "--tls-cert", service.certs.cert)
    assert error_line(half) == "error: --tls-cert and --tls-key go together"


def big_talker(dest: Path, name: str) -> Path:
    """The sample random bot, which first writes almost 1 MiB (the cap) to stderr: eight
    of its logs make 8 MB, past gRPC's 4 MiB per message."""
    bot_copy("random", dest, name)
    code = (dest / "bot.py").read_text()
    main = 'if __name__ == "__main__":\n'
    talk = "    import sys\n\n    sys.stderr.write('x' * 1_000_000 + '\\n')\n"
    (dest / "bot.py").write_text(code.replace(main, main + talk))
    return dest


def test_logs_only_to_their_owner_and_to_operators(service: Service, tmp_path: Path) -> None:
    with service.store() as store:
        ann, bob, carol = (store.add_user(name) for name in ("ann", "bob", "carol"))
    boss = service.local("user", "add", "boss", "--operator").stdout.strip()
    for name, token in (("annbot", ann), ("bobbot", bob)):
        active_version(service, token, name, big_talker(tmp_path / name, name))
    service.start_worker("w1")
    wait_for(lambda: all_done(service, 1), 300, "the match")

    no_token = service.arena("logs", "1", "annbot")
    assert error_line(no_token).startswith("error: no token: pass --token or set ARENA_TOKEN")
    with service.channel() as channel:
        stub = rpc.ArenaStub(channel)
        for metadata, code in (
            ((), grpc.StatusCode.UNAUTHENTICATED),
            (bearer("wrong"), grpc.StatusCode.UNAUTHENTICATED),
            (bearer(carol), grpc.StatusCode.PERMISSION_DENIED),
        ):
            with pytest.raises(grpc.RpcError) as refused:
                list(stub.GetLogs(pb.GetLogsRequest(match_id=1), metadata=metadata, timeout=30))
            assert refused.value.code() == code
        parts = list(stub.GetLogs(pb.GetLogsRequest(match_id=1), metadata=bearer(boss)))
        assert max(part.ByteSize() for part in parts) < 300_000
    assert error_line(service.arena("logs", "1", "annbot", "--token", carol)) == (
        "error: match 1 has none of your bots: its logs are their owners'"
    )
    # ann reads her bot's two seats in both games, and nothing of bob's.
    mine = service.arena("logs", "1", "annbot", "--token", ann)
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout.count("== game") == 4 and mine.stdout.count("x" * 1_000_000) == 4
    assert "bobbot" not in mine.stdout
    theirs = service.arena("logs", "1", "bobbot", "--token", ann)
    assert error_line(theirs) == (
        "error: match 1 has no bot 'bobbot' whose logs you may read: annbot v1"
    )
    # The operator reads all eight, 8 MB in all, the same through the server as locally.
    remote = service.arena("logs", "1", "bobbot", "--token", boss)
    local = service.local("logs", "1", "bobbot", "--token", boss)
    assert remote.returncode == local.returncode == 0, remote.stderr
    assert remote.stdout == local.stdout
    assert remote.stdout.count("x" * 1_000_000) == 4


def stalled_upload(stub: rpc.ArenaStub, token: str, release: threading.Event) -> grpc.RpcError:
    """An upload that sends its header and then nothing until ``release``: how it failed."""

    def parts() -> Iterator[pb.SubmitRequest]:
        yield pb.SubmitRequest(header=pb.SubmitHeader(bot_name="slow", filename="slow.tar.gz"))
        release.wait()

    try:
        stub.Submit(parts(), metadata=bearer(token), timeout=120)
    except grpc.RpcError as e:
        return e
    raise AssertionError("a stalled upload was accepted")


def test_sixteen_stalled_uploads_do_not_stop_another_users_calls(
    service: Service, tmp_path: Path
) -> None:
    service.kill_server()
    service.start_server("--upload-idle-s", 20, "--submits-per-hour", 3)
    with service.store() as store:
        ann, bob = store.add_user("ann"), store.add_user("bob")
    release = threading.Event()
    failures: list[grpc.RpcError] = []
    with service.channel() as channel:
        stub = rpc.ArenaStub(channel)
        threads = [
            threading.Thread(target=lambda: failures.append(stalled_upload(stub, ann, release)))
            for _ in range(16)
        ]
        for thread in threads:
            thread.start()
        # All but the two uploads ann may have in progress are refused at once ...
        wait_for(lambda: len(failures) >= 14, 30, "the refusals")
        # ... and while her two wait, others are served: bob reads and submits.
        assert error_line(service.arena("ladder")) == (
            "error: the ladder is empty: no bot has been submitted yet (arena submit)"
        )
        assert list(stub.ListBots(pb.ListBotsRequest(), timeout=30).versions) == []
        upload = [
            pb.SubmitRequest(header=pb.SubmitHeader(bot_name="b", filename="b.tar.gz")),
            pb.SubmitRequest(chunk=b"not a tarball"),
        ]
        with pytest.raises(grpc.RpcError) as broken:
            stub.Submit(iter(upload), metadata=bearer(bob), timeout=30)
        assert broken.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert len(failures) == 14  # hers were still waiting meanwhile
        for thread in threads:
            thread.join(timeout=60)
        release.set()
    assert {e.code() for e in failures} == {grpc.StatusCode.RESOURCE_EXHAUSTED}
    limits = {
        "you have your limit of 2 uploads in progress (max_uploads_per_user): wait for one to end",
        "you have your limit of 8 calls in progress (max_calls_per_user): wait for one to end",
    }
    assert {e.details() for e in failures[:14]} <= limits
    # The two stalled ones are refused once idle for --upload-idle-s.
    assert [e.details() for e in failures[14:]] == [
        "upload sent nothing for 20 s (upload_idle_s)"
    ] * 2
    # Two stalled uploads and a third refused as empty: ann's fourth in the hour is refused.
    with service.channel() as channel, pytest.raises(grpc.RpcError) as empty:
        header = pb.SubmitRequest(header=pb.SubmitHeader(bot_name="a", filename="a.zip"))
        rpc.ArenaStub(channel).Submit(iter([header]), metadata=bearer(ann), timeout=30)
    assert empty.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    code = bot_copy("random", tmp_path / "annbot")
    fourth = service.arena("submit", code, "--name", "annbot", "--token", ann)
    assert error_line(fourth).startswith(
        "error: at most 3 submissions per hour (submits_per_hour): try again in "
    )
    assert list((service.root / "server" / "spool").iterdir()) == []


def compare_counts(service: Service) -> dict[MatchStatus, int]:
    with service.store() as store:
        (compare,) = [t for t in store.tournaments() if t.kind == TournamentKind.COMPARE]
        assert compare.id is not None
        return store.status_counts(compare.id)


def test_a_huge_compare_is_capped_and_cancelled_when_its_client_goes(
    service: Service, tmp_path: Path
) -> None:
    service.kill_server()
    service.start_server("--max-pairs", 100, "--max-batch", 4)
    with service.store() as store:
        ann = store.add_user("ann")
    for name in ("a", "b"):
        active_version(service, ann, name, bot_copy("random", tmp_path / name, name))
    env = os.environ | {"NO_COLOR": "1", "ARENA_TOKEN": ann, "ARENA_SERVER": service.address}
    env |= {"ARENA_TLS_CA": str(service.certs.ca)}
    client = subprocess.Popen(
        [str(arena_executable()), "compare", "a", "b", "--max-pairs", "200000", "--seed", "1"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert client.stdout is not None
        assert client.stdout.readline() == "max pairs 200000 capped at 100 by the server\n"
        assert client.stdout.readline().startswith("compare: A = a v1 · B = b v1")
        wait_for(lambda: compare_counts(service)[MatchStatus.QUEUED] == 4, 30, "the batch")
    finally:
        client.kill()  # the client goes away without a word
        client.wait()
    wait_for(lambda: compare_counts(service)[MatchStatus.QUEUED] == 0, 30, "the cancellation")
    assert compare_counts(service)[MatchStatus.CANCELLED] == 4


def test_sigterm_stops_the_server_within_its_grace(service: Service, tmp_path: Path) -> None:
    with service.store() as store:
        ann = store.add_user("ann")
    for name in ("a", "b"):
        active_version(service, ann, name, bot_copy("random", tmp_path / name, name))
    release = threading.Event()
    failures: list[grpc.RpcError] = []
    with service.channel() as channel:
        stub = rpc.ArenaStub(channel)
        upload = threading.Thread(
            target=lambda: failures.append(stalled_upload(stub, ann, release))
        )
        upload.start()
        compare = stub.Compare(
            pb.CompareRequest(a="a", b="b", elo1=20, alpha=0.05, beta=0.05, max_pairs=10),
            metadata=bearer(ann),
        )
        assert next(compare).line.startswith("compare: ")  # then it waits: there is no worker
        assert service.server is not None
        service.server.send_signal(signal.SIGTERM)
        service.server.wait(timeout=30)  # the grace is 1 s
        release.set()
        upload.join()
    assert service.server.returncode == 0
    assert failures and failures[0].code() in (
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.CANCELLED,
    )
    assert compare_counts(service)[MatchStatus.QUEUED] == 0


def test_a_user_makes_lists_and_revokes_tokens_through_the_server(service: Service) -> None:
    ann = service.local("user", "add", "ann").stdout.strip()
    with service.store() as store:
        bob = store.add_user("bob")
        boss = store.add_user("boss", operator=True)
    made = service.arena("token", "create", "laptop", "--expires-in-days", 1, "--token", ann)
    assert made.returncode == 0, made.stderr
    laptop = made.stdout.strip()
    listed = service.arena("token", "list", "--token", laptop)
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[1] for line in listed.stdout.splitlines() if "UTC" in line] == [
        "first",
        "laptop",
    ]
    assert ann not in listed.stdout and laptop not in listed.stdout
    assert error_line(
        service.arena("token", "revoke", "first", "--user", "ann", "--token", bob)
    ) == ("error: only an operator revokes another user's tokens")
    assert service.arena("token", "revoke", "laptop", "--token", ann).returncode == 0
    assert error_line(service.arena("token", "list", "--token", laptop)) == "error: wrong token"
    revoked = service.arena("token", "revoke", "first", "--user", "ann", "--token", boss)
    assert revoked.stdout == "token first of ann revoked\n"
    assert error_line(service.arena("token", "list", "--token", ann)) == "error: wrong token"
    assert error_line(service.arena("token", "list")).startswith(
        "error: no token: pass --token or set ARENA_TOKEN (the arena's operator"
    )
