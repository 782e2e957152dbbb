"""The deployment brought up for real: compose.yaml with compose.offline.yaml on this
machine's engine, from the offline images, then torn down.

PostgreSQL, ``arena server``, ``arena web`` and two workers; a user added in the server's
container; the three sample bots submitted through the server from the host, as an author
does; the workers play the ladder's matches; the ladder read back through the server and
the web (tests/deploy/stack.py: a compose project of its own, torn down after).

Takes some minutes (the images are built first if this engine lacks them: about 10 minutes
from nothing). Skipped without docker-compose or an engine, except under CI (``CI=true``),
where that is a failure.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import docker
import grpc
import pytest
from sqlalchemy import create_engine, text

from arena.bots import submission
from arena.sandbox.docker import CONTAINER_LABEL
from arena.sandbox.docker_engine import docker_client
from arena.service.v1 import arena_pb2 as pb
from arena.service.v1 import arena_pb2_grpc as pb_grpc
from tests.deploy.stack import ROOT, Stack, compose_stack, wait_for

SAMPLES = ("random", "heuristic", "montecarlo")

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with compose_stack("deploy") as up:
        up.compose("up", "-d", "--no-build", "--scale", "worker=2")
        yield up


@pytest.fixture(scope="module")
def token(stack: Stack) -> str:
    """An author's token: a user added in the server's container, as an operator does."""
    added = stack.compose("exec", "-T", "server", "arena", "user", "add", "alice")
    token = added.stdout.strip()
    assert token and "\n" not in token, added.stdout
    return token


def test_the_sample_bots_are_played_by_two_workers_and_ranked(stack: Stack, token: str) -> None:
    try:
        workers = wait_for("two workers up, seen through the server", stack.workers_up, within=240)
        assert {w["sandbox"] for w in workers} == {"docker"}

        for name in SAMPLES:
            sent = stack.arena(
                "submit", ROOT / "sample_bots" / name, "--name", name, "--token", token
            )
            assert sent.returncode == 0, sent.stderr

        def all_played() -> list[dict[str, Any]] | None:
            # Every version validated first (one at a time, by either worker): until then
            # the round-robin has only the matches of the versions already active.
            if any(row["status"] == "pending" for row in stack.json("bots")):
                return None
            matches = stack.json("matches")
            statuses = {m["status"] for m in matches}
            return matches if matches and statuses <= {"done", "error"} else None

        matches = wait_for("the round-robin played", all_played, within=900)
        assert {m["status"] for m in matches} == {"done"}, matches
        played = {name.split()[0] for m in matches for name in (m["team_a"], m["team_b"])}
        assert played == set(SAMPLES)

        by_server = stack.json("ladder")
        assert sorted(row["bot"] for row in by_server) == sorted(SAMPLES), by_server
        with urllib.request.urlopen(f"{stack.web}/api/ladder", timeout=30) as answer:
            by_web = json.load(answer)
        assert by_web == by_server  # one read model, two front ends

        # A worker reports its finished matches with its next heartbeat (every 5 s), so the
        # last match's count can lag the match itself by that much.
        def counted() -> dict[str, int] | None:
            done = {w["name"]: w["matches_done"] for w in stack.json("status")["workers"]}
            return done if sum(done.values()) >= len(matches) else None

        done_by = wait_for("every match counted by its worker", counted, within=60)
        assert sum(done_by.values()) == len(matches), done_by
    except BaseException:
        print(stack.logs())  # shown by pytest with the failure
        raise


def test_the_workers_wait_for_postgresql_and_resume_without_a_restart(stack: Stack) -> None:
    try:
        before = wait_for("two workers up", stack.workers_up, within=240)
        counts = stack.json("status")["tournaments"]  # matches by status, every tournament
        containers = stack.worker_containers()
        assert len(containers) == 2

        stack.compose("stop", "postgres")
        assert stack.status() is None  # the server answers, with an error, not stale data

        # Both workers meet the outage: their heartbeats fail, and they keep running.
        def both_failing() -> bool | None:
            lines = stack.compose("logs", "--no-color", "worker").stdout.splitlines()
            failing = {ln.split("|")[0].strip() for ln in lines if "heartbeat_failed" in ln}
            return True if len(failing) == 2 else None

        wait_for("both workers' heartbeats failing", both_failing, within=120)
        stack.compose("start", "postgres")
        restarted = time.time()

        def heard_from_again() -> list[dict[str, Any]] | None:
            up = stack.workers_up()
            return up if up and all(w["heartbeat_at"] > restarted for w in up) else None

        after = wait_for("both workers heard from again", heard_from_again, within=180)
        assert {w["name"] for w in after} == {w["name"] for w in before}  # the same processes
        assert stack.worker_containers() == containers  # not restarted, by compose or anyone
        assert stack.json("status")["tournaments"] == counts  # nothing lost
    except BaseException:
        print(stack.logs())
        raise


def test_a_restart_of_the_server_mid_upload_leaves_nothing_and_a_retry_succeeds(
    stack: Stack, token: str
) -> None:
    """`docker restart` of the server while an upload is half sent: the half upload is not
    stored (no bot, no version, no blob), and the same upload sent again is."""
    try:
        archive = submission.pack(ROOT / "sample_bots" / "random")
        stored_before = count_rows(stack, "blobs")
        held = threading.Event()  # the upload waits here, half sent, until the restart is done
        sent_half = threading.Event()

        def parts() -> Iterator[pb.SubmitRequest]:
            yield pb.SubmitRequest(header=pb.SubmitHeader(bot_name="halfway", filename="h.tar.gz"))
            yield pb.SubmitRequest(chunk=archive[: len(archive) // 2])
            sent_half.set()
            held.wait(timeout=300)

        failures: list[grpc.RpcError] = []

        def upload() -> None:
            with grpc.insecure_channel(stack.server) as channel:
                stub = pb_grpc.ArenaStub(channel)
                try:
                    stub.Submit(
                        parts(), metadata=(("authorization", f"Bearer {token}"),), timeout=300
                    )
                except grpc.RpcError as e:
                    failures.append(e)

        uploading = threading.Thread(target=upload)
        uploading.start()
        assert sent_half.wait(timeout=60)
        time.sleep(1)  # the half in the server's hands, not only in the client's buffers
        stack.compose("restart", "-t", "5", "server")
        held.set()
        uploading.join(timeout=120)
        assert len(failures) == 1, "the half upload was not cut off by the restart"
        wait_for("the server back", stack.status, within=120)

        assert "halfway" not in {row["bot"] for row in stack.json("bots")}
        assert count_rows(stack, "bots", "name = 'halfway'") == 0
        assert count_rows(stack, "blobs") == stored_before
        again = stack.arena(
            "submit", ROOT / "sample_bots" / "random", "--name", "halfway", "--token", token
        )
        assert again.returncode == 0, again.stderr
        assert [row["number"] for row in stack.json("bots") if row["bot"] == "halfway"] == [1]
    except BaseException:
        print(stack.logs())
        raise


def test_a_killed_worker_s_match_is_played_again_once_by_the_other(
    stack: Stack, token: str
) -> None:
    """`docker kill` of a worker's container mid-match: the other worker removes the killed
    one's bot containers within a minute (they name the killed container in their labels),
    requeues its matches once it has been silent for --silent-after (60 s), and plays them:
    each once more, recorded once. Last in this module: one worker is left."""
    client = docker_client()
    try:
        wait_for("two workers up", stack.workers_up, within=240)
        # A second montecarlo: three ladder matches of about a minute each, against the others.
        sent = stack.arena(
            "submit", ROOT / "sample_bots" / "montecarlo", "--name", "slowpoke", "--token", token
        )
        assert sent.returncode == 0, sent.stderr

        def running_with_bots() -> tuple[str, list[int]] | None:
            # A worker with a ladder match in hand, and bots of its up: the moment to kill it.
            running = (stack.status() or {}).get("running", [])
            for match in running:
                worker = match["worker_id"].rpartition(":")[0]  # "<worker name>:<slot>"
                if bots_of(client, worker_container(worker)):
                    return worker, [m["id"] for m in running if m["worker_id"].startswith(worker)]
            return None

        victim, in_hand = wait_for("a match in play", running_with_bots, within=600)
        container = worker_container(victim)
        killed = subprocess.run(["docker", "kill", container], capture_output=True, text=True)
        assert killed.returncode == 0, killed.stderr

        # The bound: a sweep runs every 30 s in every worker.
        wait_for(
            "the killed worker's bots removed",
            lambda: True if not bots_of(client, container) else None,
            within=60,
        )

        def replayed() -> list[dict[str, Any]] | None:
            rows = match_rows(stack, in_hand)
            return rows if all(r["status"] == "done" for r in rows) else None

        rows = wait_for("the killed worker's matches played again", replayed, within=900)
        survivor = next(w["name"] for w in stack.json("status")["workers"] if w["name"] != victim)
        for row in rows:
            assert row["attempts"] == 1, row  # the kill counted once; no other failure
            assert row["worker_id"].startswith(f"{survivor}:"), row
            assert "went silent" in (row["last_error"] or ""), row
            assert row["replay_path"], row  # recorded once, by the survivor
        listed = [m["id"] for m in stack.json("matches")]
        assert all(listed.count(i) == 1 for i in in_hand)
        for match_id in in_hand:
            shown = stack.arena("replay", "show", str(match_id), "--json")
            assert shown.returncode == 0, shown.stderr
    except BaseException:
        print(stack.logs())
        raise
    finally:
        client.close()


def worker_container(worker: str) -> str:
    """The container a worker of the stack runs in: its name is ``<hostname>:<pid>``, and a
    container's hostname is its id's first 12 digits."""
    return worker.partition(":")[0]


def bots_of(client: docker.DockerClient, container: str) -> list[str]:
    """The bot containers a worker in ``container`` (an id or its prefix) started. Listed
    without inspecting each (the engine's list holds the labels): a bot removed meanwhile,
    as the workers do all the time, is simply not listed."""
    full = client.api.inspect_container(container)["Id"]
    listed = client.api.containers(all=True, filters={"label": CONTAINER_LABEL})
    return [str(c["Id"]) for c in listed if c["Labels"][CONTAINER_LABEL].startswith(f"{full} ")]


def count_rows(stack: Stack, table: str, where: str = "true") -> int:
    engine = create_engine(stack.database)
    try:
        with engine.connect() as connection:
            return int(
                connection.execute(text(f"SELECT count(*) FROM {table} WHERE {where}")).scalar_one()
            )
    finally:
        engine.dispose()


def match_rows(stack: Stack, ids: list[int]) -> list[dict[str, Any]]:
    engine = create_engine(stack.database)
    try:
        with engine.connect() as connection:
            query = text(
                "SELECT id, status, attempts, worker_id, last_error, replay_path FROM matches"
                " WHERE id = ANY(:ids) ORDER BY id"
            )
            return [dict(r._mapping) for r in connection.execute(query, {"ids": ids})]
    finally:
        engine.dispose()
