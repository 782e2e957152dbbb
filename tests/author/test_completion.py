"""Shell completion, installed as a user installs it and run by a real bash: the script
``arena --install-completion bash`` writes, sourced, completes command names, a group's
commands, the sandbox's choices and the sample bots' names."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli.runner import arena_executable, run_arena

BASH = shutil.which("bash")


def completions(script: Path, home: Path, *words: str) -> list[str]:
    """What bash offers after ``words`` (the last one being completed) with ``script``
    sourced: the completion function's COMPREPLY, through typer's environment protocol."""
    line = " ".join(f"'{w}'" for w in words)
    program = (
        f"source '{script}'; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1};"
        ' _arena_completion arena; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("_ARENA")}
    env |= {"HOME": str(home), "PATH": f"{arena_executable().parent}:{env['PATH']}"}
    assert BASH is not None
    done = subprocess.run(
        [BASH, "--norc", "-c", program], env=env, capture_output=True, text=True, check=True
    )
    return sorted(line for line in done.stdout.splitlines() if line)  # bash shows them sorted


@pytest.mark.skipif(BASH is None, reason="no bash on this machine")
def test_bash_completion_installs_and_completes(tmp_path: Path) -> None:
    shown = run_arena("--show-completion", "bash")
    assert shown.returncode == 0, shown.stderr
    assert "complete -o default -F _arena_completion arena" in shown.stdout
    installed = run_arena("--install-completion", "bash", env={"HOME": str(tmp_path)})
    assert installed.returncode == 0, installed.stderr
    script = tmp_path / ".bash_completions" / "arena.sh"
    assert script.read_text().strip() == shown.stdout.strip()
    assert f"source '{script}'" in (tmp_path / ".bashrc").read_text()

    assert completions(script, tmp_path, "arena", "pl") == ["play"]
    assert completions(script, tmp_path, "arena", "to") == ["token", "tournament"]
    assert completions(script, tmp_path, "arena", "replay", "") == [
        "html", "show", "verify", "view"
    ]  # fmt: skip
    assert completions(script, tmp_path, "arena", "play", "--sandbox", "") == [
        "docker", "none", "process"
    ]  # fmt: skip
    assert completions(script, tmp_path, "arena", "play", "random", "he") == ["heuristic"]
