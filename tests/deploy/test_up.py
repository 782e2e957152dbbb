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
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.deploy.stack import ROOT, Stack, compose_stack, wait_for

SAMPLES = ("random", "heuristic", "montecarlo")

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with compose_stack("deploy") as up:
        up.compose("up", "-d", "--no-build", "--scale", "worker=2")
        yield up


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
