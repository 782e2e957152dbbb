"""A bot that spins at start-up gets no more than its start-up allowance of CPU while its
table starts (issue 23, item 5), and the freezer it is held with works on cgroup v1 and v2.

The attack, through ``arena play``: seat 3's bot spins from its import until it has used
1.5 s of CPU before it serves, saying every 20 ms how much it has used and when. Seat 2's
bot sleeps 4 s before it serves, so seat 3 is greeted 4 s after the table started at the
earliest. Unheld, the spinner would use a second or more of CPU meanwhile; held, it is
frozen at ``Limits.startup_cpu_ms`` (500 ms) and finishes its start-up in its own turn,
after seat 2 answered: the game is then played as usual.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.bots.limits import Limits
from arena.sandbox import ProcessSandbox
from arena.sandbox.freezer import make_bot_cgroup
from tests.cli.runner import run_arena

SPINNER = """
import time
from arena_sdk import Bot, run


class Spinner(Bot):
    def bid(self, obs):
        return obs.legal_bids[0]

    def play(self, obs):
        return obs.legal_plays[0]


said = 0.0
while time.process_time() < 1.5:
    if time.time() - said > 0.02:
        said = time.time()
        print(f"cpu {time.process_time() * 1000:.0f} at {said:.4f}", flush=True)
print(f"cpu {time.process_time() * 1000:.0f} at {time.time():.4f}", flush=True)
run(Spinner())
"""

LATE = """
import time
from arena_sdk import Bot, run


class Late(Bot):
    def on_game_start(self, seat, limits):
        print(f"hello at {time.time():.4f}", flush=True)

    def bid(self, obs):
        return obs.legal_bids[0]

    def play(self, obs):
        return obs.legal_plays[0]


time.sleep(4)
run(Late())
"""

FIRST_LEGAL = Path(__file__).resolve().parents[2] / "bench" / "first_legal"
SLACK_MS = 150  # the watch looks every 10 ms; the freeze takes hold a moment later


@pytest.mark.parametrize("sandbox", [pytest.param("docker", marks=pytest.mark.docker), "process"])
@pytest.mark.skipif(os.geteuid() != 0, reason="the cgroup freezer's files are root's")
def test_a_bot_spinning_at_start_up_gets_no_more_than_its_allowance(
    tmp_path: Path, sandbox: str
) -> None:
    for name, source in (("spinner", SPINNER), ("late", LATE)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "bot.py").write_text(source)
    result = run_arena(
        "play", FIRST_LEGAL, FIRST_LEGAL, tmp_path / "late", tmp_path / "spinner",
        "--seed", 3, "--sandbox", sandbox, "--logs", tmp_path / "logs", "--startup-ms", 60_000,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "forfeit:" not in result.stdout, result.stdout  # it started, in its own turn
    late = (tmp_path / "logs" / "seat2.log").read_text()
    seat2_hello = float(re.findall(r"^hello at ([\d.]+)$", late, re.M)[0])
    said = [
        (float(at), int(cpu))
        for cpu, at in re.findall(
            r"^cpu (\d+) at ([\d.]+)$", (tmp_path / "logs" / "seat3.log").read_text(), re.M
        )
    ]
    before = [cpu for at, cpu in said if at < seat2_hello]
    assert said[-1][1] >= 1500  # it did spin its 1.5 s, in the end
    assert max(before) <= Limits().startup_cpu_ms + SLACK_MS, (max(before), said)


SPIN = "while True: pass"


@pytest.mark.skipif(os.geteuid() != 0, reason="cgroups are made by root")
@pytest.mark.parametrize("root", ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"])
def test_a_frozen_cgroup_uses_no_cpu_once_its_freeze_took_hold(root: str) -> None:
    """The freezer of a process bot's cgroup, on each hierarchy this machine has: a
    spinning process's CPU time stands still from ``wait_frozen`` on, and runs on thawed."""
    if not (Path(root, "cgroup.controllers").exists() or Path(root, "freezer").is_dir()):
        pytest.skip(f"no cgroup v2 hierarchy nor v1 freezer at {root}")
    cgroup = make_bot_cgroup(f"test-{os.getpid()}-{time.monotonic_ns()}", Path(root))
    assert cgroup is not None
    spinner = subprocess.Popen(cgroup.joined([sys.executable, "-c", SPIN]))
    freezer = cgroup.freezer
    try:
        while (freezer.cpu_ms() or 0) < 50:  # it runs
            time.sleep(0.01)
        freezer.freeze()
        assert freezer.wait_frozen(5.0)
        assert freezer.is_frozen()
        frozen_at = freezer.cpu_ms()
        time.sleep(0.2)
        assert freezer.cpu_ms() == frozen_at
        freezer.thaw()
        assert not freezer.is_frozen()
        time.sleep(0.2)
        assert (freezer.cpu_ms() or 0) > (frozen_at or 0)
    finally:
        freezer.thaw()
        spinner.kill()
        spinner.wait()
        cgroup.remove()


@pytest.mark.skipif(os.geteuid() != 0, reason="cgroups are made by root")
def test_a_bot_cgroup_left_by_a_dead_platform_process_is_swept() -> None:
    """A platform process killed mid-game leaves its bots' cgroups: the next process sandbox
    opened on the host removes them, and never a live process's."""
    gone = subprocess.Popen(["true"])
    gone.wait()  # its pid is free: a platform process that is gone
    host = socket.gethostname()
    left = make_bot_cgroup(f"{host}-{gone.pid}-1")
    alive = make_bot_cgroup(f"{host}-{os.getpid()}-{time.monotonic_ns()}")
    assert left is not None and alive is not None
    try:
        ProcessSandbox().close()  # its sweeper sweeps as it starts, and close waits for it
        assert not any(d.exists() for d in left.dirs)
        assert all(d.exists() for d in alive.dirs)
    finally:
        left.remove(wait_s=0)
        alive.remove(wait_s=0)
