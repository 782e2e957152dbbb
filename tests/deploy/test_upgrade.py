"""An upgrade of the deployment: the stack brought up on the previous release's database,
then its images replaced while the workers run (docs/operating.md, "Upgrading").

PostgreSQL is started alone and given, from the host, the previous release's schema (its
head migration, 0004) and data as that release's code wrote them (tests/store/
previous_release.py: a tournament ``cup`` with a done match and its Elo ratings), with the
versions' code. Then the server, the web and two workers start at once from this version's
images: four processes that each open the database and race to migrate it. The migration
runs once, in whichever got PostgreSQL's advisory lock first (its ``schema_migrated``
event); the others wait for the lock and find it done. The schema is then this version's
(the models' own, ``schema_diff``), the old ratings read the same through the server and the
web, and the workers run on it. Last, the server and the web are recreated (an upgrade of
their images) while the workers keep running: nothing migrates again, and the workers are
not restarted.

The previous release's images are not used: they cannot be built here, offline, since that
release has no ``arena image build --platform``. Its database is what carries over in an
upgrade, and that is made exactly, by its migrations and its rows.

Takes a few minutes (tests/deploy/stack.py: a compose project of its own, torn down after).
Skipped without docker-compose or an engine, except under CI (``CI=true``), where that is a
failure.
"""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, exc, text

from arena.bots import submission
from arena.store.migrate import HEAD, current_revision, schema_diff
from tests.deploy.stack import ROOT, Stack, compose_stack, wait_for
from tests.store.previous_release import (
    ELO_AT_0004,
    PREVIOUS_HEAD,
    make_previous_release,
)

pytestmark = pytest.mark.docker

MIGRATED = "schema_migrated"  # arena.store.migrate's event, logged by the process that migrates


def events(stack: Stack, *services: str) -> list[tuple[str, dict[str, Any]]]:
    """The services' log events (ARENA_LOG_FORMAT=json: one object a line), each with the
    service that logged it; every service's without ``services``."""
    project = stack.env["COMPOSE_PROJECT_NAME"]
    found = []
    for line in stack.compose("logs", "--no-color", *services).stdout.splitlines():
        container, bar, logged = line.partition("|")
        if not bar or not logged.strip().startswith("{"):
            continue  # not an event: compose's own lines, PostgreSQL's
        # Compose 1.29 names a container PROJECT_SERVICE_N.
        service = container.strip().removeprefix(f"{project}_").rsplit("_", 1)[0]
        found.append((service, json.loads(logged)))
    return found


def migrations(stack: Stack, *services: str) -> list[tuple[str, Any, Any]]:
    """Each schema_migrated event: which service, from which revision, to which."""
    return [
        (service, event.get("from_revision"), event.get("to_revision"))
        for service, event in events(stack, *services)
        if event.get("event") == MIGRATED
    ]


def errors(stack: Stack) -> list[tuple[str, dict[str, Any]]]:
    return [(s, e) for s, e in events(stack) if e.get("level") in ("ERROR", "CRITICAL")]


def front_ends(stack: Stack) -> set[str]:
    """The server's and the web's container ids."""
    return set(stack.containers("server")) | set(stack.containers("web"))


def accepting(engine: Engine) -> bool | None:
    """True once PostgreSQL takes a query from this host."""
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        return True
    except exc.OperationalError:
        return None


def web_json(stack: Stack, path: str) -> Any | None:
    """The web's answer at ``path``; None while it does not answer."""
    try:
        with urllib.request.urlopen(f"{stack.web}{path}", timeout=30) as answer:
            return json.load(answer)
    except OSError:  # refused, reset, or an HTTP error while it starts
        return None


def heard_from_since(stack: Stack, since: float) -> list[dict[str, Any]] | None:
    """Both workers, once each has sent a heartbeat after ``since``: still running."""
    up = stack.workers_up()
    return up if up and all(w["heartbeat_at"] > since for w in up) else None


def make_previous_database(stack: Stack) -> None:
    """The previous release's schema and rows in the stack's PostgreSQL, and the versions'
    code as it kept code (blobs, keyed by ``archive_path``): a sample bot's, so that a
    version the ladder schedules later has code to play."""
    engine = create_engine(stack.database, connect_args={"connect_timeout": 5})
    try:
        wait_for("PostgreSQL accepting connections", lambda: accepting(engine), within=120)
        code = submission.pack(ROOT / "sample_bots" / "random")
        with engine.begin() as connection:
            make_previous_release(connection)
            keys = connection.execute(text("SELECT archive_path FROM bot_versions")).scalars()
            for key in list(keys):
                connection.execute(
                    text("INSERT INTO blobs (key, size, data, created_at) VALUES (:k, :s, :d, 1)"),
                    {"k": key, "s": len(code), "d": code},
                )
            assert current_revision(connection) == PREVIOUS_HEAD
    finally:
        engine.dispose()


def assert_migrated_schema(stack: Stack) -> None:
    """The database at this version's head, its tables as this version's models say."""
    engine = create_engine(stack.database, connect_args={"connect_timeout": 5})
    try:
        with engine.connect() as connection:
            assert current_revision(connection) == HEAD
        assert schema_diff(engine) == []
    finally:
        engine.dispose()


def test_the_stack_upgrades_the_previous_release_once_with_its_workers_running() -> None:
    with compose_stack("upgrade") as stack:
        try:
            stack.compose("up", "-d", "--no-build", "postgres")
            make_previous_database(stack)

            # Everything at once: the server, the web and two workers open the database at
            # 0004 together.
            stack.compose("up", "-d", "--no-build", "--scale", "worker=2")
            wait_for("two workers up, seen through the server", stack.workers_up, within=240)
            web_cup = wait_for(
                "the web answering",
                lambda: web_json(stack, "/api/ladder?tournament=cup"),
                within=120,
            )
            assert_migrated_schema(stack)
            migrated = migrations(stack)
            assert len(migrated) == 1, migrated  # one migrated; the three others found it done
            [(migrator, from_revision, to_revision)] = migrated
            assert (from_revision, to_revision) == (PREVIOUS_HEAD, HEAD)
            assert migrator in {"server", "web", "worker"}

            # The previous release's data, through both front ends, with its ratings.
            cup = stack.json("ladder", "--tournament", "cup")
            assert web_cup == cup  # one read model, two front ends
            assert {row["bot"]: row["elo"] for row in cup} == ELO_AT_0004
            assert {(row["bot"], row["games"], row["wins"]) for row in cup} == {
                ("a", 2, 1),
                ("b", 2, 0),
            }

            # The workers keep running on the new schema: heard from again, never restarted.
            workers = stack.worker_containers()
            assert len(workers) == 2
            since = time.time()
            wait_for("both workers running on", lambda: heard_from_since(stack, since), within=120)
            assert stack.worker_containers() == workers
            started = {**workers, **stack.containers("server"), **stack.containers("web")}
            assert all(state.endswith(" 0") for state in started.values()), started  # restarts
            assert errors(stack) == []

            # The images upgraded with the workers running: server and web recreated alone.
            served = front_ends(stack)
            stack.compose(
                "up", "-d", "--no-build", "--no-deps", "--force-recreate", "server", "web"
            )
            recreated = time.time()
            assert served.isdisjoint(front_ends(stack))  # new containers
            after = wait_for(
                "the web answering again",
                lambda: web_json(stack, "/api/ladder?tournament=cup"),
                within=120,
            )
            wait_for(
                "both workers heard from through the new server",
                lambda: heard_from_since(stack, recreated),
                within=120,
            )
            assert after == stack.json("ladder", "--tournament", "cup") == cup
            assert migrations(stack, "server", "web") == []  # they found the schema at head
            # The one migration stays the only one (its lines are gone if the server or the
            # web logged it: their old containers were removed).
            assert migrations(stack) == ([] if migrator != "worker" else migrated)
            assert stack.worker_containers() == workers  # not restarted by the upgrade
            assert_migrated_schema(stack)
            assert errors(stack) == []
        except BaseException:
            print(stack.logs())  # shown by pytest with the failure
            raise
