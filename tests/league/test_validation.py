"""A local ``arena submit`` plays the validation game at once (the worker's own step) and
keeps it: a bot that crashes in deal 2 is rejected with the deal named, and its owner reads
its replay and logs with ``--validation NAME@V``; another user is refused its logs."""

from __future__ import annotations

import json
from pathlib import Path

from tests.author.bots import RAISES_IN_DEAL_2, write_bot
from tests.cli.runner import error_line

from .conftest import Arena


def test_a_rejected_versions_validation_game_is_read_back(
    sqlite_arena: Arena, tmp_path: Path
) -> None:
    arena = sqlite_arena
    alice, bob = arena.user("alice"), arena.user("bob")
    fragile = write_bot(tmp_path / "fragile", RAISES_IN_DEAL_2)
    result = arena.submit(fragile, "fragile", alice, "--sandbox", "process")
    assert result.returncode == 2 and result.stdout == ""
    line = error_line(result)
    assert line.startswith("error: fragile v1 rejected: validation game: crash in deal 2, trick ")

    shown = arena.ok("replay", "--validation", "fragile@1")
    assert shown.stdout.startswith("fragile v1's validation game · seed 20261130\n")
    assert "forfeit: seat " in shown.stdout and "(fragile v1) crash" in shown.stdout
    replay = json.loads(arena.ok("replay", "--validation", "fragile@1", "--json").stdout)
    assert replay["result"]["forfeit"]["deal"] == 2

    logs = json.loads(
        arena.ok("logs", "--validation", "fragile@1", "--json", "--token", alice).stdout
    )
    assert [(entry["seat"], entry["label"]) for entry in logs] == [
        (0, "fragile v1"),
        (2, "fragile v1"),
    ]
    assert any("ValueError: no idea what to play" in entry["output"] for entry in logs)
    refused = arena.run("logs", "--validation", "fragile@1", "--token", bob)
    assert refused.returncode == 2
    assert error_line(refused) == "error: fragile v1 is not your bot: its logs are its owner's"

    for bad, said in (
        (("replay", "--validation", "fragile"), "error: --validation takes NAME@V"),
        (("replay", "--validation", "fragile@2"), "error: unknown version fragile@2"),
        (("replay", "1", "--validation", "fragile@1"), "error: name a match"),
        (("logs", "1", "x", "--validation", "fragile@1", "--token", alice), "error: name a match"),
    ):
        failed = arena.run(*bad)
        assert failed.returncode == 2 and error_line(failed).startswith(said), (bad, failed.stderr)
