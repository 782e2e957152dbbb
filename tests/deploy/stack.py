"""A compose stack of compose.yaml with compose.offline.yaml on this machine's engine, from
the offline images: a project of its own, on ports picked free now, with a shared directory
of its own, so that nothing of the host's PostgreSQL, /var/lib/arena or another stack is
touched; ``down -v`` removes its containers and its database's volume.
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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from arena.sandbox.docker_engine import docker_available
from tests.cli.runner import run_arena

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


def need(ok: bool, message: str) -> None:
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
    server: str  # HOST:PORT of `arena server`, published on this host's loopback
    web: str  # the web's URL, likewise
    database: str  # PostgreSQL's URL from this host

    def logs(self) -> str:
        """Every service's last lines, for a failure's report."""
        return self.compose("logs", "--no-color", "--tail", "40", check=False).stdout

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
        return self.containers("worker")

    def containers(self, service: str) -> dict[str, str]:
        """Each of the service's containers' id: its start time and restart count."""
        ids = self.compose("ps", "-q", service).stdout.split()
        fmt = "{{.State.StartedAt}} {{.RestartCount}}"
        return {
            i: subprocess.run(
                ["docker", "inspect", "-f", fmt, i], capture_output=True, text=True, check=True
            ).stdout.strip()
            for i in ids
        }


def offline_images() -> dict[str, str]:
    """``arena image build --platform`` (cached: at once when this engine has them): the
    platform's and PostgreSQL's tags, by repository."""
    need(shutil.which("docker-compose") is not None, "docker-compose is not installed")
    need(docker_available(), "no Docker engine answers")
    built = run_arena("image", "build", "--platform")
    assert built.returncode == 0, built.stderr
    # "REPOSITORY:TAG: built in ..." or "REPOSITORY:TAG: already present", one per image
    return {
        line.split(":")[0]: ":".join(line.split(":")[:2])
        for line in built.stdout.splitlines()
        if line.startswith("backalley-")
    }


@contextmanager
def compose_stack(name: str) -> Iterator[Stack]:
    """A stack named ``name`` (made unique), its images built, nothing started yet; taken
    down with its volumes and its shared directory on the way out."""
    tags = offline_images()
    shared = Path(tempfile.mkdtemp(prefix="arena-deploy-"))  # the containers' ARENA_DIR
    server_port, web_port, pg_port = free_port(), free_port(), free_port()
    password = secrets.token_hex(8)
    env = {
        "COMPOSE_PROJECT_NAME": f"arena{name}{os.getpid()}",
        "ARENA_IMAGE": tags["backalley-arena"],
        "POSTGRES_IMAGE": tags["backalley-postgres"],
        "POSTGRES_PASSWORD": password,
        "POSTGRES_PORT": f"127.0.0.1:{pg_port}",
        "SERVER_PORT": f"127.0.0.1:{server_port}",
        "WEB_PORT": f"127.0.0.1:{web_port}",
        "ARENA_DIR": str(shared),
    }
    up = Stack(
        env,
        server=f"127.0.0.1:{server_port}",
        web=f"http://127.0.0.1:{web_port}",
        database=f"postgresql+psycopg://arena:{password}@127.0.0.1:{pg_port}/arena",
    )
    try:
        yield up
    finally:
        up.compose("down", "-v", "--remove-orphans", "--timeout", "60", check=False)
        shutil.rmtree(shared, ignore_errors=True)
