"""A bot's build step (``build`` in its ``bot.toml``) in each sandbox's build environment:
the docker sandbox's build image (the compilers, no network, a uid of its own), and this
host's compilers under the process sandbox; a build held to its time limit; ``arena play``
building a bot once and running it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from arena.bots.limits import Limits
from arena.images.bot_images import ensure_build_image
from arena.sandbox import SandboxError, open_sandbox
from arena.sandbox.build import BuildFailed, BuildLimits, build_bot
from arena.sandbox.docker_engine import docker_client
from tests.cli.runner import run_arena

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"


def shell_bot(tmp_path: Path, script: str) -> Path:
    bot = tmp_path / "shell"
    bot.mkdir()
    (bot / "bot.py").write_text("")
    (bot / "bot.toml").write_text(
        f'build = ["sh", "-c", {script!r}]\nrun = ["python3", "bot.py"]\n'
    )
    return bot


@pytest.mark.docker
def test_the_build_image_builds_go_offline_as_a_uid_of_its_own(tmp_path: Path) -> None:
    client = docker_client()
    try:
        ensure_build_image(client)  # built here if CI has not built it already
    finally:
        client.close()
    sandbox = open_sandbox("docker")
    try:
        build_bot(sandbox, SAMPLES / "heuristic_go", tmp_path / "go")
        probe = shell_bot(tmp_path, "ls /sys/class/net > net.txt; id -u > uid.txt")
        build_bot(sandbox, probe, tmp_path / "probe")
    finally:
        sandbox.close()
    product = tmp_path / "go" / "bot"
    assert product.is_file() and os.access(product, os.X_OK)
    assert product.read_bytes()[:4] == b"\x7fELF"
    assert (tmp_path / "probe" / "net.txt").read_text() == "lo\n"  # no network but loopback
    assert int((tmp_path / "probe" / "uid.txt").read_text()) >= 40_000_000  # not root's


def test_a_build_past_its_time_is_killed_with_a_clear_reason(tmp_path: Path) -> None:
    sandbox = open_sandbox("process")
    try:
        with pytest.raises(BuildFailed, match=r"^build failed \(timed out after \d+ s\): "):
            build_bot(
                sandbox, shell_bot(tmp_path, "echo compiling; sleep 60"), tmp_path / "out",
                BuildLimits(seconds=1),
            )  # fmt: skip
    finally:
        sandbox.close()


@pytest.mark.skipif(shutil.which("g++") is None, reason="the host has no g++")
def test_arena_play_builds_a_cpp_bot_once_and_plays_it(tmp_path: Path) -> None:
    env = {"ARENA_HOME": str(tmp_path / "home")}
    for _ in range(2):
        played = run_arena(
            "play", "random_cpp", "random", "random_cpp", "random", "--seed", "3",
            "--sandbox", "process", env=env,
        )  # fmt: skip
        assert played.returncode == 0, played.stderr
        assert "forfeit" not in played.stdout
    (built,) = (tmp_path / "home" / "cache" / "builds").iterdir()  # built once, then cached
    assert (built / "bot").is_file()

    broken = tmp_path / "broken"
    shutil.copytree(SAMPLES / "random_cpp", broken)
    (broken / "bot.cpp").write_text("int main( {\n")
    refused = run_arena(
        "play", broken, "random", "random", "random", "--sandbox", "process", env=env
    )
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"error: {broken}: build failed (exit status 1): ")


def test_a_runtime_or_compiler_this_host_lacks_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox = open_sandbox("process")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no go, no node on this PATH
    try:
        with pytest.raises(SandboxError, match=r"^this host has no go to build the bot with"):
            build_bot(sandbox, SAMPLES / "heuristic_go", tmp_path / "go")
        node = tmp_path / "node-bot"
        node.mkdir()
        (node / "bot.js").write_text("")
        (node / "bot.toml").write_text('language = "node"\n')
        with pytest.raises(SandboxError, match=r"^this host has no node for the process sandbox"):
            sandbox.start(node, tmp_path / "run", Limits())
    finally:
        sandbox.close()
