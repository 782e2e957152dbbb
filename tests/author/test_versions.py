"""Versions and local work: ``arena submit`` takes a sample bot's name, ``arena bots export``
writes a stored version's code, ``arena compare ./dir NAME@V`` plays it locally."""

from __future__ import annotations

import json
from pathlib import Path

from arena.bots.submission import content_hash
from arena.play.bot_specs import SAMPLE_BOTS
from tests.cli.runner import error_line
from tests.league.conftest import bot_copy, make_arena


def test_submit_a_sample_bot_by_name_then_export_it(tmp_path: Path) -> None:
    arena = make_arena(tmp_path)
    token = arena.user("alice")
    done = arena.run("submit", "heuristic", "--token", token)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "heuristic v1: active · 0 ladder matches scheduled\n"
    nameless = arena.run("submit", tmp_path / "nowhere", "--token", token)
    assert nameless.returncode == 2
    assert error_line(nameless).startswith("error: --name is needed")
    assert [b["bot"] for b in json.loads(arena.ok("bots", "--json").stdout)] == ["heuristic"]

    out = tmp_path / "exported"
    shown = arena.ok("bots", "export", "heuristic@1", "-o", out)
    assert shown.stdout == f"heuristic v1 -> {out}\n"
    assert content_hash(out) == content_hash(SAMPLE_BOTS / "heuristic")
    assert (out / "bot.py").read_bytes() == (SAMPLE_BOTS / "heuristic" / "bot.py").read_bytes()
    empty = tmp_path / "empty"
    empty.mkdir()
    arena.ok("bots", "export", "heuristic", "--output", empty)  # the active version
    assert content_hash(empty) == content_hash(out)

    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "mine.txt").write_text("keep")
    refused = arena.run("bots", "export", "heuristic@1", "-o", busy)
    assert refused.returncode == 2
    assert error_line(refused) == (
        f"error: {busy} exists and is not an empty directory: nothing written"
    )
    assert [p.name for p in busy.iterdir()] == ["mine.txt"]
    unknown = arena.run("bots", "export", "heuristic@7", "-o", tmp_path / "seven")
    assert unknown.returncode == 2
    assert error_line(unknown) == "error: bot 'heuristic' has no version 7"
    assert not (tmp_path / "seven").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "busy",
        "empty",
        "exported",
        "home",
        "tmp",
    ]  # fmt: skip: no half-written export beside them


def test_compare_a_directory_with_a_stored_version(tmp_path: Path) -> None:
    """The stored randy@1 is the random bot: a copy of it draws every pair, so H0."""
    arena = make_arena(tmp_path)
    token = arena.user("alice")
    arena.seed(token, "randy", bot_copy("random", tmp_path / "stored"))
    work = bot_copy("random", tmp_path / "work")
    quick = ("--seed", 7, "--sandbox", "process", "--elo1", 200)
    result = arena.run("compare", work, "randy@1", *quick)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"compare: A = {work} · B = randy@1 · seeds from 7")
    assert lines[-1] == (
        "verdict: H0 (A - B <= 0 Elo, not >= 200) after 5 pairs · LLR -3.66 in [-2.94, 2.94]"
    )
    missing = arena.run("compare", work, "randy@2", *quick)
    assert missing.returncode == 2
    assert error_line(missing) == "error: bot 'randy' has no version 2"
