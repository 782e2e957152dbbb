"""``arena play`` refuses what it can't run: one ``error:`` line, exit status 2, and nothing
left running (no bot process, no container)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from tests.cli.runner import error_line, run_arena

from .test_hostile import bot_containers

SEATS = ("random", "random", "random")


def _python_bots() -> list[str]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                environ = (proc / "environ").read_bytes()
                cmdline = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if b"ARENA_SOCKET=" in environ:
                found.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
    return found


def test_a_directory_without_bot_py(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = run_arena("play", tmp_path / "empty", *SEATS, "--sandbox", "process")
    assert result.returncode == 2
    assert (
        error_line(result)
        == f"error: bot directory {tmp_path / 'empty'}: no bot.py or bot.toml at its root"
    )
    assert _python_bots() == []


def test_an_archive_escaping_its_root(tmp_path: Path) -> None:
    archive = tmp_path / "evil.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name in ("bot.py", "../escape.py"):
            data = b"print('hi')\n"
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    result = run_arena("play", archive, *SEATS, "--sandbox", "process")
    assert result.returncode == 2
    assert "escapes the archive's root" in error_line(result)
    assert not (tmp_path.parent / "escape.py").exists()
    assert _python_bots() == []


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
    result = run_arena("play", "random", *SEATS, "--sandbox", "docker", "--image", "nope:404")
    assert result.returncode == 2
    assert error_line(result) == (
        "error: the bot image nope:404 does not exist: build it with `arena image build`"
    )
    assert bot_containers() == []


def test_a_docker_engine_that_does_not_answer(tmp_path: Path) -> None:
    result = run_arena(
        "play", "random", *SEATS, "--sandbox", "docker",
        env={"DOCKER_HOST": f"unix://{tmp_path / 'no-engine.sock'}"},
    )  # fmt: skip
    assert result.returncode == 2
    assert error_line(result).startswith("error: the Docker engine does not answer: ")
    assert _python_bots() == []


def test_an_unknown_sandbox() -> None:
    result = run_arena("play", "random", *SEATS, "--sandbox", "vm")
    assert result.returncode == 2
    assert error_line(result) == (
        "error: unknown sandbox 'vm': expected one of docker, process, none"
    )
