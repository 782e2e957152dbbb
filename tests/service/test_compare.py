"""``arena compare --server``: pairs queued for real workers until the SPRT decides.

heuristic against random, seeded, with a 400-Elo window: five won pairs decide H1 (a
montecarlo game would take ~40 s of CPU: the same comparison with it took 8 minutes). A bot
against an identical copy of itself draws every pair and stops on H0 after two; its pair
lines, statistics and verdict are exactly those of the same comparison played locally.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.store import MatchStatus

from .conftest import Service
from .test_service import bot_copy, settled

pytestmark = pytest.mark.postgres
WINDOW = ("--elo1", 400)


def test_compare_through_the_server(service: Service, tmp_path: Path) -> None:
    token = service.local("user", "add", "ann").stdout.strip()
    for name, sample in (("rand", "random"), ("h", "heuristic")):
        code = bot_copy(sample, tmp_path / name)
        done = service.arena("submit", code, "--name", name, "--token", token)
        assert done.returncode == 0, done.stderr
    copy = bot_copy("heuristic", tmp_path / "hcopy", "the same bot, another name")
    assert service.arena("submit", copy, "--name", "hcopy", "--token", token).returncode == 0
    service.start_worker("w1")
    service.start_worker("w2")
    settled(service, ["rand", "h", "hcopy"])

    strong = service.arena("compare", "h", "rand", "--seed", 3, *WINDOW, "--token", token)
    assert strong.returncode == 0, strong.stderr
    lines = strong.stdout.splitlines()
    assert lines[0] == (
        "compare: A = h v1 · B = rand v1 · seeds from 3 · elo0 0 · elo1 400 · alpha 0.05"
        " · beta 0.05 · pairs scored by points (W/D/L)"
    )
    pairs = [line for line in lines if line.startswith("pair ")]
    assert [line.split(" · ")[1] for line in pairs] == [f"seed {s}" for s in range(3, 8)]
    # A's and B's statistics over the five pairs' ten games, from the stored replays.
    block = lines[lines.index("statistics, per bot:") + 1 : -2]
    assert [line.split(":")[0] for line in block[::2]] == ["  A", "  B"]
    assert all(line.split(" · ")[0].endswith(": 20 seat-games") for line in block[::2])
    assert lines[-2] == "result: 5 pairs · W/D/L 5/0/0 · score 1.000 · Elo +inf ± inf (95%)"
    assert lines[-1].startswith("verdict: H1 (A - B >= 400 Elo, not <= 0) after 5 pairs")

    same = service.arena("compare", "h", "hcopy", "--seed", 9, *WINDOW, "--token", token)
    assert same.returncode == 0, same.stderr
    assert same.stdout.splitlines()[-1].startswith(
        "verdict: H0 (A - B <= 0 Elo, not >= 400) after 2 pairs"
    )
    local = service.local(
        "compare", tmp_path / "h", copy, "--seed", 9, *WINDOW, "--sandbox", "process"
    )
    assert local.returncode == 0, local.stderr
    # All but the opening line, which names A and B as each was given: the same pair lines,
    # statistics and verdict.
    assert local.stdout.splitlines()[1:] == same.stdout.splitlines()[1:]

    # What the verdicts left queued was cancelled, and nothing of it is played.
    with service.store() as store:
        comparisons = [t for t in store.tournaments() if t.kind == "compare"]
        assert len(comparisons) == 2
        for t in comparisons:
            assert t.id is not None
            counts = store.status_counts(t.id)
            assert counts[MatchStatus.QUEUED] == 0 and counts[MatchStatus.ERROR] == 0
            assert counts[MatchStatus.CANCELLED] > 0


def test_local_and_queued_compare_score_the_same_pairs(service: Service, tmp_path: Path) -> None:
    """One loop scores both: the same seeds give the same pair lines and the same verdict,
    whether the pairs are played here or by the server's workers."""
    token = service.local("user", "add", "ann").stdout.strip()
    for name, sample in (("h", "heuristic"), ("rand", "random")):
        code = bot_copy(sample, tmp_path / name)
        assert service.arena("submit", code, "--name", name, "--token", token).returncode == 0
    service.start_worker("w1")
    settled(service, ["h", "rand"])  # their validation games played by the worker
    args = ("--seed", 21, *WINDOW, "--max-pairs", 3)
    queued = service.arena("compare", "h", "rand", *args, "--token", token)
    local = service.local("compare", "h@1", "rand@1", *args, "--sandbox", "process")
    assert queued.returncode == local.returncode == 1, queued.stderr + local.stderr  # no verdict
    pairs = [line for line in queued.stdout.splitlines() if line.startswith("pair ")]
    assert [line.split(" · ")[:2] for line in pairs] == [
        ["pair 1", "seed 21"], ["pair 2", "seed 22"], ["pair 3", "seed 23"],
    ]  # fmt: skip
    # All but the opening line, which names A and B as each was given: the statistics too.
    assert local.stdout.splitlines()[1:] == queued.stdout.splitlines()[1:]
    assert "statistics, per bot:" in queued.stdout.splitlines()
