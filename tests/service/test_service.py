"""Through the server: authors submit with a token and read the ladder back, exactly as the
local commands print it; a wrong or missing token changes nothing."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import grpc
import pytest
from sqlalchemy import func, select
from sqlmodel import SQLModel

from arena.service.v1 import arena_pb2 as pb
from arena.service.v1 import arena_pb2_grpc as rpc
from arena.store import MatchStatus
from tests.cli.runner import error_line

from .conftest import SAMPLE, Service

pytestmark = pytest.mark.postgres


def bot_copy(sample: str, dest: Path, tweak: str = "") -> Path:
    shutil.copytree(SAMPLE / sample, dest)
    if tweak:
        with (dest / "bot.py").open("a") as f:
            f.write(f"\n# {tweak}\n")
    return dest


def counts(service: Service) -> dict[str, int]:
    with service.store() as store, store.database.connect() as connection:
        return {
            t.name: connection.execute(select(func.count()).select_from(t)).scalar_one()
            for t in SQLModel.metadata.sorted_tables
        }


def wait_for(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.5)


def settled(service: Service, names: list[str], timeout: float = 300) -> dict[str, dict[str, str]]:
    """Wait until each named bot's newest version is no longer pending (its validation game
    played by a worker), as ``arena bots --json`` through the server says; their rows."""
    newest: dict[str, dict[str, str]] = {}

    def done() -> bool:
        listed = service.arena("bots", "--json")
        assert listed.returncode == 0, listed.stderr
        newest.clear()
        for row in json.loads(listed.stdout):
            newest[row["bot"]] = row
        return all(name in newest and newest[name]["status"] != "pending" for name in names)

    wait_for(done, timeout, f"the validation games of {', '.join(names)}")
    return newest


def pending_line(name: str) -> str:
    """What ``arena submit --server`` prints: the version stored, its game queued."""
    return (
        f"{name} v1: pending · its validation game is queued for the workers (arena bots shows"
        " when it is active or rejected)\n"
    )


def ladder_counts(service: Service) -> dict[MatchStatus, int]:
    with service.store() as store:
        ladder = store.tournament("ladder")
        assert ladder.id is not None
        return store.status_counts(ladder.id)


def all_done(service: Service, matches: int) -> bool:
    counts = ladder_counts(service)
    assert sum(counts.values()) == matches
    return counts[MatchStatus.DONE] == matches


def test_submit_and_read_the_ladder_through_the_server(service: Service, tmp_path: Path) -> None:
    token = service.local("user", "add", "ann").stdout.strip()
    service.start_worker("w1")
    service.start_worker("w2")
    names = ["rando", "hero", "randy"]
    for name, sample in zip(names, ("random", "heuristic", "random"), strict=True):
        code = bot_copy(sample, tmp_path / name, name)
        done = service.arena("submit", code, "--name", name, "--token", token)
        assert done.returncode == 0, done.stderr
        assert done.stdout == pending_line(name)
    assert {row["status"] for row in settled(service, names).values()} == {"active"}
    # Three entries, one duplicate pair per pairing: three matches, played by two workers.
    wait_for(lambda: all_done(service, 3), 300, "the ladder's matches")
    for command in (
        ("ladder",),
        ("ladder", "--json"),
        ("ladder", "--all"),
        ("bots",),
        ("bots", "--json"),
        ("matches",),
        ("replay", "1", "--game", "2"),
        ("replay", "show", "1", "--json"),
        ("logs", "1", "0", "--token", token),
        ("logs", "1", "0", "--json", "--token", token),
        ("matches", "--status", "done"),
        ("matches", "--bot", "hero", "--json"),  # filtered by the server's query
        ("matches", "--bot", "rando", "--status", "done"),
        ("bot", "hero", "--json"),  # the tallies, through the server's BotStatistics
    ):
        remote, local = service.arena(*command), service.local(*command)
        assert remote.returncode == local.returncode == 0, (command, remote.stderr)
        assert remote.stdout == local.stdout, command
    heros = json.loads(service.arena("matches", "--bot", "hero", "--json").stdout)
    assert len(heros) == 2 and all("hero v1" in (m["team_a"], m["team_b"]) for m in heros)
    unknown = (
        service.arena("matches", "--bot", "nobody"),
        service.local("matches", "--bot", "nobody"),
    )
    assert [error_line(r) for r in unknown] == ["error: unknown bot 'nobody'"] * 2
    assert [r.returncode for r in unknown] == [2, 2]
    standings = json.loads(service.arena("ladder", "--json").stdout)
    assert standings[0]["bot"] == "hero" and standings[0]["owner"] == "ann"
    assert sum(row["games"] for row in standings) == 3 * 2 * 2  # games, by both entries
    # The server's status: nothing queued, both workers up, three matches played (as their
    # next heartbeat, within a second, reports).
    time.sleep(3)
    status = json.loads(service.arena("status", "--json").stdout)
    assert status["queue_depth"] == 0 and status["running"] == []
    assert (
        status["tournaments"] == json.loads(service.local("status", "--json").stdout)["tournaments"]
    )
    assert sorted(w["state"] for w in status["workers"]) == ["up", "up"]
    assert sum(w["matches_done"] for w in status["workers"]) == 3


def test_a_wrong_or_missing_token_is_refused_and_nothing_is_stored(
    service: Service, tmp_path: Path
) -> None:
    service.local("user", "add", "ann")
    code = bot_copy("random", tmp_path / "bot")
    before = counts(service)

    wrong = service.arena("submit", code, "--name", "bot", "--token", "not-a-token")
    assert wrong.returncode == 2 and error_line(wrong) == "error: wrong token"

    with service.channel() as channel:
        stub = rpc.ArenaStub(channel)
        header = pb.SubmitRequest(header=pb.SubmitHeader(bot_name="bot", filename="b.tar.gz"))
        upload = [header, pb.SubmitRequest(chunk=b"\x1f\x8b" + b"0" * 1000)]
        for metadata in ((), (("authorization", "Bearer wrong"),), (("authorization", "x"),)):
            with pytest.raises(grpc.RpcError) as refused:
                stub.Submit(iter(upload), metadata=metadata, timeout=30)
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.RpcError) as refused:
            list(stub.Compare(pb.CompareRequest(a="x", b="y"), timeout=30))
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        # Reading needs no token.
        assert list(stub.ListBots(pb.ListBotsRequest(), timeout=30).versions) == []
    assert counts(service) == before
    assert list((service.root / "server" / "spool").iterdir()) == []


def test_bad_requests_get_status_codes_with_one_line(service: Service, tmp_path: Path) -> None:
    token = service.local("user", "add", "ann").stdout.strip()
    service.local("user", "add", "bob")
    before = counts(service)
    assert error_line(service.arena("replay", "7")) == "error: unknown match 7"
    assert error_line(service.arena("ladder")) == (
        "error: the ladder is empty: no bot has been submitted yet (arena submit)"
    )
    broken = tmp_path / "broken.tar.gz"
    broken.write_bytes(b"not a tarball")
    refused = service.arena("submit", broken, "--name", "b", "--token", token)
    assert refused.returncode == 2 and error_line(refused).startswith("error: broken.tar.gz")
    missing = service.arena("submit", tmp_path / "nothing", "--name", "b", "--token", token)
    assert missing.returncode == 2 and "no such file or directory" in error_line(missing)
    with service.channel() as channel:
        header = pb.SubmitRequest(header=pb.SubmitHeader(bot_name="big", filename="big.zip"))
        chunk = pb.SubmitRequest(chunk=bytes(1 << 20))
        with pytest.raises(grpc.RpcError) as too_big:
            rpc.ArenaStub(channel).Submit(
                iter([header, *[chunk] * 11]),
                metadata=(("authorization", f"Bearer {token}"),),
                timeout=60,
            )
        assert too_big.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert too_big.value.details() == "big.zip: over 10 MiB"
    assert counts(service) == before
    assert list((service.root / "server" / "spool").iterdir()) == []
    nobody = Service(service.url, tmp_path, service.certs, port=service.port + 1)
    gone = nobody.arena("bots")
    assert gone.returncode == 2
    assert error_line(gone) == f"error: server {nobody.address} does not answer"
