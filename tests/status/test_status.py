"""``arena status`` and the workers' structured logs: a worker registers itself, beats, counts
the matches it finishes and says when it stops; one that is killed goes silent; each of its
steps is one log line, one JSON object each with ``ARENA_LOG_FORMAT=json``."""

from __future__ import annotations

import io
import json
import logging
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import pytest

from arena.cli.status import print_status
from arena.host.platform_logs import setup_logging
from arena.league.status import status
from arena.read_model import (
    Entrant,
    Problem,
    RunningMatch,
    Status,
    TournamentCounts,
    WorkerInfo,
)
from arena.store import Match, MatchSpec, MatchStatus
from tests.cli.runner import arena_executable, error_line
from tests.league.conftest import Arena, bot_copy, table_rows

# A random bot that takes 20 ms a decision: a match of it lasts seconds, not one.
SLOW_RANDOM = """
import time

from arena_sdk import Bot, run


class SlowRandom(Bot):
    def bid(self, obs):
        time.sleep(0.02)
        return self.rng.choice(obs.legal_bids)

    def play(self, obs):
        time.sleep(0.02)
        return self.rng.choice(obs.legal_plays)


if __name__ == "__main__":
    run(SlowRandom())
"""


def two_bots(arena: Arena, tmp_path: Path, *, slow: bool = False) -> None:
    """Active versions ``r1 v1`` and ``r2 v1`` (random bots): one ladder match queued. With
    ``slow``, ``r1`` takes 20 ms a decision, so that the first match is still playing seconds
    after a worker starts (from its second match on, a worker claims the next one ahead)."""
    token = arena.user("owner")
    r1 = bot_copy("random", tmp_path / "r1", "one")
    if slow:
        (r1 / "bot.py").write_text(SLOW_RANDOM)
    arena.seed(token, "r1", r1)
    arena.seed(token, "r2", bot_copy("random", tmp_path / "r2", "two"))


def status_json(arena: Arena, *options: object) -> dict[str, Any]:
    shown = arena.ok("status", "--json", *options)
    data: dict[str, Any] = json.loads(shown.stdout)
    return data


def json_lines(stderr: str) -> list[dict[str, Any]]:
    """Every line of ``stderr``, each a JSON object with a UTC time, a level, a message."""
    events = []
    for line in stderr.splitlines():
        event = json.loads(line)  # fails on any line that isn't JSON
        assert isinstance(event, dict), line
        assert datetime.fromisoformat(event["ts"]).utcoffset() == UTC.utcoffset(None), line
        assert event["level"] in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"), line
        assert isinstance(event["msg"], str) and isinstance(event["logger"], str), line
        events.append(event)
    return events


# ---------------------------------------------------------------------- a worker's life


def test_a_worker_logs_json_and_reports_itself(arena: Arena, tmp_path: Path) -> None:
    two_bots(arena, tmp_path)
    made = arena.ok("tournament", "create", "cup", "--bots", "r1,r2", "--seed", 5)
    assert made.stdout.strip() == "tournament cup: 1 match scheduled"
    before = status_json(arena)
    assert before["queue_depth"] == 2 and before["running"] == [] and before["workers"] == []
    assert [(t["tournament"], t["kind"], t["counts"]["queued"]) for t in before["tournaments"]] == [
        ("ladder", "ladder", 1),
        ("cup", "tournament", 1),
    ]

    worked = arena.run(
        "worker", "--until-idle", "--concurrency", 2, "--heartbeat", 0.5,
        env={"ARENA_LOG_FORMAT": "json"},
    )  # fmt: skip
    assert worked.returncode == 0, worked.stderr
    events = json_lines(worked.stderr)
    ours = [e for e in events if e["logger"] == "arena.worker"]
    kinds = [e["event"] for e in ours]
    assert kinds[0] == "worker_started" and kinds[-1] == "worker_stopped", kinds
    started, stopped = ours[0], ours[-1]
    name = started["worker"]
    assert started["host"] == socket.gethostname() and name.startswith(f"{socket.gethostname()}:")
    assert (started["slots"], started["sandbox"], started["tournament"]) == (2, "process", None)
    assert (stopped["worker"], stopped["matches_done"]) == (name, 2)

    matches: dict[int, tuple[int, Match]] = {}
    with arena.store() as store:
        for t in store.tournaments():
            assert t.id is not None
            matches |= {m.id: (t.id, m) for m in store.matches(t.id) if m.id is not None}
    assert [m.status for _, m in matches.values()] == [MatchStatus.DONE] * 2
    done = [e for e in ours if e["event"] == "match_done"]
    claimed = [e for e in ours if e["event"] == "match_claimed"]
    assert sorted(e["match"] for e in done) == sorted(matches)  # once per match
    assert sorted(e["match"] for e in claimed) == sorted(matches)
    assert set(kinds) == {"worker_started", "match_claimed", "match_done", "worker_stopped"}
    for event in done:
        tid, match = matches[event["match"]]
        assert event["level"] == "INFO"
        assert (event["tournament"], event["index"]) == (tid, match.schedule_index)
        assert event["worker"] == match.worker_id and event["worker"].startswith(f"{name}:")
        assert event["winner"] == match.winner
        assert event["points"] == [match.points_team0, match.points_team1]
        assert event["seconds"] > 0 and event["forfeit"] is None
        assert event["msg"] == f"match {match.id} (index {match.schedule_index}): " + (
            f"done in {event['seconds']:.1f} s"
        )

    after = status_json(arena)
    assert after["queue_depth"] == 0 and after["running"] == []
    one_done = {s.value: int(s == MatchStatus.DONE) for s in MatchStatus}
    assert [(t["tournament"], t["counts"]) for t in after["tournaments"]] == [
        ("ladder", one_done),
        ("cup", one_done),
    ]
    (worker,) = after["workers"]
    assert worker["name"] == name and worker["host"] == socket.gethostname()
    assert (worker["slots"], worker["sandbox"]) == (2, "process")
    assert (worker["state"], worker["matches_done"]) == ("stopped", 2)
    assert worker["started_at"] <= worker["stopped_at"] <= after["now"]
    assert abs(worker["heartbeat_at"] - worker["stopped_at"]) < 1

    shown = arena.ok("status").stdout
    assert shown.splitlines()[0] == "queued 0 · running 0 · done 2 · error 0 · workers up 0"
    (row,) = [r for r in table_rows(shown) if r[0] == name]
    assert row[1:6] == [socket.gethostname(), "2", "process", "stopped", "2"]
    assert row[6].endswith(" ago")


def start_worker(arena: Arena, log: IO[str], **env: str) -> subprocess.Popen[bytes]:
    """``arena worker`` (process sandbox, heartbeat every 0.2 s) in its own session."""
    return subprocess.Popen(
        [str(arena_executable()), "worker", "--heartbeat", "0.2"],
        stdout=subprocess.DEVNULL,
        stderr=log,
        env=os.environ | {"NO_COLOR": "1"} | arena.env() | {"ARENA_SANDBOX": "process"} | env,
        start_new_session=True,
    )


def test_a_killed_worker_goes_silent(sqlite_arena: Arena, tmp_path: Path) -> None:
    arena = sqlite_arena
    two_bots(arena, tmp_path, slow=True)
    arena.ok("tournament", "create", "cup", "--bots", "r1,r2", "--games-per-pairing", 3)
    log = (tmp_path / "worker.log").open("w")
    worker = start_worker(arena, log)
    try:
        # Playing, and up for longer than silent_after=1: only its heartbeats keep it up.
        deadline = time.monotonic() + 120
        while True:
            assert time.monotonic() < deadline, "the worker never got going"
            assert worker.poll() is None, (tmp_path / "worker.log").read_text()
            with arena.store() as store:
                now = status(store, silent_after=1)
            if now.running and now.workers and now.now - now.workers[0].started_at > 1.5:
                break
            time.sleep(0.2)
        (up,) = now.workers
        assert (up.state, up.stopped_at, up.slots, up.sandbox) == ("up", None, 1, "process")
        (running,) = now.running
        assert running.worker_id == f"{up.name}:0"
        assert running.tournament in ("ladder", "cup")
        assert sorted(running.teams) == ["r1 v1", "r2 v1"]
        assert sorted(running.seats) == ["r1 v1", "r1 v1", "r2 v1", "r2 v1"]
        assert running.seats[0] == running.seats[2] == running.teams[0]
        assert running.started_at is not None and running.heartbeat_at is not None
        assert running.started_at <= running.heartbeat_at <= now.now
        assert now.queue_depth == 3
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
        log.close()

    with arena.store() as store:
        assert [w.state for w in status(store).workers] == ["up"]  # within the default 60 s
    time.sleep(1.5)
    late = status_json(arena, "--silent-after", 1)
    (silent,) = late["workers"]
    assert (silent["name"], silent["state"], silent["stopped_at"]) == (up.name, "silent", None)
    assert late["now"] - silent["heartbeat_at"] > 1
    assert [m["id"] for m in late["running"]] == [running.id]  # nobody took it back yet
    shown = arena.ok("status", "--silent-after", 1).stdout
    (row,) = [r for r in table_rows(shown) if r[0] == up.name]
    assert row[4] == "silent"
    assert shown.splitlines()[0].endswith(" · running 1 · done 0 · error 0 · workers up 0")


def sigterm_once(worker: subprocess.Popen[bytes], ready: Callable[[], bool], what: str) -> None:
    """docker stop's SIGTERM to ``worker`` once ``ready()``, then wait for it to exit (or
    SIGKILL it, if the test fails first)."""
    try:
        deadline = time.monotonic() + 120
        while not ready():
            assert time.monotonic() < deadline, f"the worker never {what}"
            time.sleep(0.05)
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=120)
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()


def test_sigterm_stops_a_worker_after_its_match(sqlite_arena: Arena, tmp_path: Path) -> None:
    """docker stop's SIGTERM: the match in hand is finished and recorded, then it stops."""
    arena = sqlite_arena
    two_bots(arena, tmp_path)

    def playing() -> bool:
        with arena.store() as store:
            return bool(status(store).running)

    with (tmp_path / "worker.log").open("w") as log:
        sigterm_once(start_worker(arena, log), playing, "got going")
    after = status_json(arena)
    (stopped,) = after["workers"]
    assert (stopped["state"], stopped["matches_done"]) == ("stopped", 1)
    assert after["running"] == [] and after["queue_depth"] == 0


def test_sigterm_hands_back_the_match_claimed_ahead(sqlite_arena: Arena, tmp_path: Path) -> None:
    """A worker claims its next match as the second game of the one in hand begins (its bots
    start meanwhile). Stopped then, it finishes the match in hand and hands the other back
    unplayed: queued again, no attempt counted, and the next worker plays it."""
    arena = sqlite_arena
    two_bots(arena, tmp_path)  # the ladder's match
    arena.ok("tournament", "create", "cup", "--bots", "r1,r2", "--seed", 5)  # and the cup's
    log_path = tmp_path / "worker.log"

    def claimed_ahead() -> bool:
        return log_path.read_text().count('"match_claimed"') == 2

    with log_path.open("w") as log:
        worker = start_worker(arena, log, ARENA_LOG_FORMAT="json")
        sigterm_once(worker, claimed_ahead, "claimed ahead")
    events = [e for e in json_lines(log_path.read_text()) if e["logger"] == "arena.worker"]
    first, ahead = (e["match"] for e in events if e["event"] == "match_claimed")
    assert [e["match"] for e in events if e["event"] == "match_done"] == [first]
    assert [e["match"] for e in events if e["event"] == "match_released"] == [ahead]
    assert events[-1]["event"] == "worker_stopped" and events[-1]["matches_done"] == 1
    with arena.store() as store:
        released = store.match(ahead)
        assert (released.status, released.attempts, released.worker_id) == (
            MatchStatus.QUEUED,
            0,
            None,
        )
        assert store.match(first).status == MatchStatus.DONE

    arena.ok("worker", "--until-idle")
    with arena.store() as store:
        played = store.match(ahead)
        assert (played.status, played.attempts, played.lease) == (MatchStatus.DONE, 0, 2)


# ---------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("variable", "value", "named"),
    [
        ("ARENA_LOG_FORMAT", "yaml", "ARENA_LOG_FORMAT='yaml': it is text or json"),
        ("ARENA_LOG_LEVEL", "chatty", "ARENA_LOG_LEVEL='chatty': it is one of CRITICAL"),
    ],
)
def test_a_bad_log_setting_is_one_error_line(
    sqlite_arena: Arena, variable: str, value: str, named: str
) -> None:
    refused = sqlite_arena.run("worker", "--until-idle", env={variable: value})
    assert refused.returncode == 2 and refused.stdout == ""
    assert error_line(refused).startswith(f"error: {named}")
    with sqlite_arena.store() as store:
        assert store.workers() == []  # it never started


def test_silent_after_must_be_positive(sqlite_arena: Arena) -> None:
    refused = sqlite_arena.run("status", "--silent-after", 0)
    assert refused.returncode == 2
    assert error_line(refused) == "error: --silent-after must be > 0, got 0"


# ---------------------------------------------------------------------- status() itself


def test_status_reads_the_store(arena: Arena, tmp_path: Path) -> None:
    two_bots(arena, tmp_path)
    with arena.store() as store:
        r1, r2 = (store.versions(name)[0].id for name in ("r1", "r2"))
        assert r1 is not None and r2 is not None
        mixed = store.create_tournament("mixed", seed=1)
        assert mixed.id is not None
        store.enqueue(mixed.id, [MatchSpec(7, ((r1, r2), (r2, r2))), MatchSpec(8, ((r2, r2),) * 2)])
        ladder = store.tournament("ladder")
        assert ladder.id is not None
        claimed = store.claim_job("w1:0", now=1000.0, tournament_id=mixed.id)
        assert claimed is not None
        store.heartbeat_job(claimed, "w1:0", now=1010.0)
        store.worker_started("w1", "host-a", 2, "process")
        store.worker_alive("w1", done=3)
        store.worker_alive("w1", done=2)
        store.worker_started("w2", "host-b", 1, "docker")
        store.worker_stopped("w2")
        (w1,) = [w for w in store.workers() if w.name == "w1"]

        taken = status(store, now=w1.heartbeat_at + 30)
        late = status(store, now=w1.heartbeat_at + 61)
        strict = status(store, now=w1.heartbeat_at + 30, silent_after=10)

    assert taken.queue_depth == 2  # the ladder's match and mixed's second
    counts = [(t.tournament, t.kind, t.counts) for t in taken.tournaments]
    assert [(name, kind, c["queued"], c["running"]) for name, kind, c in counts] == [
        ("ladder", "ladder", 1, 0),
        ("mixed", "tournament", 1, 1),
    ]
    assert taken.running == (
        RunningMatch(
            id=claimed.id, tournament="mixed", index=0, worker_id="w1:0",
            started_at=1000.0, heartbeat_at=1010.0,
            seats=("r1 v1", "r2 v1", "r2 v1", "r2 v1"), teams=("r1 v1 + r2 v1", "r2 v1"),
            entrants=(Entrant("r1", 1), Entrant("r2", 1), Entrant("r2", 1), Entrant("r2", 1)),
        ),
    )  # fmt: skip
    states = {w.name: (w.state, w.matches_done, w.host, w.slots, w.sandbox) for w in taken.workers}
    assert states == {
        "w1": ("up", 5, "host-a", 2, "process"),
        "w2": ("stopped", 0, "host-b", 1, "docker"),
    }
    assert {w.name: w.state for w in late.workers} == {"w1": "silent", "w2": "stopped"}
    assert {w.name: w.state for w in strict.workers} == {"w1": "silent", "w2": "stopped"}
    assert (taken.total(MatchStatus.QUEUED), taken.total(MatchStatus.RUNNING)) == (2, 1)
    assert (taken.workers_up, late.workers_up) == (1, 0)

    # JSON, and back: what a server sends and a client prints.
    text = json.dumps(taken.as_json())
    assert Status.from_json(json.loads(text)) == taken
    assert json.loads(text)["running"][0]["teams"] == ["r1 v1 + r2 v1", "r2 v1"]


def test_broken_invariants_travel_in_the_json_and_are_printed_inert(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """What the server sends (its JSON) and a client prints, a bot's name escaped."""
    broken = Problem("missing_matches", "ladder: evil\x1b[2J v1 has no match scheduled", True)
    shown = Status(1.0, 60, 0, (), (), (), (broken,))
    assert Status.from_json(json.loads(json.dumps(shown.as_json()))) == shown
    print_status(shown)
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == (
        "broken: missing_matches: ladder: evil\\x1b[2J v1 has no match scheduled"
        " (arena doctor --repair mends it)"
    )
    print_status(Status(1.0, 60, 0, (), (), ()))
    assert capsys.readouterr().out.splitlines()[1] == "invariants: ok"


def test_print_status_measures_time_from_the_status(capsys: pytest.CaptureFixture[str]) -> None:
    now = 1_000_000.0
    shown = Status(
        now=now,
        silent_after=60,
        queue_depth=4,
        running=(
            RunningMatch(
                12,
                "ladder",
                3,
                "h:7:0",
                now - 185,
                now - 2,
                ("a v1", "b v2", "a v1", "b v2"),
                ("a v1", "b v2"),
            ),
        ),
        tournaments=(
            TournamentCounts(
                "ladder", "ladder", {"queued": 4, "running": 1, "done": 9, "error": 1}
            ),
        ),
        workers=(
            WorkerInfo("h:7", "h", 2, "docker", now - 7620, now - 2, None, 9, "up"),
            WorkerInfo("g:3", "g", 1, "process", now - 90000, now - 4000, None, 0, "silent"),
        ),
    )
    print_status(shown)
    printed = capsys.readouterr().out
    assert printed.splitlines()[0] == "queued 4 · running 1 · done 9 · error 1 · workers up 1"
    rows = table_rows(printed)
    assert rows == [
        ["12", "ladder", "3", "a v1 vs b v2", "h:7:0", "3m 05s", "2s ago"],
        ["h:7", "h", "2", "docker", "up", "9", "2s ago"],
        ["g:3", "g", "1", "process", "silent", "0", "1h 06m ago"],
    ]


# ---------------------------------------------------------------------- setup_logging


@pytest.fixture
def restored_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_json_logs_are_one_object_a_line(
    restored_logging: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_LOG_FORMAT", "json")
    monkeypatch.delenv("ARENA_LOG_LEVEL", raising=False)
    stream = io.StringIO()
    setup_logging(stream=stream)
    setup_logging(stream=stream)  # again: replaces its handler, doesn't add a second
    log = logging.getLogger("arena.test")
    log.debug("not shown at INFO")
    log.info("match %s done", 7, extra={"event": "match_done", "match": 7, "winner": None})
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        log.exception("it failed", extra={"event": "match_failed", "ts": "not mine"})
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    when = datetime.fromisoformat(first.pop("ts"))
    assert when.utcoffset() is not None and when.utcoffset().total_seconds() == 0  # type: ignore[union-attr]
    assert abs(when.timestamp() - time.time()) < 60
    assert first == {
        "level": "INFO", "logger": "arena.test", "msg": "match 7 done",
        "event": "match_done", "match": 7, "winner": None,
    }  # fmt: skip
    assert second["ts"] != "not mine" and second["level"] == "ERROR"
    assert second["event"] == "match_failed" and second["msg"] == "it failed"
    assert "Traceback" in second["exc"] and "RuntimeError: boom" in second["exc"]


def test_text_logs_and_levels(restored_logging: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_LOG_FORMAT", raising=False)
    monkeypatch.setenv("ARENA_LOG_LEVEL", "warning")
    stream = io.StringIO()
    setup_logging(stream=stream)
    log = logging.getLogger("arena.test")
    log.info("not shown at WARNING")
    log.warning("match 3 dropped", extra={"event": "match_dropped", "match": 3, "why": "a b"})
    (line,) = stream.getvalue().splitlines()
    ts, rest = line.split(" ", 1)
    assert datetime.fromisoformat(ts).utcoffset() == UTC.utcoffset(None)
    assert rest == 'WARNING arena.test: match 3 dropped event=match_dropped match=3 why="a b"'

    with pytest.raises(ValueError, match=r"^ARENA_LOG_FORMAT='xml': it is text or json$"):
        setup_logging("xml")
    monkeypatch.setenv("ARENA_LOG_LEVEL", "NOTSET")
    with pytest.raises(ValueError, match=r"^ARENA_LOG_LEVEL='NOTSET': it is one of CRITICAL, "):
        setup_logging()
