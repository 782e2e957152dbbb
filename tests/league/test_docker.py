"""A submission's validation game runs in the sandbox it is given: with ``--sandbox docker``,
in bot containers (the one test of this directory that starts containers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.images.bot_images import ensure_image
from arena.sandbox.docker_engine import docker_client
from arena.store import VersionStatus

from .conftest import Arena

# Plays only where the docker sandbox runs a bot: its code at /bot, its HOME /tmp.
CONTAINED_ONLY = """\
import os, sys
from arena_sdk import Bot, run

if os.getcwd() != "/bot" or os.environ.get("HOME") != "/tmp":
    sys.exit(7)

class Contained(Bot):
    def bid(self, obs):
        return obs.legal_bids[0]

    def play(self, obs):
        return obs.legal_plays[0]

if __name__ == "__main__":
    run(Contained())
"""


@pytest.mark.docker
def test_the_validation_game_runs_in_containers(sqlite_arena: Arena, tmp_path: Path) -> None:
    client = docker_client()
    try:
        ensure_image(client)  # built here if CI has not built it already (1-3 minutes)
    finally:
        client.close()
    arena = sqlite_arena
    bot = tmp_path / "contained"
    bot.mkdir()
    (bot / "bot.py").write_text(CONTAINED_ONLY)
    token = arena.user("alice")

    boxed = arena.submit(bot, "boxed", token, "--sandbox", "docker")
    assert boxed.returncode == 0, boxed.stderr
    assert boxed.stdout == "boxed v1: active · 0 ladder matches scheduled\n"
    loose = arena.submit(bot, "loose", token, "--sandbox", "process")
    assert loose.returncode == 2
    assert "loose v1 rejected: validation game: " in loose.stderr
    with arena.store() as store:
        assert store.versions("boxed")[0].status == VersionStatus.ACTIVE
        assert store.versions("loose")[0].status == VersionStatus.REJECTED
    assert arena.leftovers() == []
