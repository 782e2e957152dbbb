"""traces.py, which the "nothing left behind" checks ask, sees a game's bots while they run,
and only that game's: so those checks can fail, and fail only for their own test."""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import docker
import pytest

from arena.sandbox import confinement_problem
from arena.sandbox.docker_engine import docker_client
from tests.cli.runner import _environment, arena_executable

from .test_hostile import sdk_bot
from .traces import bot_containers, bot_processes

# A bot that thinks for ten minutes over its first bid: the game waits, its bots running.
THINKER = sdk_bot(bid="time.sleep(600)")


def playing(tmp_path: Path, sandbox: str) -> tuple[subprocess.Popen[str], Path]:
    """``arena play`` of the thinker and three random bots, under way, in a TMPDIR of its own."""
    bot = tmp_path / "thinker"
    bot.mkdir()
    (bot / "bot.py").write_text(THINKER)
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    game = subprocess.Popen(
        [str(arena_executable()), "play", str(bot), "random", "random", "random",
         "--sandbox", sandbox, "--move-ms", "600000"],
        env=_environment() | {"TMPDIR": str(tmpdir)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,  # a line or two, read if it ends
        text=True,
    )  # fmt: skip
    return game, tmpdir


def until(what: str, found: Callable[[], bool], game: subprocess.Popen[str]) -> None:
    """Wait for ``found()`` while ``game`` plays (a minute at most: bots start in seconds)."""
    deadline = time.monotonic() + 60
    while not found():
        if game.poll() is not None:
            assert game.stderr is not None
            pytest.fail(f"{what}: the game ended first ({game.returncode}): {game.stderr.read()}")
        assert time.monotonic() < deadline, f"{what}: not within a minute"
        time.sleep(0.2)


def test_a_game_s_bot_processes_are_seen_by_its_tmpdir_alone(tmp_path: Path) -> None:
    if confinement_problem() is not None:
        pytest.skip(f"the process backend refuses to run here: {confinement_problem()}")
    game, tmpdir = playing(tmp_path, "process")
    try:
        # Each bot: its sandbox (bwrap, naming its code's copy in the game's scratch
        # directory), and the bot in it, whose own command line names nothing of the test's.
        until("four bots running", lambda: len(bot_processes(tmpdir)) >= 4, game)
        assert any(str(tmpdir) not in line for line in bot_processes(tmpdir))
        assert bot_processes(tmp_path / "tmp") == []  # a prefix of its name, not its own
    finally:
        game.kill()
        game.communicate()
    deadline = time.monotonic() + 10  # its bots die with it (a parent-death signal)
    while bot_processes(tmpdir) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert bot_processes(tmpdir) == []


@pytest.mark.docker
def test_a_game_s_bot_containers_are_seen_by_its_pid_alone(tmp_path: Path) -> None:
    ended = subprocess.Popen(["true"])
    ended.wait()  # a pid no platform process has now
    game, _ = playing(tmp_path, "docker")
    try:
        until("four bot containers", lambda: len(bot_containers(game.pid)) == 4, game)
        assert bot_containers(ended.pid) == []
    finally:
        game.kill()
        game.communicate()
        client = docker_client()
        try:  # what the killed game left (any platform process's sweep would remove it too)
            for name in bot_containers(game.pid):
                # Removed meanwhile, or being removed (409): a sweep got there first.
                with contextlib.suppress(docker.errors.APIError):
                    client.api.remove_container(name, force=True, v=True)
        finally:
            client.close()
