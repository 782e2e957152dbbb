"""Validation games on the workers: ``arena server`` with no Docker engine and no sandbox
stores a submission as pending; a worker plays its validation game and makes it active
(scheduled on the ladder) or rejected (the reason naming where it faulted); the rejected
version's replay and logs are read back through the server, the logs by their owner only."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest

from arena.service.v1 import arena_pb2 as pb
from arena.service.v1 import arena_pb2_grpc as rpc
from tests.author.bots import RAISES_IN_DEAL_2, write_bot
from tests.cli.runner import error_line

from .conftest import Service
from .test_service import all_done, bot_copy, pending_line, settled, wait_for

pytestmark = pytest.mark.postgres


def test_the_workers_validate_what_a_server_without_a_sandbox_accepts(
    service: Service, tmp_path: Path
) -> None:
    service.kill_server()
    # No engine at DOCKER_HOST and no sandbox named: the server needs neither.
    no_engine = {"DOCKER_HOST": f"unix://{tmp_path / 'no-engine.sock'}", "ARENA_SANDBOX": ""}
    service.start_server(env=no_engine)
    ann = service.local("user", "add", "ann").stdout.strip()
    bob = service.local("user", "add", "bob").stdout.strip()
    fragile = write_bot(tmp_path / "fragile", RAISES_IN_DEAL_2)
    bots = {"fragile": fragile}
    bots |= {
        name: bot_copy(s, tmp_path / name, name)
        for name, s in (("r", "random"), ("h", "heuristic"))
    }
    for name, code in bots.items():
        done = service.arena("submit", code, "--name", name, "--token", ann)
        assert (done.returncode, done.stdout) == (0, pending_line(name)), done.stderr

    # Pending, its game queued; nothing to read yet.
    listed = json.loads(service.arena("bots", "--json").stdout)
    assert [(r["bot"], r["status"], r["validation"]) for r in listed] == [
        ("fragile", "pending", "queued"), ("h", "pending", "queued"), ("r", "pending", "queued"),
    ]  # fmt: skip
    early = service.arena("replay", "--validation", "fragile@1")
    assert error_line(early) == (
        "error: fragile v1's validation game has not been played (it is queued)"
    )

    service.start_worker("w1")
    service.start_worker("w2")
    rows = settled(service, list(bots))
    assert {name: row["status"] for name, row in rows.items()} == {
        "fragile": "rejected", "r": "active", "h": "active",
    }  # fmt: skip
    reason = rows["fragile"]["reason"]
    assert reason.startswith("validation game: crash in deal 2, trick "), reason
    assert all(row["validation"] == "done" for row in rows.values())
    # The good ones joined the ladder, as they were submitted: one pair, played.
    wait_for(lambda: all_done(service, 1), 120, "the ladder's match")
    matches = json.loads(service.arena("matches", "--json").stdout)
    assert [(m["team_a"], m["team_b"]) for m in matches] == [("h v1", "r v1")]
    with service.store() as store:  # settled one at a time, in the order they were stored
        versions = sorted(v.id for b in store.bots() for v in store.versions(b.name))
        finished = [store.validation(v).finished_at for v in versions if v is not None]
        assert finished == sorted(finished)

    # The rejected version's game: its replay for anyone, as stored, through the server.
    remote = service.arena("replay", "--validation", "fragile@1", "--json")
    assert remote.returncode == 0, remote.stderr
    assert remote.stdout == service.local("replay", "--validation", "fragile@1", "--json").stdout
    replay = json.loads(remote.stdout)
    assert [p["name"] for p in replay["players"]] == ["fragile v1", "random"] * 2
    forfeit = replay["result"]["forfeit"]
    assert (forfeit["seat"] % 2, forfeit["reason"], forfeit["deal"]) == (0, "crash", 2)
    shown = service.arena("replay", "--validation", "fragile@1").stdout
    assert shown.startswith("fragile v1's validation game · seed ")
    assert f"forfeit: seat {forfeit['seat']} (fragile v1) crash" in shown

    # Its logs: the owner's, both of its seats, with the traceback; refused to another user.
    logs = service.arena("logs", "--validation", "fragile@1", "--json", "--token", ann)
    assert logs.returncode == 0, logs.stderr
    seats = json.loads(logs.stdout)
    assert [(s["game"], s["seat"], s["label"]) for s in seats] == [
        (1, 0, "fragile v1"), (1, 2, "fragile v1"),
    ]  # fmt: skip
    assert any("ValueError: no idea what to play" in s["output"] for s in seats)
    refused = service.arena("logs", "--validation", "fragile@1", "--token", bob)
    assert error_line(refused) == "error: fragile v1 is not your bot: its logs are its owner's"
    with service.channel() as channel:
        request = pb.GetLogsRequest(validation=pb.VersionRef(bot="fragile", number=1))
        for metadata, code in (
            ((), grpc.StatusCode.UNAUTHENTICATED),
            ((("authorization", f"Bearer {bob}"),), grpc.StatusCode.PERMISSION_DENIED),
        ):
            with pytest.raises(grpc.RpcError) as denied:
                list(rpc.ArenaStub(channel).GetLogs(request, metadata=metadata, timeout=30))
            assert denied.value.code() == code
    counts = json.loads(service.arena("status", "--json").stdout)
    assert counts["queue_depth"] == 0
