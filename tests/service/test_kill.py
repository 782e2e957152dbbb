"""Kill the server while workers play and while an upload is in flight, then restart it: no
match is lost or doubled, the half-uploaded version does not exist, a retried upload works."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.bots.submission import pack
from arena.service.v1 import arena_pb2 as pb
from arena.service.v1 import arena_pb2_grpc as rpc
from arena.store import MatchStatus

from .conftest import Service
from .test_service import bot_copy, ladder_counts, pending_line, settled, wait_for

pytestmark = pytest.mark.postgres


def test_killing_the_server_loses_nothing(service: Service, tmp_path: Path) -> None:
    token = service.local("user", "add", "ann").stdout.strip()
    for name, sample in (("r1", "random"), ("h1", "heuristic"), ("r2", "random")):
        done = service.arena(
            "submit", bot_copy(sample, tmp_path / name, name), "--name", name, "--token", token
        )
        assert done.returncode == 0, done.stderr
    service.start_worker("w1")
    service.start_worker("w2")
    settled(service, ["r1", "h1", "r2"])
    wait_for(lambda: ladder_counts(service)[MatchStatus.RUNNING] > 0, 60, "a running match")

    # An upload that stops halfway: the header and half the archive, then the server dies.
    archive = pack(bot_copy("heuristic", tmp_path / "late", "late"))
    half = threading.Event()
    failure: list[grpc.RpcError] = []

    def parts() -> Iterator[pb.SubmitRequest]:
        yield pb.SubmitRequest(header=pb.SubmitHeader(bot_name="late", filename="late.tar.gz"))
        yield pb.SubmitRequest(chunk=archive[: len(archive) // 2])
        half.set()
        time.sleep(30)  # the server is killed meanwhile
        yield pb.SubmitRequest(chunk=archive[len(archive) // 2 :])

    def upload() -> None:
        with service.channel() as channel:
            try:
                rpc.ArenaStub(channel).Submit(
                    parts(), metadata=(("authorization", f"Bearer {token}"),), timeout=60
                )
            except grpc.RpcError as e:
                failure.append(e)

    uploading = threading.Thread(target=upload)
    uploading.start()
    assert half.wait(30)
    time.sleep(1)  # the half has reached the server's spool
    spool = service.root / "server" / "spool"
    assert [p.name for p in spool.iterdir()], "the upload is not being spooled"
    service.kill_server()
    uploading.join()
    assert failure and failure[0].code() == grpc.StatusCode.UNAVAILABLE

    with service.store() as store:
        assert [b.name for b in store.bots()] == ["h1", "r1", "r2"]
    service.start_server()  # the spool is cleared as it starts
    assert list(spool.iterdir()) == []
    retried = service.arena("submit", tmp_path / "late", "--name", "late", "--token", token)
    assert retried.returncode == 0, retried.stderr
    assert retried.stdout == pending_line("late")
    assert settled(service, ["late"])["late"]["status"] == "active"

    # The workers never noticed: every match played once, none lost, none doubled.
    wait_for(lambda: ladder_counts(service)[MatchStatus.DONE] == 6, 400, "every match")
    with service.store() as store:
        ladder = store.tournament("ladder")
        assert ladder.id is not None
        matches = store.matches(ladder.id)
        history = store.rating_history(ladder.id)
    assert [m.status for m in matches] == [MatchStatus.DONE] * 6
    assert all(m.attempts == 0 and m.lease == 1 for m in matches)  # claimed once, played once
    assert sorted(h.match_id for h in history) == sorted(
        m.id for m in matches for _ in range(2) if m.id is not None
    )
