"""The JavaScript SDK (sdk-js/): its own tests (``node --test``), the protocol it carries,
and a bot written with it, sample_bots/random_js, playing a game and refusing to start
without an address, as an author runs it (``node bot.js --port 0``)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.runner import run_arena

ROOT = Path(__file__).resolve().parents[2]
SDK_JS = ROOT / "sdk-js"
RANDOM_JS = ROOT / "sample_bots" / "random_js"
SERVING = re.compile(r"serving on 127\.0\.0\.1:(\d+)")
# Guards against a hung test, never assertions about speed.
GUARD_S = 120


def test_the_sdk_carries_the_protocol_as_protos_has_it() -> None:
    copy = SDK_JS / "proto" / "backalley" / "v1" / "player.proto"
    original = ROOT / "protos" / "backalley" / "v1" / "player.proto"
    assert copy.read_bytes() == original.read_bytes(), "stale: run python protos/generate.py"


def node_path(where: Path) -> str:
    """A NODE_PATH on which ``require("backalley-sdk")`` finds the SDK of this checkout (its
    dependencies in sdk-js/node_modules, which ``./run`` installs)."""
    modules = where / "node_modules"
    modules.mkdir(exist_ok=True)
    (modules / "backalley-sdk").symlink_to(SDK_JS)
    return str(modules)


def node_env(where: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ARENA_SOCKET"}
    return {**env, "NODE_PATH": node_path(where)}


def test_the_sdks_own_tests_pass() -> None:
    assert shutil.which("node"), "node is missing: ./run installs Debian's nodejs"
    done = subprocess.run(
        ["node", "--test", "test/"], cwd=SDK_JS, capture_output=True, text=True, timeout=GUARD_S
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert re.search(r"^# fail 0$", done.stdout, re.M), done.stdout[-2000:]


@pytest.fixture
def random_js(tmp_path: Path) -> Iterator[str]:
    """sample_bots/random_js served on a free port; its address as arena play takes it."""
    process = subprocess.Popen(
        ["node", "bot.js", "--port", "0"],
        cwd=RANDOM_JS,
        env=node_env(tmp_path),
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    line = process.stderr.readline()
    served = SERVING.search(line)
    try:
        assert served is not None, line + process.stderr.read()
        yield f"tcp://127.0.0.1:{served[1]}"
    finally:
        process.terminate()
        assert process.wait(timeout=GUARD_S) == 0  # SIGTERM ends it cleanly


def test_random_js_plays_a_whole_game(random_js: str, tmp_path: Path) -> None:
    replay = tmp_path / "g.json"
    result = run_arena(
        "play", random_js, "random", "random", "random", "--seed", 3, "--replay", replay,
        "--fail-on-forfeit", 0,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "forfeit" not in result.stdout
    assert re.search(r"│ 0 +│ tcp://\S+ +│ random_js +│ 206 ", result.stdout), result.stdout
    verified = run_arena("replay", "verify", replay)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_random_js_without_an_address_says_so(tmp_path: Path) -> None:
    done = subprocess.run(
        ["node", "bot.js"], cwd=RANDOM_JS, env=node_env(tmp_path), capture_output=True,
        text=True, timeout=GUARD_S,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == (
        "error: no address: set ARENA_SOCKET, or pass --socket PATH or --port PORT\n"
    )


# Until the platform runs a bot.toml's command itself, a bot.py that becomes `node bot.js`;
# the sandbox's NODE_PATH finds the SDK where ./run installs it (under the venv).
NODE_SHIM = """
import os

os.execvp("node", ["node", "bot.js"])
"""


def test_random_js_passes_the_check_in_the_process_sandbox(tmp_path: Path) -> None:
    """Node reserves far more address space than it uses: the process sandbox bounds its
    memory in its cgroup, and its address space only loosely, or node dies at start."""
    from arena.sandbox.process import confinement_problem

    if (problem := confinement_problem()) is not None:
        pytest.skip(f"the process backend refuses to run here: {problem}")
    installed = Path(sys.prefix) / "lib" / "node_modules" / "backalley-sdk"
    assert installed.is_dir(), "./run installs the SDK under the venv"
    bot = tmp_path / "random_js"
    shutil.copytree(RANDOM_JS, bot)
    (bot / "bot.py").write_text(NODE_SHIM)
    result = run_arena("check-bot", bot, "--sandbox", "process")
    assert result.returncode == 0, result.stdout + result.stderr
