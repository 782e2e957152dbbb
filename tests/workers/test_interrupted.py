"""Workers: a SIGKILLed worker loses nothing and doubles nothing, and the ratings are the
same however many workers played and in whatever order they finished."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from arena.store import MatchStatus, open_store
from tests.cli.runner import arena_executable, run_arena

SAMPLE = Path(__file__).resolve().parents[2] / "sample_bots"
# Deterministic bots of different strengths. Two copies of one bot always draw a duplicate
# pair (same cards, same seats, same choices), so the random ones differ in how they draw.
ENTRIES = ("ra", "rb", "ha", "hb")
SOURCES = {
    "ra": ("random", ""),
    "rb": ("random", "RandomBot.bid = lambda self, obs: self.rng.choice(obs.legal_bids[::-1])\n"),
    "ha": ("heuristic", ""),
    "hb": ("heuristic", "# a copy\n"),
}


@pytest.fixture
def ladder_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data directory with four active bots (validated in the process sandbox)."""
    home = tmp_path / "home"
    monkeypatch.setenv("ARENA_HOME", str(home))
    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{home / 'arena.db'}")
    monkeypatch.setenv("ARENA_SANDBOX", "process")
    token = run_arena("user", "add", "owner").stdout.strip()
    for name in ENTRIES:
        sample, patch = SOURCES[name]
        code = tmp_path / name
        shutil.copytree(SAMPLE / sample, code)
        source = (code / "bot.py").read_text()
        main = 'if __name__ == "__main__":'
        (code / "bot.py").write_text(source.replace(main, patch + "\n" + main))
        done = run_arena("submit", code, "--name", name, "--token", token)
        assert done.returncode == 0, done.stderr
    return home


def create(name: str, deals_of: str | None = None) -> None:
    """A round-robin of the four; ``deals_of``: with that tournament's stored match seeds
    (each tournament's own are drawn from the deal secret and its id, so two tournaments
    never deal alike), so that the two replay the same games."""
    made = run_arena("tournament", "create", name, "--bots", ",".join(ENTRIES), "--seed", 11)
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == f"tournament {name}: 6 matches scheduled"
    if deals_of is None:
        return
    store = open_store()
    try:
        source, target = store.tournament(deals_of), store.tournament(name)
        with store.database.begin() as connection:
            connection.execute(
                text(
                    "UPDATE matches SET seed = (SELECT s.seed FROM matches s WHERE"
                    " s.tournament_id = :source AND s.schedule_index = matches.schedule_index)"
                    " WHERE tournament_id = :target"
                ),
                {"source": source.id, "target": target.id},
            )
    finally:
        store.close()


def ladder(name: str) -> list[dict[str, object]]:
    shown = run_arena("ladder", "--json", "--tournament", name)
    assert shown.returncode == 0, shown.stderr
    rows: list[dict[str, object]] = json.loads(shown.stdout)
    return rows


def results(name: str) -> list[tuple[int, int | None, int | None, int | None, str]]:
    store = open_store()
    try:
        tournament = store.tournament(name)
        assert tournament.id is not None
        return [
            (m.schedule_index, m.points_team0, m.points_team1, m.winner, m.status)
            for m in store.matches(tournament.id)
        ]
    finally:
        store.close()


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (from /proc: the children of each of its threads)."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        for task in Path(f"/proc/{todo.pop()}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_one_and_three_workers_give_identical_ratings(ladder_home: Path) -> None:
    create("one")
    create("three", deals_of="one")
    assert run_arena("tournament", "run", "one").returncode == 0
    three = run_arena("worker", "--tournament", "three", "--concurrency", 3, "--until-idle")
    assert three.returncode == 0, three.stderr
    assert results("one") == results("three")
    assert [status for *_, status in results("one")] == [MatchStatus.DONE] * 6
    assert ladder("one") == ladder("three")


def test_a_killed_worker_loses_and_doubles_nothing(ladder_home: Path) -> None:
    create("calm")
    create("killed", deals_of="calm")
    assert run_arena("tournament", "run", "calm").returncode == 0

    # A worker, killed with SIGKILL once it has finished one match and is playing more.
    victim = subprocess.Popen(
        [arena_executable(), "worker", "--tournament", "killed", "--concurrency", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=os.environ.copy(),
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        statuses = [status for *_, status in results("killed")]
        if MatchStatus.DONE in statuses and MatchStatus.RUNNING in statuses:
            break
        time.sleep(0.2)
    else:
        pytest.fail(f"the worker never got going: {results('killed')}")
    bots: set[int] = set()
    while not bots and time.monotonic() < deadline:  # between two games it has none
        bots = descendants(victim.pid)
        time.sleep(0.05)
    assert bots, "a playing worker has bot processes"
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait()
    interrupted = [status for *_, status in results("killed")]
    assert MatchStatus.RUNNING in interrupted

    # Another worker requeues the silent match and finishes the tournament. Its sandbox
    # sweeps what the killed one left: a bot frozen off turn when its worker died (its
    # parent-death signal pending while frozen) is thawed and killed.
    rescue = run_arena("worker", "--tournament", "killed", "--until-idle", "--silent-after", 2)
    assert rescue.returncode == 0, rescue.stderr
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in bots) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in bots if alive(pid)], "bots outlived their killed worker"
    assert results("killed") == results("calm")  # every match done once, same results
    assert ladder("killed") == ladder("calm")
