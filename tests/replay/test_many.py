"""Hundreds of random games, recorded with their legal lists, all pass ``arena replay verify``.

The games are played with the Python API (``GameState.new(seed, record_legal=True)`` and a
random legal action at every turn), written as replay files, and checked by one run of the
real ``arena replay verify`` over all of them.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from arena.engine import GameState
from arena.engine.replay import build_replay
from tests.cli.runner import run_arena

# 300 games hold every kind of deal the test asserts they do, dozens of times each: of the
# first 300 seeds, 32 games have a redeal, 104 a deal with neither trump nor joker swap, 125
# a joker swap, 296 two boards or more. 1,500 added minutes, not kinds of deal.
GAMES = 300
NAMES = ["random", "random", "random", "random"]


def random_game(seed: int) -> GameState:
    state = GameState.new(seed, record_legal=True)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    return state


def features(data: dict[str, Any]) -> set[str]:
    seen = set()
    for d in data["deals"]:
        if d.get("redeal"):
            seen.add("redeal")
        if d["joker_swap"]:
            seen.add("joker swap")
        elif d["trump"] is None:
            seen.add("no trump, no swap")
        if sum(b["bid"] == "board" for b in d["bids"]) >= 2:
            seen.add("several boards")
    return seen


def test_many_random_games_verify(tmp_path: Path) -> None:
    files, expected = [], []
    seen: set[str] = set()
    for seed in range(GAMES):
        data = build_replay(random_game(seed), NAMES).to_dict()
        seen |= features(data)
        path = tmp_path / f"game{seed:04d}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        files.append(path)
        totals = data["result"]["totals"]
        expected.append(
            f"{path}: ok · {len(data['deals'])} dealings · totals {totals[0]} {totals[1]}"
        )
    assert seen == {"redeal", "joker swap", "no trump, no swap", "several boards"}
    result = run_arena("replay", "verify", *files)
    assert result.stderr == ""
    assert result.returncode == 0
    assert result.stdout.splitlines() == expected
