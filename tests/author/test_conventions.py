"""The command line's conventions, as a user meets them in ``--help``."""

from __future__ import annotations

import re

from arena import __version__
from tests.cli.runner import run_arena

COMMANDS = ["play", "submit", "ladder", "bot", "matches", "logs", "worker", "demo", "compare",
            "server", "status", "replay", "image", "bots", "user", "tournament"]  # fmt: skip


def test_version_and_short_help() -> None:
    version = run_arena("--version")
    assert version.returncode == 0 and version.stdout == f"arena {__version__}\n"
    short, long = run_arena("-h"), run_arena("--help")
    assert short.returncode == 0 and short.stdout == long.stdout
    listed = re.findall(r"^│ (\w+) ", long.stdout, flags=re.M)
    assert [c for c in listed if c in COMMANDS] == COMMANDS
    assert "arena replay MATCH" in long.stdout
    assert run_arena("play", "-h").stdout == run_arena("play", "--help").stdout


def test_help_has_readable_metavars_and_listed_choices() -> None:
    for command in (["play"], ["compare"], ["matches"], ["submit"]):
        text = run_arena(*command, "--help").stdout
        assert not re.search(r"<(bool|str|int|float)>", text), (command, text)
    play = run_arena("play", "--help").stdout
    assert re.search(r"--sandbox +\[docker\|process\|none\]", play), play
    assert re.search(r"--seed +INTEGER", play) and re.search(r"--fail-on-forfeit +SEAT", play)
    matches = run_arena("matches", "--help").stdout
    assert re.search(r"--status +<queued\|running\|done\|", matches), matches
