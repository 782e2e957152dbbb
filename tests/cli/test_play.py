"""``arena play``, run as the real console script: output, determinism, replays, bad input."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

from tests.cli.runner import error_line, run_arena

BOTS = ["random", "random", "heuristic", "heuristic"]
FINAL = re.compile(r"final: team 0 (-?\d+) · team 1 (-?\d+) · (team [01] wins|draw)")


def game_lines(stdout: str) -> list[str]:
    """Everything up to the final line: the game itself, not the bots' think times after it."""
    lines = stdout.splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith("final:"))
    return lines[: end + 1]


def deal_headers(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("Deal ")]


def test_play_prints_every_deal_and_a_final_line() -> None:
    result = run_arena("play", *BOTS, "--seed", 5)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "seed 5 · pair A = seats 0+2 (random, heuristic) · pair B = seats 1+3 (random, heuristic)"
    )
    headers = deal_headers(result.stdout)
    assert len(headers) >= 25
    numbers = [int(h.split("·")[0].removeprefix("Deal ")) for h in headers]
    assert numbers[0] == 1 and numbers[-1] == 25
    assert sorted(set(numbers)) == list(range(1, 26))
    assert numbers == sorted(numbers)  # redeals repeat a number, never go back
    assert headers[0].startswith("Deal  1 · 13 cards · dealer ")
    assert any(h.startswith("Deal 13 ·  1 card · ") for h in headers)
    finals = [line for line in lines if line.startswith("final:")]
    assert len(finals) == 1, result.stdout
    final = FINAL.fullmatch(finals[0])
    assert final, finals[0]
    t0, t1, outcome = int(final[1]), int(final[2]), final[3]
    assert outcome == ("draw" if t0 == t1 else f"team {0 if t0 > t1 else 1} wins")


def test_same_seed_same_output() -> None:
    first = run_arena("play", *BOTS, "--seed", 5)
    second = run_arena("play", *BOTS, "--seed", 5)
    assert first.returncode == second.returncode == 0
    assert game_lines(first.stdout) == game_lines(second.stdout)


def test_another_seed_another_game() -> None:
    five = run_arena("play", *BOTS, "--seed", 5)
    six = run_arena("play", *BOTS, "--seed", 6)
    assert five.returncode == six.returncode == 0
    assert deal_headers(five.stdout) != deal_headers(six.stdout)


def test_replay_file_verifies_and_matches_the_output(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    result = run_arena("play", *BOTS, "--seed", 5, "--replay", path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == f"replay written to {path}"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["seed"] == 5
    assert [p["name"] for p in data["players"]] == BOTS
    assert len(deal_headers(result.stdout)) == len(data["deals"])  # redeals printed too
    final = FINAL.fullmatch(game_lines(result.stdout)[-1])
    assert final, result.stdout
    assert data["result"]["totals"] == [int(final[1]), int(final[2])]
    assert not any("legal" in t for d in data["deals"] for t in d["tricks"])

    verify = run_arena("replay", "verify", path)
    assert verify.returncode == 0, verify.stderr
    assert verify.stderr == ""
    totals = data["result"]["totals"]
    assert verify.stdout == (
        f"{path}: ok · {len(data['deals'])} dealings · totals {totals[0]} {totals[1]}\n"
    )
    # No temp file left; the bots' logs beside the replay, each printed.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json", "game.logs"]
    logs = sorted((tmp_path / "game.logs").iterdir())
    assert [p.name for p in logs] == [f"seat{s}.log" for s in range(4)]
    assert all(f"log: {p}" in lines for p in logs)


def test_record_legal_replay_verifies(tmp_path: Path) -> None:
    path = tmp_path / "legal.json"
    result = run_arena("play", *BOTS, "--seed", 8, "--record-legal", "--replay", path)
    assert result.returncode == 0, result.stderr
    data = json.loads(path.read_text(encoding="utf-8"))
    tricks = [t for d in data["deals"] for t in d["tricks"]]
    assert tricks and all(len(t["legal"]) == len(t["plays"]) for t in tricks)
    verify = run_arena("replay", "verify", path)
    assert verify.returncode == 0, verify.stderr


def test_replay_without_seed_records_the_one_drawn(tmp_path: Path) -> None:
    path = tmp_path / "unseeded.json"
    result = run_arena("play", *BOTS, "--replay", path)
    assert result.returncode == 0, result.stderr
    seed = int(result.stdout.split()[1])
    assert json.loads(path.read_text(encoding="utf-8"))["seed"] == seed
    assert run_arena("replay", "verify", path).returncode == 0


def test_unknown_bot(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    result = run_arena("play", "random", "nope", "random", "random", "--seed", 1, "--replay", path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        "error: unknown bot 'nope': not a sample bot (heuristic, heuristic_go, montecarlo, "
        "random, random_cpp, random_js) nor a path\n"
    )
    assert list(tmp_path.iterdir()) == []  # no replay written


@pytest.mark.parametrize("bots", [BOTS[:3], [*BOTS, "random"], BOTS[:1]], ids=["3", "5", "1"])
def test_wrong_number_of_bots(tmp_path: Path, bots: list[str]) -> None:
    path = tmp_path / "game.json"
    result = run_arena("play", *bots, "--seed", 1, "--replay", path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert error_line(result) == f"error: a game needs exactly 4 bots, got {len(bots)}"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("form", ["separate", "equals"])
def test_negative_max_redeals(tmp_path: Path, form: str) -> None:
    option = ["--max-redeals", "-1"] if form == "separate" else ["--max-redeals=-1"]
    result = run_arena("play", *BOTS, "--seed", 1, *option, "--replay", tmp_path / "g.json")
    assert result.returncode == 2
    assert result.stdout == ""
    line = error_line(result)
    assert "max_redeals" in line and "-1" in line
    assert list(tmp_path.iterdir()) == []


def test_max_redeals_zero_is_allowed(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    result = run_arena("play", *BOTS, "--seed", 1, "--max-redeals", 0, "--replay", path)
    assert result.returncode == 0, result.stderr
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["rules"] == {"max_redeals": 0}
    assert not any(d.get("redeal") for d in data["deals"])
    assert run_arena("replay", "verify", path).returncode == 0


def test_replay_into_a_missing_directory(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such"
    result = run_arena("play", *BOTS, "--seed", 1, "--replay", missing / "game.json")
    assert result.returncode == 2
    assert result.stdout == ""
    line = error_line(result)
    assert str(missing) in line
    assert list(tmp_path.iterdir()) == []  # nothing written, no directory made


def test_replay_onto_a_directory(tmp_path: Path) -> None:
    """An existing directory is not a file to write: a one-line error, not a traceback."""
    target = tmp_path / "replays"
    target.mkdir()
    result = run_arena("play", *BOTS, "--seed", 1, "--replay", target)
    assert result.returncode == 2, result.stderr
    line = error_line(result)
    assert str(target) in line
    assert list(tmp_path.iterdir()) == [target]
    assert list(target.iterdir()) == []


def test_replay_file_gets_the_usual_permissions(tmp_path: Path) -> None:
    """The replay is created like any other file (umask applies), not private to its owner."""
    reference = tmp_path / "reference.txt"
    reference.write_text("x", encoding="utf-8")
    path = tmp_path / "game.json"
    result = run_arena("play", *BOTS, "--seed", 1, "--replay", path)
    assert result.returncode == 0, result.stderr
    assert oct(stat.S_IMODE(path.stat().st_mode)) == oct(stat.S_IMODE(reference.stat().st_mode))
