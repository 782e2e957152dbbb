"""The ladder's commands fail closed: without a Docker engine, ``worker`` and a local
``submit`` refuse to start (one ``error:`` line, exit status 2, nothing stored) unless a
weaker sandbox is asked for by name; ``arena play`` still falls back, saying so. ``server``
plays no game (the workers play the validation games), so it needs no engine
(tests/service/test_validation.py starts one without)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.runner import error_line, run_arena
from tests.league.conftest import SAMPLE_BOTS, Arena, make_arena

REFUSAL = (
    "error: no Docker engine answers, and the ladder runs bots only in containers unless told "
    "otherwise: start the engine, or pass --sandbox process (weaker) explicitly"
)


@pytest.fixture
def no_engine(tmp_path: Path) -> dict[str, str]:
    """No engine at DOCKER_HOST, and no sandbox chosen by $ARENA_SANDBOX either."""
    return {"DOCKER_HOST": f"unix://{tmp_path / 'no-engine.sock'}", "ARENA_SANDBOX": ""}


@pytest.fixture
def ladder(tmp_path: Path) -> Arena:
    return make_arena(tmp_path)


def test_a_worker_refuses_to_start_without_an_engine(
    ladder: Arena, no_engine: dict[str, str]
) -> None:
    before = ladder.rows()
    result = ladder.run("worker", "--until-idle", env=no_engine)
    assert result.returncode == 2, result.stderr
    assert error_line(result) == REFUSAL
    assert ladder.rows() == before


def test_submit_refuses_and_stores_nothing(ladder: Arena, no_engine: dict[str, str]) -> None:
    token = ladder.user("alice")
    before = ladder.rows()
    result = ladder.run(
        "submit", SAMPLE_BOTS / "random", "--name", "r", "--token", token, env=no_engine
    )
    assert result.returncode == 2, result.stderr
    assert error_line(result) == REFUSAL
    assert ladder.rows() == before


def test_submit_with_the_process_sandbox_asked_for(
    ladder: Arena, no_engine: dict[str, str]
) -> None:
    token = ladder.user("alice")
    result = ladder.run(
        "submit", SAMPLE_BOTS / "random", "--name", "r", "--token", token,
        "--sandbox", "process", env=no_engine,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "r v1: active" in result.stdout
    assert "warning" not in result.stderr


def test_play_falls_back_and_says_so(no_engine: dict[str, str]) -> None:
    result = run_arena("play", "random", "random", "random", "random", "--seed", 1, env=no_engine)
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith(
        "warning: no Docker engine answers: bots run as local processes, a weaker sandbox\n"
    )


def test_the_process_sandbox_refuses_what_it_cannot_confine(tmp_path: Path) -> None:
    """Without bubblewrap the process sandbox runs no bot at all (it would run them as the
    platform's uid, root here, seeing the host): one ``error:`` line saying what to do."""
    tools = tmp_path / "bin"  # the tools it needs, but bwrap
    tools.mkdir()
    for tool in ("prlimit", "setpriv"):
        (tools / tool).symlink_to(f"/usr/bin/{tool}")
    result = run_arena(
        "play", "random", "random", "random", "random", "--sandbox", "process",
        env={"PATH": str(tools)},
    )  # fmt: skip
    assert result.returncode == 2
    assert error_line(result) == (
        "error: the process sandbox cannot confine bots here: it needs bwrap (bubblewrap), "
        "which is missing: `./run` installs it; or use --sandbox docker"
    )
    assert result.stdout == ""
