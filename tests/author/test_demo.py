"""``arena demo`` leaves a ladder to explore: each command it prints next works as printed."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import urllib.request
from pathlib import Path

from tests.cli.runner import _environment, arena_executable, error_line, run_arena


def shell(line: str, env: dict[str, str]) -> subprocess.Popen[str]:
    """A printed line, run by a shell as a user pastes it (``arena`` on the PATH)."""
    return subprocess.Popen(
        ["bash", "-c", line],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",
        env=env,
    )


def test_the_demo_s_next_commands_work_as_printed(tmp_path: Path) -> None:
    env = {k: v for k, v in _environment().items() if not k.startswith("ARENA_")}
    env["PATH"] = f"{arena_executable().parent}{os.pathsep}{env.get('PATH', '')}"
    env["TMPDIR"] = str(tmp_path)  # the demo's default data directory: under the test's own
    demo = subprocess.run(
        [str(arena_executable()), "demo", "--bots", "random,heuristic", "--sandbox", "process"],
        capture_output=True, encoding="utf-8", env=env, check=False,
    )  # fmt: skip
    assert demo.returncode == 0, demo.stderr
    lines = demo.stdout.splitlines()
    home = Path(lines[0].removeprefix("data directory: "))
    assert home.parent == tmp_path.resolve() and home.name.startswith("arena-demo-")
    start = lines.index("next, on the demo's ladder (arena web: then open the address it prints):")
    printed = [line.strip() for line in lines[start + 1 :]]
    commands = [re.sub(r"^ARENA_HOME=\S+ ", "", line) for line in printed]
    assert commands == [
        "arena ladder", "arena matches", "arena bot random", "arena replay 1", "arena web",
    ]  # fmt: skip
    assert all(line.startswith(f"ARENA_HOME={home} ") for line in printed)

    outputs = {}
    for line, command in zip(printed[:-1], commands[:-1], strict=True):
        proc = shell(line, env)
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, (line, stderr)
        outputs[command] = stdout
    assert {"random", "heuristic"} <= set(outputs["arena ladder"].split())
    assert "team A" in outputs["arena matches"] and "done" in outputs["arena matches"]
    assert outputs["arena bot random"].startswith("random, all versions: 4 seat-games")
    assert outputs["arena replay 1"].startswith("match 1 · game 1 · seed ")

    # The web, as printed but on a free port (8000 may be another's on a shared machine), and
    # started from its words, not through a shell: whether bash runs it in its place (then
    # SIGINT reaches it) or as a child (then SIGINT stops at bash) is bash's choice.
    assignment, *command = shlex.split(printed[-1] + " --listen 127.0.0.1:0")
    name, _, value = assignment.partition("=")
    assert name == "ARENA_HOME" and command[0] == "arena"
    web = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, encoding="utf-8",
        env=env | {name: value},
    )  # fmt: skip
    try:
        assert web.stdout is not None
        found = re.fullmatch(r"serving the arena at (http://\S+/)\n", web.stdout.readline())
        assert found, web.stderr
        with urllib.request.urlopen(found.group(1) + "api/ladder", timeout=30) as response:
            ladder = json.loads(response.read())
        assert {row["bot"] for row in ladder} == {"random", "heuristic"}
    finally:
        web.send_signal(signal.SIGINT)
        web.wait(timeout=30)
    assert web.returncode == 130  # stopped by Ctrl-C: 128 + SIGINT, as a shell reports it


def test_the_demo_refuses_an_unknown_bot(tmp_path: Path) -> None:
    refused = run_arena("demo", "--bots", "random,nobody", "--home", tmp_path / "d")
    assert refused.returncode == 2
    assert error_line(refused) == (
        "error: --bots takes sample bots (heuristic, heuristic_go, montecarlo, random, "
        "random_cpp, random_js), got 'random,nobody'"
    )
    assert not (tmp_path / "d").exists()
