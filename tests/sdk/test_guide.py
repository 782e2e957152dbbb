"""The bots and commands of the SDK guide (docs/sdk.md) do what the guide says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.cli.runner import run_arena

from .botproc import bot_environment, write_bot
from .conftest import StartBot
from .guide import first_bot, python_blocks, smarter_bot, unit_test_example
from .positions import play_game


def test_the_guide_has_a_six_line_bot_and_a_smarter_one_within_twenty_lines() -> None:
    assert len(first_bot().splitlines()) == 6
    assert len(smarter_bot().splitlines()) <= 20


def test_every_python_block_of_the_guide_compiles() -> None:
    for i, block in enumerate(python_blocks()):
        compile(block, f"docs/sdk.md block {i}", "exec")


def test_the_guide_bots_play_a_whole_game(bots: StartBot) -> None:
    first, smarter = bots(first_bot(), name="first"), bots(smarter_bot(), name="smarter")
    seats = [smarter, first, smarter, first]  # neither keeps state: one process per bot
    assert smarter.hello(seat=0).bot_name == "SmarterBot"
    assert first.hello(seat=1).bot_name == "FirstBot"
    state = play_game(seats, seed=7, notify=[False] * 4)  # the engine refuses illegal answers
    assert state.is_terminal()


def test_the_unit_test_example_runs(tmp_path: Path) -> None:
    write_bot(tmp_path, smarter_bot())
    (tmp_path / "test_example.py").write_text(unit_test_example())
    result = subprocess.run(
        [sys.executable, "test_example.py"],
        cwd=tmp_path,
        env=bot_environment(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_arena_play_runs_the_guide_bot_against_the_sample_bots(tmp_path: Path) -> None:
    write_bot(tmp_path / "mybot", smarter_bot())
    result = run_arena("play", tmp_path / "mybot", "random", "heuristic", "random", "--seed", 7)
    assert result.returncode == 0, result.stderr
    assert "forfeit" not in result.stdout
    assert "final: team 0 " in result.stdout


def test_arena_play_measures_the_guide_bot_with_duplicate_games(tmp_path: Path) -> None:
    write_bot(tmp_path / "mybot", smarter_bot())
    bot = tmp_path / "mybot"
    result = run_arena("play", bot, "random", bot, "random", "--games", 1, "--duplicate")
    assert result.returncode == 0, result.stderr
    assert "forfeit" not in result.stdout
    assert "duplicate: 1 pairs" in result.stdout
