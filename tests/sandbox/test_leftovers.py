"""A killed platform process's leftovers on its host (bot containers, scratch directories)
are removed by any live worker there: at its start, and by a sweep every half minute while
it runs; what live processes and other hosts own is left alone."""

from __future__ import annotations

import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest

from arena.images.bot_images import image_tag
from arena.sandbox.docker import CONTAINER_LABEL, OWNER_LABEL, SESSION_LABEL
from arena.sandbox.docker_engine import docker_client
from arena.sandbox.leftovers import OWNER_FILE, SWEEP_S
from tests.cli.runner import _environment, arena_executable
from tests.league.conftest import Arena, make_arena

HOST = socket.gethostname()


def dead_pid() -> int:
    """The pid of a process of this host that has ended."""
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


def scratch(parent: Path, host: str, pid: int, container: str | None = None) -> Path:
    """A scratch directory as a platform process leaves it, with its bots' files in it."""
    path = Path(tempfile.mkdtemp(prefix="arena-", dir=parent))
    (path / OWNER_FILE).write_text(
        f"{host} {pid} {container}\n" if container else f"{host} {pid}\n"
    )
    (path / "seat0" / "code").mkdir(parents=True)
    (path / "seat0" / "code" / "bot.py").write_text("print('hi')\n")
    return path


def eventually(condition: Callable[[], bool], within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)
    return True


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[tuple[Arena, Callable[[str], subprocess.Popen[str]]]]:
    arena = make_arena(tmp_path)
    started: list[subprocess.Popen[str]] = []

    def start(sandbox: str) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [str(arena_executable()), "worker", "--sandbox", sandbox],
            env=_environment() | arena.env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(proc)
        return proc

    yield arena, start
    for proc in started:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


def test_a_worker_sweeps_scratch_directories(worker: tuple[Arena, Callable[..., object]]) -> None:
    arena, start = worker
    at_start = scratch(arena.tmp, HOST, dead_pid())
    live = scratch(arena.tmp, HOST, 1)  # pid 1 runs as long as the machine does
    elsewhere = scratch(arena.tmp, "another-host", dead_pid())
    start("process")
    assert eventually(lambda: not at_start.exists(), within_s=30)
    # While it runs: a leftover made now is gone by the next sweep.
    later = scratch(arena.tmp, HOST, dead_pid())
    assert eventually(lambda: not later.exists(), within_s=SWEEP_S * 2)
    assert live.exists() and elsewhere.exists()


@pytest.mark.docker
def test_a_worker_sweeps_a_dead_process_s_containers(
    worker: tuple[Arena, Callable[..., object]],
) -> None:
    arena, start = worker
    client = docker_client()
    made: list[str] = []

    def container(owner: str) -> str:
        found = client.api.create_container(
            image_tag(), ["sleep", "600"], network_disabled=True,
            labels={SESSION_LABEL: "test-sweep", OWNER_LABEL: owner},
            host_config=client.api.create_host_config(network_mode="none"),
        )["Id"]  # fmt: skip
        client.api.start(found)
        made.append(found)
        return str(found)

    def gone(container_id: str) -> bool:
        return not client.api.containers(all=True, filters={"id": container_id})

    try:
        start("docker")
        dead = container(f"{HOST}:{dead_pid()}")
        directory = scratch(arena.tmp, HOST, dead_pid())
        live = container(f"{HOST}:1")
        assert eventually(lambda: gone(dead), within_s=SWEEP_S * 2)
        assert eventually(lambda: not directory.exists(), within_s=SWEEP_S * 2)
        assert not gone(live)
    finally:
        for left in made:
            if not gone(left):
                client.api.remove_container(left, force=True, v=True)
        client.close()


@pytest.mark.docker
def test_a_worker_sweeps_what_a_worker_in_an_ended_container_left(
    worker: tuple[Arena, Callable[..., object]],
) -> None:
    """A worker of compose.yaml runs in a container of the engine it starts bots in: a host
    of its own, which no other worker can look into. Killed (``docker kill``), the bots it
    started are found by any worker on that engine, through the container named in their
    labels: stopped, removed or started again since, its bots are orphans."""
    arena, start = worker
    client = docker_client()
    made: list[str] = []

    def run(command: list[str], labels: dict[str, str] | None = None) -> str:
        found = str(client.api.create_container(
            image_tag(), command, network_disabled=True, labels=labels or {},
            host_config=client.api.create_host_config(network_mode="none"),
        )["Id"])  # fmt: skip
        client.api.start(found)
        made.append(found)
        return found

    def started(cid: str) -> str:
        return f"{cid} {client.api.inspect_container(cid)['State']['StartedAt']}"

    def bot_of(owner_run: str) -> str:
        # As a worker in that container labels its bots: its host (the container's hostname)
        # and pid there, which nobody else can check, and its container's run.
        labels = {SESSION_LABEL: "test-sweep", OWNER_LABEL: f"{owner_run[:12]}:7"}
        return run(["sleep", "600"], labels | {CONTAINER_LABEL: owner_run})

    def gone(container_id: str) -> bool:
        return not client.api.containers(all=True, filters={"id": container_id})

    try:
        live = run(["sleep", "600"])
        killed = run(["sleep", "600"])
        restarted = run(["sleep", "600"])
        removed = run(["sleep", "600"])
        runs = {c: started(c) for c in (live, killed, restarted, removed)}
        bots = {c: bot_of(runs[c]) for c in runs}
        kept_dir = scratch(arena.tmp, live[:12], 7, runs[live])
        left_dir = scratch(arena.tmp, killed[:12], 7, runs[killed])
        client.api.kill(killed)
        client.api.restart(restarted, timeout=0)
        client.api.remove_container(removed, force=True)
        start("docker")
        for owner in (killed, restarted, removed):
            assert eventually(partial(gone, bots[owner]), within_s=SWEEP_S * 2), owner
        assert eventually(lambda: not left_dir.exists(), within_s=SWEEP_S * 2)
        assert not gone(bots[live]) and kept_dir.exists()
    finally:
        for left in made:
            if not gone(left):
                client.api.remove_container(left, force=True, v=True)
        client.close()
