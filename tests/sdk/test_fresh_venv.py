"""The SDK installs alone: a fresh virtualenv with ``pip install sdk`` and nothing else can
run the guide's first bot, and cannot import the platform.

This needs the package index (for grpcio and protobuf). The SDK is copied out of the
repository first, so the build leaves nothing behind in ``sdk/``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from backalley.v1 import player_pb2 as pb

from tests.cli.runner import run_arena

from .botproc import start_bot
from .guide import first_bot
from .positions import advance, bidding, engine_request, following_with_a_choice

REPO = Path(__file__).resolve().parents[2]


def clean_environment() -> dict[str, str]:
    drop = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "ARENA_SOCKET")
    return {k: v for k, v in os.environ.items() if k not in drop}


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        cwd=cwd,
        env=clean_environment(),
        capture_output=True,
        text=True,
        timeout=900,  # a guard for a stuck download, not a speed requirement
        check=False,
    )


def test_the_sdk_alone_runs_the_first_bot_of_the_guide(tmp_path: Path) -> None:
    sdk = tmp_path / "sdk"
    shutil.copytree(
        REPO / "sdk", sdk, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    )
    venv = tmp_path / "venv"
    made = run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    python = str(venv / "bin" / "python")
    installed = run([python, "-m", "pip", "install", "--quiet", str(sdk)], cwd=tmp_path)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    # Run from tmp_path, away from the repository: nothing of the platform is importable.
    imports = run([python, "-c", "import arena_sdk, backalley.v1.player_pb2_grpc"], cwd=tmp_path)
    assert imports.returncode == 0, imports.stderr
    platform = run([python, "-c", "import arena"], cwd=tmp_path)
    assert platform.returncode == 1
    assert "ModuleNotFoundError: No module named 'arena'" in platform.stderr

    bot = start_bot(tmp_path / "bot", first_bot(), python=python)
    try:
        reply = bot.hello()
        assert reply.protocol_version == pb.PROTOCOL_VERSION_1
        assert reply.bot_name == "FirstBot"
        assert reply.wants_notifications is False
        bid = engine_request(advance(seed=1, until=bidding))
        assert bot.bid(bid).bid in bid.legal_bids
        play = engine_request(advance(seed=1, until=following_with_a_choice))
        assert bot.play(play).card in play.legal_plays
    finally:
        bot.kill()

    # The issue's own bot, in that virtualenv, plays a whole game against the sample bots
    # through arena play (the sample bots run on the same SDK-only interpreter).
    mine = tmp_path / "mybot"
    mine.mkdir()
    (mine / "bot.py").write_text(ISSUE_BOT)
    game = run_arena(
        "play", mine, "random", "heuristic", "random", "--seed", 1, "--bot-python", python
    )
    assert game.returncode == 0, game.stderr
    assert "forfeit" not in game.stdout
    assert any(line.startswith("final: team 0 ") for line in game.stdout.splitlines())


ISSUE_BOT = """\
from arena_sdk import Bot, run
class MyBot(Bot):
    def bid(self, obs): return obs.legal_bids[0]
    def play(self, obs): return obs.legal_plays[0]
if __name__ == "__main__":
    run(MyBot())
"""
