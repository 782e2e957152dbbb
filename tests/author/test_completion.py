"""Shell completion, installed as a user installs it and run by a real bash: the script
that ``arena --install-completion`` writes when bash runs it, sourced, completes command
names, a group's commands, the sandbox's choices and the sample bots' names."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli.runner import arena_executable

BASH = shutil.which("bash")


def in_bash(program: str, home: Path) -> str:
    """What ``program`` prints, run by bash as a user's shell runs it: ``arena`` on the PATH,
    and bash the parent of what it runs (typer finds the shell to complete for that way)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("_ARENA")}
    env |= {"HOME": str(home), "PATH": f"{arena_executable().parent}:{env['PATH']}"}
    env |= {"NO_COLOR": "1", "TERM": "dumb"}
    assert BASH is not None
    done = subprocess.run(
        [BASH, "--norc", "-c", f"{program}; true"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0 and not done.stderr, done.stderr
    return done.stdout


def completions(script: Path, home: Path, *words: str) -> list[str]:
    """What bash offers after ``words`` (the last one being completed) with ``script``
    sourced: the completion function's COMPREPLY, through typer's environment protocol."""
    line = " ".join(f"'{w}'" for w in words)
    shown = in_bash(
        f"source '{script}'; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1};"
        ' _arena_completion arena; printf "%s\\n" "${COMPREPLY[@]}"',
        home,
    )
    return sorted(line for line in shown.splitlines() if line)  # bash shows them sorted


@pytest.mark.skipif(BASH is None, reason="no bash on this machine")
def test_bash_completion_installs_and_completes(tmp_path: Path) -> None:
    shown = in_bash("arena --show-completion", tmp_path)
    assert "complete -o default -F _arena_completion arena" in shown
    installed = in_bash("arena --install-completion", tmp_path)
    assert installed.startswith("bash completion installed in"), installed
    script = tmp_path / ".bash_completions" / "arena.sh"
    assert script.read_text().strip() == shown.strip()
    assert f"source '{script}'" in (tmp_path / ".bashrc").read_text()

    assert completions(script, tmp_path, "arena", "pl") == ["play"]
    assert completions(script, tmp_path, "arena", "to") == ["token", "tournament"]
    assert completions(script, tmp_path, "arena", "replay", "") == [
        "html", "show", "verify", "view"
    ]  # fmt: skip
    assert completions(script, tmp_path, "arena", "play", "--sandbox", "") == [
        "docker", "none", "process"
    ]  # fmt: skip
    assert completions(script, tmp_path, "arena", "play", "random", "he") == [
        "heuristic",
        "heuristic_go",
    ]
