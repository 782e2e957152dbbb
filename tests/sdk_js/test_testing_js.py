"""The JavaScript SDK's ``testing.observation`` builds what the Python SDK's builds: at every
decision of random games the two give the same observation (seat, dealer, cards, bids,
tricks, leaders, tricks won, broken trumps, legal options) from the same compact
description, and refuse the same impossible descriptions with the same words. The Python
builder is itself checked against the engine (tests/sdk/test_testing.py)."""

from __future__ import annotations

import json
import random
import subprocess
from typing import Any

from arena_sdk.testing import observation

from arena.engine import GameState
from tests.sdk.test_testing import described
from tests.sdk_js.test_sdk_js import SDK_JS

SEEDS = (0, 1)
# Descriptions no deal can reach, each refused.
IMPOSSIBLE: list[dict[str, Any]] = [
    {"hand": "AS KD", "bids": "1 pass 14"},
    {"hand": "AS AS"},
    {"hand": "BB 3C", "trump": None},
    {"hand": "AS KD", "trick": "QD"},
    {"hand": "AS", "bids": "pass pass pass pass", "tricks": ["2S 3S 4S"]},
    {"hand": "AS", "trump": "X"},
    {"hand": "AS", "bids": "two"},
]
SUMMARY_JS = """
const { observation } = require("./testing");
const out = JSON.parse(require("fs").readFileSync(0, "utf8")).map((d) => {
  try {
    const o = observation(d.hand, { trump: d.trump === undefined ? "S" : d.trump,
      bids: d.bids ?? "", tricks: d.tricks ?? [], trick: d.trick ?? "", seat: d.seat ?? 0 });
    const trick = (t) => [t.leader, t.plays.map((p) => [p.seat, p.card.name]), t.winner];
    return [o.seat, o.dealer, o.dealNumber, o.handSize, o.hand.map(String), o.turned.name,
      o.trump, o.bids.map((b) => [b.seat, String(b.bid), b.boardLevel]), o.tricks.map(trick),
      trick(o.currentTrick), o.trumpsBroken, o.tricksWon, o.legalBids.map(String),
      o.legalPlays.map(String)];
  } catch (e) {
    return "error: " + e.message;
  }
});
process.stdout.write(JSON.stringify(out));
"""


def python_summary(description: dict[str, Any]) -> object:
    try:
        o = observation(**description)
    except ValueError as e:  # in JavaScript's words: null, and strings in double quotes
        return f"error: {e}".replace("None", "null").replace("'", '"')

    def trick(t: Any) -> list[object]:
        return [t.leader, [[p.seat, p.card.name] for p in t.plays], t.winner]

    return [
        o.seat, o.dealer, o.deal_number, o.hand_size, [str(c) for c in o.hand], o.turned.name,
        o.trump, [[b.seat, str(b.bid), b.board_level] for b in o.bids],
        [trick(t) for t in o.tricks], trick(o.current_trick), o.trumps_broken,
        list(o.tricks_won), [str(b) for b in o.legal_bids], [str(c) for c in o.legal_plays],
    ]  # fmt: skip


def test_the_js_builder_agrees_with_the_python_one() -> None:
    descriptions: list[dict[str, Any]] = []
    for seed in SEEDS:
        rng = random.Random(seed)
        state = GameState.new(seed)
        while not state.is_terminal():
            descriptions.append(described(state))
            state.apply(rng.choice(state.legal_actions()))
    descriptions += IMPOSSIBLE
    done = subprocess.run(
        ["node", "-e", SUMMARY_JS], cwd=SDK_JS, input=json.dumps(descriptions),
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    js = json.loads(done.stdout)
    python = json.loads(json.dumps([python_summary(d) for d in descriptions]))
    assert len(js) == len(python) == len(descriptions)
    for description, ours, theirs in zip(descriptions, js, python, strict=True):
        assert ours == theirs, description
    assert all(str(s).startswith("error: ") for s in js[-len(IMPOSSIBLE) :])
