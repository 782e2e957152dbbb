"""The deployment brought up for real: compose.yaml with compose.offline.yaml on this
machine's engine, from the offline images, then torn down.

PostgreSQL, ``arena server``, ``arena web`` and two workers; a user added in the server's
container; the three sample bots submitted through the server from the host, as an author
does; the workers play the ladder's matches; the ladder read back through the server and
the web. Everything runs under a compose project of its own, on ports picked free now, with
a shared directory of its own: nothing of the host's PostgreSQL, /var/lib/arena or another
stack is touched, and ``down -v`` removes the containers and the database's volume.

Takes some minutes (the images are built first if this engine lacks them: about 10 minutes
from nothing). Skipped without docker-compose or an engine, except under CI (``CI=true``),
where that is a failure.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from arena.sandbox.docker_engine import docker_available
from tests.cli.runner import run_arena

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ("random", "heuristic", "montecarlo")
T = TypeVar("T")

pytestmark = pytest.mark.docker


def _need(ok: bool, message: str) -> None:
    if ok:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}, and CI=true: the deployment test must run")
    pytest.skip(message)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(what: str, probe: Callable[[], T | None], *, within: float) -> T:
    """``probe()``'s first value that is not None, asked every 2 s; a failure naming
    ``what`` after ``within`` seconds (a bound for a hung stack, not a measurement)."""
    deadline = time.monotonic() + within
    while True:
        value = probe()
        if value is not None:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not after {within:.0f} s")
        time.sleep(2)


@dataclass
class Stack:
    env: dict[str, str]
    server: str
    web: str
    logs: Callable[[], str]

    def compose(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            ["docker-compose", "-f", "compose.yaml", "-f", "compose.offline.yaml", *args],
            cwd=ROOT,
            env=os.environ | self.env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if check:
            assert done.returncode == 0, f"docker-compose {' '.join(args)}: {done.stderr}"
        return done

    def arena(self, *args: object) -> subprocess.CompletedProcess[str]:
        """The host's ``arena`` against this stack's server, as an author runs it."""
        return run_arena(*args, "--server", self.server, "--plaintext")

    def json(self, *args: object) -> Any:
        done = self.arena(*args, "--json")
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def status(self) -> dict[str, Any] | None:
        """``arena status --json`` through the server; None while it cannot answer."""
        done = self.arena("status", "--json")
        return json.loads(done.stdout) if done.returncode == 0 else None

    def workers_up(self) -> list[dict[str, Any]] | None:
        """The workers heard from lately, if both are."""
        up = [w for w in (self.status() or {}).get("workers", []) if w["state"] == "up"]
        return up if len(up) == 2 else None

    def worker_containers(self) -> dict[str, str]:
        """Each worker container's id: its start time and restart count."""
        ids = self.compose("ps", "-q", "worker").stdout.split()
        fmt = "{{.State.StartedAt}} {{.RestartCount}}"
        return {
            i: subprocess.run(
                ["docker", "inspect", "-f", fmt, i], capture_output=True, text=True, check=True
            ).stdout.strip()
            for i in ids
        }


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    _need(shutil.which("docker-compose") is not None, "docker-compose is not installed")
    _need(docker_available(), "no Docker engine answers")
    built = run_arena("image", "build", "--platform")
    assert built.returncode == 0, built.stderr
    # "REPOSITORY:TAG: built in ..." or "REPOSITORY:TAG: already present", one per image
    tags = {
        line.split(":")[0]: ":".join(line.split(":")[:2])
        for line in built.stdout.splitlines()
        if line.startswith("backalley-")
    }
    shared = Path(tempfile.mkdtemp(prefix="arena-deploy-"))  # the containers' ARENA_DIR
    server_port, web_port, pg_port = free_port(), free_port(), free_port()
    env = {
        "COMPOSE_PROJECT_NAME": f"arenadeploy{os.getpid()}",
        "ARENA_IMAGE": tags["backalley-arena"],
        "POSTGRES_IMAGE": tags["backalley-postgres"],
        "POSTGRES_PASSWORD": secrets.token_hex(8),
        "POSTGRES_PORT": f"127.0.0.1:{pg_port}",
        "SERVER_PORT": f"127.0.0.1:{server_port}",
        "WEB_PORT": f"127.0.0.1:{web_port}",
        "ARENA_DIR": str(shared),
    }
    box: list[Stack] = []

    def logs() -> str:
        return box[0].compose("logs", "--no-color", "--tail", "40", check=False).stdout

    up = Stack(env, f"127.0.0.1:{server_port}", f"http://127.0.0.1:{web_port}", logs)
    box.append(up)
    try:
        up.compose("up", "-d", "--no-build", "--scale", "worker=2")
        yield up
    finally:
        up.compose("down", "-v", "--remove-orphans", "--timeout", "60", check=False)
        shutil.rmtree(shared, ignore_errors=True)


def test_the_sample_bots_are_played_by_two_workers_and_ranked(stack: Stack) -> None:
    try:
        workers = wait_for("two workers up, seen through the server", stack.workers_up, within=240)
        assert {w["sandbox"] for w in workers} == {"docker"}

        added = stack.compose("exec", "-T", "server", "arena", "user", "add", "alice")
        token = added.stdout.strip()
        assert token and "\n" not in token, added.stdout
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
