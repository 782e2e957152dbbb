"""The sandbox's protections in force for a worker of compose.yaml: a container of the
host's engine, given what compose.yaml gives it (the socket, the shared directory, the host's
cgroup tree, lxcfs's files), which starts its bots as siblings in that engine.

``docker-compose run --no-deps worker play ...``: a game in the worker's container, of the
offline platform image, with compose.yaml's very mounts and settings (tests/deploy/stack.py;
no database, no server). Seat 0's bot ticks in a background thread and logs its count at
each decision, and logs the MemTotal of its /proc/meminfo; the other seats sleep 10 ms per
decision. From the host, while it plays, the test reads the freezer state of the bots'
cgroups.

- Frozen between its calls, the ticking bot ticks only during its own think time (the
  bound of tests/sandbox/test_freezer.py); awake, through the others' sleeps too, a few
  times more. And a bot's cgroup is seen FROZEN at some moment of the game.
- Its /proc/meminfo is lxcfs's, its container's own: MemTotal is its memory limit, not the
  host's memory.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import time
from pathlib import Path

import docker
import pytest

from arena.bots.limits import Limits
from arena.sandbox.docker import CONTAINER_LABEL
from arena.sandbox.docker_engine import docker_client
from arena.sandbox.freezer import CGROUP_ROOT
from arena.sandbox.procview import LXCFS_DIR
from tests.deploy.stack import compose_stack, need
from tests.sandbox.test_freezer import SLOW_BOT, TICKING_BOT, timing_row

pytestmark = pytest.mark.docker

# test_freezer's ticking bot, which first says what its /proc/meminfo reads.
_READS_MEMINFO = """        with open("/proc/meminfo") as f:
            print(f.readline().strip(), flush=True)  # MemTotal:  N kB
"""
_ON_START = "    def on_game_start(self, seat, limits):\n"
PROBE_BOT = TICKING_BOT.replace(_ON_START, _ON_START + _READS_MEMINFO)
assert PROBE_BOT != TICKING_BOT


_PROJECT = "com.docker.compose.project"


def freezer_states(client: docker.DockerClient, project: str) -> list[str]:
    """The freezer state of each bot container started by a container of ``project``, as
    the host's cgroup tree has it (cgroup v1, the engine's cgroupfs driver, as here)."""
    ours = [c.id for c in client.containers.list(filters={"label": f"{_PROJECT}={project}"})]
    states = []
    for bot in client.containers.list(filters={"label": CONTAINER_LABEL}, ignore_removed=True):
        if not any(bot.labels[CONTAINER_LABEL].startswith(f"{c} ") for c in ours):
            continue
        path = CGROUP_ROOT / "freezer" / "docker" / str(bot.id) / "freezer.state"
        with contextlib.suppress(OSError):  # gone meanwhile
            states.append(path.read_text().strip())
    return states


@pytest.mark.skipif(os.geteuid() != 0, reason="the worker runs as root, as compose.yaml has it")
def test_a_worker_in_a_container_freezes_its_bots_and_gives_them_lxcfs() -> None:
    need(
        (CGROUP_ROOT / "freezer" / "docker").is_dir(),
        "this check reads cgroup v1's freezer of the cgroupfs driver, which this host lacks",
    )
    need(os.access(LXCFS_DIR / "proc" / "meminfo", os.R_OK), "lxcfs is not running (./run)")
    client = docker_client()
    with compose_stack("freeze") as up:
        shared = Path(up.env["ARENA_DIR"])  # the worker's, at the same path
        for name, source in (("probe", PROBE_BOT), ("slow", SLOW_BOT)):
            (shared / name).mkdir()
            (shared / name / "bot.py").write_text(source)
        probe, slow, logs = shared / "probe", shared / "slow", shared / "logs"
        game = subprocess.Popen(
            [
                "docker-compose", "-f", "compose.yaml", "-f", "compose.offline.yaml",
                "run", "--rm", "--no-deps", "worker",
                "play", str(probe), str(slow), str(slow), str(slow), "--seed", "2",
                "--sandbox", "docker", "--logs", str(logs),
            ],
            cwd=Path(__file__).resolve().parents[2],
            env=os.environ | up.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        seen: set[str] = set()
        while game.poll() is None:
            seen.update(freezer_states(client, up.env["COMPOSE_PROJECT_NAME"]))
            time.sleep(0.01)
        stdout, stderr = game.communicate()
        log = (logs / "seat0.log").read_text() if game.returncode == 0 else ""
    assert game.returncode == 0, stderr
    assert "forfeit:" not in stdout, stdout
    assert "FROZEN" in seen, seen

    row = timing_row(stdout, 0)
    decisions, mean_ms = int(row[3]), float(row[4])
    counts = re.findall(r"^ticks (\d+)$", log, re.M)
    assert len(counts) == decisions
    # As in tests/sandbox/test_freezer.py: awake it would tick through the three slow
    # seats' sleeps too (30 ms per decision of its own), several times this bound.
    assert int(counts[-1]) <= decisions * mean_ms + 3 * decisions, (counts[-1], mean_ms)

    memory = re.search(r"^MemTotal:\s+(\d+) kB$", log, re.M)
    assert memory, log[:500]
    assert int(memory.group(1)) == Limits().memory_mb * 1024, memory.group(0)
