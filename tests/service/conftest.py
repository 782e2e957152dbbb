"""A real ``arena server`` and real ``arena worker`` processes on loopback, sharing one
PostgreSQL schema (``.ci/postgres``), each with its own ARENA_HOME: nothing but the database
URL is shared, as between machines. The server speaks TLS, with a certificate from a CA made
for the test, which the clients trust (``ARENA_TLS_CA``). Bots run in the process sandbox
(tests/sandbox covers the containers)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from arena.store import Store, open_store
from tests.cli.runner import arena_executable, run_arena
from tests.store.conftest import postgres_schema_url

from .certs import Certs, make_certs

SAMPLE = Path(__file__).resolve().parents[2] / "sample_bots"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Service:
    url: str  # the one PostgreSQL schema everything shares
    root: Path
    certs: Certs
    port: int = field(default_factory=free_port)
    server: subprocess.Popen[str] | None = None
    workers: list[subprocess.Popen[str]] = field(default_factory=list)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def env(self, home: str) -> dict[str, str]:
        path = self.root / home
        path.mkdir(exist_ok=True)
        return {
            "ARENA_DATABASE_URL": self.url,
            "ARENA_HOME": str(path),
            "ARENA_SANDBOX": "process",
            "ARENA_LOG_FORMAT": "json",
        }

    def _spawn(
        self, home: str, *args: object, env: dict[str, str] | None = None
    ) -> subprocess.Popen[str]:
        log = (self.root / f"{home}.log").open("a")
        return subprocess.Popen(
            [str(arena_executable()), *(str(a) for a in args)],
            env=os.environ | {"NO_COLOR": "1"} | self.env(home) | (env or {}),
            stdout=log,
            stderr=log,
            text=True,
            start_new_session=True,
        )

    def start_server(self, *args: object, env: dict[str, str] | None = None) -> None:
        tls = ("--tls-cert", self.certs.cert, "--tls-key", self.certs.key)
        self.server = self._spawn(
            "server", "server", "--listen", self.address, "--grace", 1, *tls, *args, env=env
        )
        with self.channel() as channel:
            grpc.channel_ready_future(channel).result(timeout=60)

    def channel(self) -> grpc.Channel:
        """A channel to the server that trusts the test's CA."""
        roots = grpc.ssl_channel_credentials(self.certs.ca.read_bytes())
        return grpc.secure_channel(self.address, roots)

    def kill_server(self) -> None:
        assert self.server is not None
        self.server.kill()
        self.server.wait()

    def start_worker(self, name: str, *args: object) -> subprocess.Popen[str]:
        worker = self._spawn(name, "worker", "--heartbeat", 1, *args)
        self.workers.append(worker)
        return worker

    def arena(self, *args: object, home: str = "client") -> subprocess.CompletedProcess[str]:
        """``arena ARGS --server ...`` as an author on another machine: no database URL."""
        env = self.env(home)
        env["ARENA_DATABASE_URL"] = "postgresql+psycopg://nobody@127.0.0.1:1/none"
        env |= {"ARENA_SERVER": self.address, "ARENA_TLS_CA": str(self.certs.ca)}
        return run_arena(*args, env=env)

    def local(self, *args: object) -> subprocess.CompletedProcess[str]:
        """``arena ARGS`` on the database itself, as an operator."""
        return run_arena(*args, env=self.env("operator"))

    @contextmanager
    def store(self) -> Iterator[Store]:
        opened = open_store(self.url)
        try:
            yield opened
        finally:
            opened.close()

    def stop(self) -> None:
        for proc in [*self.workers, *([self.server] if self.server else [])]:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    for url in postgres_schema_url():
        svc = Service(url, tmp_path, make_certs(tmp_path / "certs"))
        try:
            svc.start_server()
            yield svc
        finally:
            svc.stop()
