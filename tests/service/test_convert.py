"""Every row the service carries, to its message, over the wire (serialized and parsed) and
back: the same row (``arena.service.convert``). No server, no network."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from google.protobuf.message import Message

from arena.engine.replay import Replay
from arena.read_model import (
    BotLog,
    BotStatistics,
    CompareSettings,
    Entrant,
    MatchRow,
    Problem,
    RunningMatch,
    Standing,
    Status,
    StoredCode,
    SubmitOutcome,
    TokenRow,
    TournamentCounts,
    VersionRow,
    WorkerInfo,
)
from arena.service import convert
from arena.service.v1 import arena_pb2 as pb

M = TypeVar("M", bound=Message)
GOLDEN = sorted((Path(__file__).resolve().parents[1] / "golden").glob("*.json"))[:2]


def wire(message: M) -> M:
    """The message as the other end reads it."""
    return type(message).FromString(message.SerializeToString())


def wired(parts: Iterable[M]) -> Iterator[M]:
    return (wire(part) for part in parts)


VERSION = VersionRow("mybot", 2, "rejected", "crash in deal 2", "ab" * 32, "done")
SEATS = (Entrant("a", 1), Entrant("b", 2), Entrant("a", 1), Entrant("b", 2))

ROWS: list[tuple[str, Any, Callable[[Any], Message], Callable[[Any], Any]]] = [
    ("version", VERSION, convert.version_message, convert.version_row),
    (
        "submit",
        SubmitOutcome(VERSION, new=True, scheduled=7),
        convert.submit_message,
        convert.submit_outcome,
    ),
    (
        "standing",
        Standing(
            1,
            1,
            "mybot",
            2,
            11,
            1503.5,
            (1450.0, 1560.25),
            8,
            2,
            1,
            1,
            -12.5,
            "alice",
            "active",
            "openskill",
            {"mu": 25.5, "sigma": 8.25, "conservative": 0.75},
        ),
        convert.standing_message,
        convert.standing_row,
    ),
    (
        "match, done",
        MatchRow(3, 4, "a v1", "b v2", "done", (662, -1486), "team A", "forfeit: crash", SEATS),
        convert.match_message,
        convert.match_row,
    ),
    (
        "match, queued, mixed",
        MatchRow(5, 0, "a v1 + b v2", "c v1 + d v3", "queued", None, "", "", SEATS),
        convert.match_message,
        convert.match_row,
    ),
    (
        "token",
        TokenRow("laptop", 1700000000.5, 1800000000.0),
        convert.token_message,
        convert.token_row,
    ),
    (
        "token, never expires",
        TokenRow("ci", 1700000000.5, None),
        convert.token_message,
        convert.token_row,
    ),
    (
        "status",
        Status(
            now=1700000100.0,
            silent_after=60.0,
            queue_depth=3,
            running=(
                RunningMatch(
                    9,
                    "ladder",
                    2,
                    "host:1:0",
                    1700000000.0,
                    1700000090.0,
                    ("a v1", "b v2", "a v1", "b v2"),
                    ("a v1", "b v2"),
                    SEATS,
                ),
            ),
            tournaments=(TournamentCounts("ladder", "ladder", {"queued": 3, "done": 1}),),
            workers=(WorkerInfo("host:1", "host", 2, "docker", 1.0, 2.0, None, 5, "up"),),
            problems=(Problem("silent_match", "match 9: no heartbeat", True),),
        ),
        convert.status_message,
        convert.status_of,
    ),
    (
        "bot statistics",
        BotStatistics("a", "ladder", {"games": 4}, {"a v1": {"games": 4}}),
        convert.statistics_message,
        convert.statistics_of,
    ),
]


@pytest.mark.parametrize(("row", "to", "back"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_a_row_goes_there_and_back(row: Any, to: Callable[[Any], Message], back: Any) -> None:
    assert back(wire(to(row))) == row


def test_a_winner_from_an_older_server_reads_in_the_one_dialect() -> None:
    old = pb.MatchRow(id=1, team_a="a v1", team_b="b v1", status="done", winner="team 1")
    assert convert.match_row(wire(old)).winner == "team B"
    assert convert.match_row(old).seats == ()  # older servers sent no seats


def test_logs_go_there_and_back_in_parts() -> None:
    logs = [
        BotLog(1, 0, 0, "a v1", b"x" * 10 + b"\xff\x00"),
        BotLog(1, 2, 2, "a v1", b""),  # an empty log is still one part
        BotLog(2, 1, 0, "a v1", b"y" * 25),
    ]
    parts = list(convert.log_parts(logs, size=10))
    assert len(parts) == 2 + 1 + 3
    assert convert.logs_of(wired(parts)) == logs
    assert convert.logs_of([]) == []


def test_code_goes_there_and_back_in_parts() -> None:
    code = StoredCode("a v1", bytes(range(256)) * 3)
    parts = list(convert.code_parts(code, size=100))
    assert len(parts) == 8
    assert convert.stored_code(wired(parts)) == code


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_a_replay_goes_there_and_back(path: Path) -> None:
    replay = Replay.from_dict(json.loads(path.read_text(encoding="utf-8")))
    assert convert.replay_of(wire(convert.replay_message(replay))) == replay


def test_compare_settings_and_lines_go_there_and_back() -> None:
    settings = CompareSettings(seed=5, elo0=-5.0, elo1=15.0, alpha=0.1, beta=0.2,
                               max_pairs=40, pentanomial=True, batch=3)  # fmt: skip
    request = wire(convert.compare_request("a@1", "b", settings))
    assert (request.a, request.b) == ("a@1", "b")
    assert convert.compare_settings(request) == settings
    # Batch 0 (a client that sends none): the default.
    assert convert.compare_settings(pb.CompareRequest()).batch == CompareSettings.batch
    for line in [("pair 3: a 1.5", None), ("H1 accepted", "H1"), ("H0 accepted", "H0")]:
        assert convert.compare_line(wire(convert.compare_update(line))) == line  # type: ignore[arg-type]


def test_a_version_reference_goes_there_and_back() -> None:
    assert convert.entrant(wire(convert.version_ref("a@b", 3))) == Entrant("a@b", 3)
