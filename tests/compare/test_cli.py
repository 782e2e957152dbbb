"""``arena compare`` as the real console script, with the quick process sandbox.

A 20-Elo window (the default) needs 53 pairs of only wins for H1 and 50 of only draws for
H0 (tests/compare/test_sprt.py): over a hundred games, minutes here. These tests widen the
window to 200 Elo (8 and 5 pairs), which the SPRT reaches the same way. montecarlo is too slow
for a test (~40 s a game, and even an infinitely wide window needs 5 pairs), so heuristic
stands in for the strong bot: it beats random by ~2400 points per pair.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from arena.play.bot_specs import SAMPLE_BOTS
from tests.cli.runner import error_line, run_arena

QUICK = ("--sandbox", "process", "--elo1", 200)
PAIR_LINE = re.compile(
    r"pair (\d+) · seed (\d+) · points A (-?\d+) B (-?\d+) · W/D/L (\d+)/(\d+)/(\d+)"
    r" · score (\d\.\d{3}) · Elo \S+ ± \S+ · LLR (-?\d+\.\d\d) in \[-2\.94, 2\.94\]"
)


def pair_lines(stdout: str) -> list[re.Match[str]]:
    found = [PAIR_LINE.fullmatch(line) for line in stdout.splitlines() if line.startswith("pair")]
    assert all(found), stdout
    return [m for m in found if m is not None]


def test_a_stronger_bot_passes_h1() -> None:
    """Three pairs at a time: the ninth pair is played but not counted, so the verdict is
    the one a pair at a time gives (8 pairs, like 8 wins in test_sprt)."""
    result = run_arena("compare", "heuristic", "random", "--seed", 1, "--concurrency", 3, *QUICK)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "compare: A = heuristic · B = random · seeds from 1 · elo0 0 · elo1 200 · alpha 0.05"
        " · beta 0.05 · pairs scored by points (W/D/L)"
    )
    pairs = pair_lines(result.stdout)
    assert [int(m[1]) for m in pairs] == list(range(1, 9))
    assert [int(m[2]) for m in pairs] == list(range(1, 9))  # seeds in order
    assert all(int(m[3]) > int(m[4]) for m in pairs)
    assert pairs[-1].group(5, 6, 7) == ("8", "0", "0")
    assert float(pairs[-2][9]) < 2.94 < float(pairs[-1][9])
    assert lines[-2] == "result: 8 pairs · W/D/L 8/0/0 · score 1.000 · Elo +inf ± inf (95%)"
    assert lines[-1] == (
        "verdict: H1 (A - B >= 200 Elo, not <= 0) after 8 pairs · LLR 3.35 in [-2.94, 2.94]"
    )


def test_a_copy_of_itself_stops_on_h0(tmp_path: Path) -> None:
    """Deterministic bots draw every pair with themselves; the same run twice, the same lines."""
    copy = tmp_path / "elsewhere" / "random"
    shutil.copytree(SAMPLE_BOTS / "random", copy)
    first = run_arena("compare", "random", copy, "--seed", 7, *QUICK)
    assert first.returncode == 0, first.stderr
    pairs = pair_lines(first.stdout)
    assert len(pairs) == 5
    assert all(m[3] == m[4] for m in pairs)  # equal points: a draw
    assert pairs[-1].group(5, 6, 7) == ("0", "5", "0")
    assert first.stdout.splitlines()[-1] == (
        "verdict: H0 (A - B <= 0 Elo, not >= 200) after 5 pairs · LLR -3.66 in [-2.94, 2.94]"
    )
    second = run_arena("compare", "random", copy, "--seed", 7, "--concurrency", 2, *QUICK)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout


def test_no_verdict_within_max_pairs_exits_1(tmp_path: Path) -> None:
    result = run_arena("compare", "random", "random", "--seed", 3, "--max-pairs", 1, *QUICK)
    assert result.returncode == 1, result.stderr
    assert len(pair_lines(result.stdout)) == 1
    assert result.stdout.splitlines()[-1] == (
        "no verdict after 1 pairs (--max-pairs) · LLR -0.73 in [-2.94, 2.94]"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nosuchbot", "random"], "error: unknown bot 'nosuchbot'"),
        (["random", "no/such/dir"], "error: no bot at no/such/dir"),
        (["random", "random", "--elo0", 20], "error: --elo0 must be below --elo1, got 20 >= 20"),
        (["random", "random", "--elo0", 30, "--elo1", 10], "error: --elo0 must be below --elo1"),
        (["random", "random", "--alpha", 0], "error: --alpha must be in (0, 1), got 0"),
        (["random", "random", "--alpha", 1.5], "error: --alpha must be in (0, 1), got 1.5"),
        (["random", "random", "--beta", -0.1], "error: --beta must be in (0, 1), got -0.1"),
        (["random", "random", "--max-pairs", 0], "error: --max-pairs and --concurrency"),
        (["random", "random", "--seed", -1], "error: --seed must be >= 0"),
        (["random", "random", "--move-ms", 0], "error: limit move_ms must be > 0"),
        (["random", "random", "--sandbox", "vm"], "error: unknown sandbox 'vm'"),
        (["random"], "error: Missing argument 'B'."),
    ],
)
def test_bad_input_is_one_error_line(args: list[object], message: str) -> None:
    result = run_arena("compare", *args)
    assert result.returncode == 2
    assert error_line(result).startswith(message), result.stderr
    assert result.stdout == ""
