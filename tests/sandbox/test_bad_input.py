"""``arena play`` refuses what it can't run: one ``error:`` line, exit status 2, and nothing
left running (no bot process, no container)."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

import pytest

from tests.cli.runner import error_line, run_arena

from .traces import bot_containers, bot_processes

SEATS = ("random", "random", "random")


def play(
    tmp_path: Path, *args: object, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """``arena play ARGS``, and the bot processes it left running: those of its games, made
    in a TMPDIR of this test's (traces.py: other tests' bots, on this machine, are theirs)."""
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    result = run_arena("play", *args, env={"TMPDIR": str(tmpdir), **(env or {})})
    return result, bot_processes(tmpdir)


def test_a_directory_without_bot_py(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result, left = play(tmp_path, tmp_path / "empty", *SEATS, "--sandbox", "process")
    assert result.returncode == 2
    assert (
        error_line(result)
        == f"error: bot directory {tmp_path / 'empty'}: no bot.py or bot.toml at its root"
    )
    assert left == []


def test_an_archive_escaping_its_root(tmp_path: Path) -> None:
    archive = tmp_path / "evil.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name in ("bot.py", "../escape.py"):
            data = b"print('hi')\n"
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    result, left = play(tmp_path, archive, *SEATS, "--sandbox", "process")
    assert result.returncode == 2
    assert "escapes the archive's root" in error_line(result)
    assert not (tmp_path.parent / "escape.py").exists()
    assert left == []


def test_an_archive_with_a_link_out(tmp_path: Path) -> None:
    archive = tmp_path / "link.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        data = b"print('hi')\n"
        info = tarfile.TarInfo("bot.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("secrets")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc"
        tar.addfile(link)
    result = run_arena("play", archive, *SEATS, "--sandbox", "process")
    assert result.returncode == 2
    assert "is a link pointing outside the archive" in error_line(result)


@pytest.mark.docker
def test_an_image_that_does_not_exist() -> None:
    pids: list[int] = []
    result = run_arena(
        "play", "random", *SEATS, "--sandbox", "docker", "--image", "nope:404", pids=pids
    )
    assert result.returncode == 2
    assert error_line(result) == (
        "error: the bot image nope:404 does not exist: build it with `arena image build`"
    )
    assert bot_containers(pids[0]) == []


def test_a_docker_engine_that_does_not_answer(tmp_path: Path) -> None:
    result, left = play(
        tmp_path, "random", *SEATS, "--sandbox", "docker",
        env={"DOCKER_HOST": f"unix://{tmp_path / 'no-engine.sock'}"},
    )  # fmt: skip
    assert result.returncode == 2
    assert error_line(result).startswith("error: the Docker engine does not answer: ")
    assert left == []


def test_an_unknown_sandbox() -> None:
    result = run_arena("play", "random", *SEATS, "--sandbox", "vm")
    assert result.returncode == 2
    assert error_line(result) == (
        "error: unknown sandbox 'vm': expected one of docker, process, none"
    )
