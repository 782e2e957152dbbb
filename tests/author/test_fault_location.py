"""Where and why a bot failed, through ``arena play`` as an author runs it: the forfeit names
the deal, the trick and what was on the table, the replay records it, and the faulting bot's
last log lines (its traceback) are printed under it, inert."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from tests.author.bots import ILLEGAL_IN_DEAL_2, RAISES_IN_DEAL_2, SYNTAX_ERROR, write_bot
from tests.cli.runner import run_arena

CARD = r"[2-9TJQKA][SHDC]|BB|LB"
WINDOW_MS = 120_000  # the start-up window of the SyntaxError test, far beyond the platform's


def where_line(stdout: str) -> str:
    lines = stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("forfeit: "))
    assert lines[at + 1].startswith("   where: "), lines[at : at + 2]
    return lines[at + 1]


def test_an_illegal_card_in_deal_2_is_located(tmp_path: Path) -> None:
    bot = write_bot(tmp_path / "mybot", ILLEGAL_IN_DEAL_2)
    replay = tmp_path / "g.json"
    result = run_arena("play", bot, "random", "random", "random", "--seed", 4, "--replay", replay)
    assert result.returncode == 0, result.stderr
    where = where_line(result.stdout)
    # e.g. "deal 2 (12 cards, trump D), trick 1: seat 3 led 8S; seat 0 (...) played 2H,
    # legal were 7S AS"
    pattern = (
        rf"   where: deal 2 \(12 cards, (trump [SHDC]|no trump)\), trick 1: (seat \d (led|played)"
        rf" ({CARD})(, )?)*; seat 0 \({re.escape(str(bot))}\) played ({CARD}), legal were"
        rf" (({CARD}) ?)+$"
    )
    assert re.fullmatch(pattern, where), where
    played = re.search(rf"\) played ({CARD}), legal were (.*)$", where)
    assert played is not None
    card, legal = played.group(1), played.group(2).split()
    assert card not in legal
    forfeit = json.loads(replay.read_text())["result"]["forfeit"]
    assert (forfeit["deal"], forfeit["dealing"], forfeit["trick"]) == (2, 2, 1)
    assert forfeit["step"] == "play" and forfeit["reason"] == "illegal"
    assert forfeit["situation"] == where.removeprefix("   where: ")
    # The engine's own legal set for that moment, from the replay, is the one printed.
    verified = run_arena("replay", "verify", replay)
    assert verified.returncode == 0, verified.stderr


def test_a_game_line_of_several_games_names_the_deal_and_trick(tmp_path: Path) -> None:
    bot = write_bot(tmp_path / "mybot", ILLEGAL_IN_DEAL_2)
    result = run_arena(
        "play", bot, "random", "random", "random", "--seed", 4, "--games", 2,
        "--logs", tmp_path / "logs",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    games = [line for line in result.stdout.splitlines() if line.startswith("game seed")]
    assert len(games) == 2
    assert all("forfeit by seat 0 in deal 2, trick " in line for line in games), games


def test_a_crash_shows_the_traceback_from_the_bots_log(tmp_path: Path) -> None:
    bot = write_bot(tmp_path / "fragile", RAISES_IN_DEAL_2)
    result = run_arena("play", bot, "random", "random", "random", "--seed", 4)
    assert result.returncode == 0, result.stderr
    assert where_line(result.stdout).startswith("   where: deal 2 (12 cards")
    lines = result.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("   its log ends ("))
    tail = lines[at + 1 : at + 16]
    assert f'   |   File "{bot}/bot.py", line 13, in play' in tail, tail
    assert "   | ValueError: no idea what to play" in tail, tail
    # Kept by default, in a run directory the output names.
    logs = [Path(line.removeprefix("log: ")) for line in lines if line.startswith("log: ")]
    assert [p.name for p in logs] == [f"seat{s}.log" for s in range(4)]
    run_dir = logs[0].parent
    try:
        assert "ValueError: no idea what to play" in logs[0].read_text()
        assert lines[at] == f"   its log ends ({logs[0]}):"
    finally:
        shutil.rmtree(run_dir)


def test_a_syntax_error_is_reported_at_once_with_its_line(tmp_path: Path) -> None:
    """The start-up window is two minutes and the command may take one (a shared machine's
    bad minute; bench/startup_fault.py measures the seconds it takes): a platform that waited
    for the window fails here, the bot's exit is what must end the wait."""
    bot = write_bot(tmp_path / "broken", SYNTAX_ERROR)
    result = run_arena(
        "play", bot, "random", "random", "random", "--seed", 1, "--startup-ms", WINDOW_MS,
        "--logs", tmp_path / "logs", timeout=WINDOW_MS / 1000 / 2,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    # It dies before it makes its socket (the sandbox's words; after it: "during start-up").
    assert f"forfeit: seat 0 ({bot}) startup: exit status 1 before making its socket" in lines
    assert where_line(result.stdout) == f"   where: before deal 1: seat 0 ({bot}) starting"
    assert f'   |   File "{bot}/bot.py", line 6' in lines
    assert "   | SyntaxError: expected ':'" in lines


HOSTILE_OUTPUT = """
import sys
from arena_sdk import Bot, run


class Loud(Bot):
    def bid(self, obs):
        print("\\x1b[2J\\x1b]0;owned\\x07[bold red]markup[/]", file=sys.stderr, flush=True)
        raise RuntimeError("\\x1b[31mred")

    def play(self, obs):
        return obs.legal_plays[0]


run(Loud())
"""


def test_what_the_bot_wrote_is_shown_inert(tmp_path: Path) -> None:
    bot = write_bot(tmp_path / "loud", HOSTILE_OUTPUT)
    result = run_arena(
        "play", bot, "random", "random", "random", "--seed", 2, "--logs", tmp_path / "logs"
    )
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "   | \\x1b[2J\\x1b]0;owned\\x07[bold red]markup[/]" in result.stdout.splitlines()
    forfeit = next(line for line in result.stdout.splitlines() if line.startswith("forfeit: "))
    assert forfeit.endswith("RuntimeError: \\x1b[31mred"), forfeit


def test_fail_on_forfeit_exits_1_only_for_the_seat_named(tmp_path: Path) -> None:
    bot = write_bot(tmp_path / "mybot", ILLEGAL_IN_DEAL_2)
    common = ["play", bot, "random", "random", "random", "--seed", 4, "--logs", tmp_path / "l"]
    failed = run_arena(*common, "--fail-on-forfeit", 0)
    assert failed.returncode == 1, failed.stderr
    assert failed.stderr == f"the bot of seat 0 ({bot}) forfeited\n"
    passed = run_arena(*common, "--fail-on-forfeit", 1)
    assert passed.returncode == 0, passed.stderr
    bad = run_arena(*common, "--fail-on-forfeit", 4)
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: ") and "--fail-on-forfeit" in bad.stderr
    assert len(bad.stderr.splitlines()) == 1
