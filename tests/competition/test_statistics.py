"""Statistics from replays: checked against figures computed another way from the same replays
(the golden games, a forfeited game built with the engine, and a game played by ``arena play``)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from arena.competition.statistics import Statistics, Tally, by_bot, by_seat, seat_statistics
from arena.engine import GameState
from arena.engine.replay import Forfeit, ForfeitReason, Replay, ThinkTime, build_replay
from tests.cli.runner import run_arena

GOLDEN = sorted((Path(__file__).resolve().parent.parent / "golden").glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def expected_contracts(replay: dict[str, Any], seat: int) -> tuple[dict[int, Tally], Tally]:
    """By the sign of the points: a numeric contract is made when the team scores >= 0, a
    board when it scores > 0 (a different route from the module's trick counting)."""
    team = seat % 2
    contracts: dict[int, Tally] = {}
    boards = Tally()
    for d in replay["deals"]:
        if d.get("points") is None:
            continue
        points = d["points"][team]
        team_bids = [b["bid"] for b in d["bids"] if b["seat"] % 2 == team]
        mine = next(b["bid"] for b in d["bids"] if b["seat"] == seat)
        if mine == "board":
            boards = Tally(boards.made + (points > 0), boards.set + (points < 0))
        elif "board" not in team_bids:
            n = 0 if mine == "pass" else mine
            old = contracts.get(n, Tally())
            contracts[n] = Tally(old.made + (points >= 0), old.set + (points < 0))
    return dict(sorted(contracts.items())), boards


def test_golden_games_add_up() -> None:
    for path in GOLDEN:
        replay = load(path)
        scored = [d for d in replay["deals"] if not d.get("redeal")]
        for seat, stats in enumerate(seat_statistics(Replay.from_dict(replay))):
            team = seat % 2
            assert stats.games == 1
            assert stats.deals == len(scored) == 25
            assert stats.points == replay["result"]["totals"][team], path.name
            assert (stats.contracts, stats.boards) == expected_contracts(replay, seat), path.name
            assert stats.forfeits == {}
            assert stats.think_max_ms is None and stats.mean_think_ms is None


def test_a_double_board_counts_for_its_claimers_only() -> None:
    replay = load(next(p for p in GOLDEN if p.name.startswith("double_board")))
    per_seat = seat_statistics(Replay.from_dict(replay))
    claims = [b["seat"] for d in replay["deals"] for b in d["bids"] if b["bid"] == "board"]
    for seat, stats in enumerate(per_seat):
        assert stats.boards.bid == claims.count(seat)
    assert sum(s.boards.bid for s in per_seat) == len(claims) >= 2


def forfeited_game() -> Replay:
    """Random legal moves until deal 2 has begun, then seat 1 is said to have played an
    illegal card; think time as a referee would record it."""
    state = GameState.new(11)
    rng = random.Random(5)
    while state.current_deal.number < 2 or not state.current_deal.bids:
        state.apply(rng.choice(state.legal_actions()))
    think = [ThinkTime(10 + s, 20.0 * (s + 1), 5.0 + s) for s in range(4)]
    return build_replay(
        state, ["a", "b", "a", "b"], forfeit=Forfeit(1, ForfeitReason.ILLEGAL, "x"), think=think
    )


def test_a_forfeit_counts_the_finished_deals_and_the_reason() -> None:
    replay = forfeited_game()
    scored = [d for d in replay.deals if d.points is not None]
    assert [d.number for d in scored] == [1]
    assert replay.deals[-1].number == 2 and replay.deals[-1].points is None
    for seat, s in enumerate(seat_statistics(replay)):
        assert s.deals == 1
        assert s.points == (scored[0].points or (0, 0))[seat % 2]
        assert s.forfeits == ({"illegal": 1} if seat == 1 else {})
        assert s.decisions == 10 + seat
        assert s.mean_think_ms == 20.0 * (seat + 1) / (10 + seat)
        assert s.think_max_ms == 5.0 + seat


def test_by_bot_merges_seats_and_games() -> None:
    replays = [forfeited_game(), Replay.from_dict(load(GOLDEN[0]))]
    seats = by_seat(replays)
    assert list(seats) == [("a", 0), ("a", 2), ("b", 1), ("b", 3), ("random", 0),
                           ("random", 1), ("random", 2), ("random", 3)]  # fmt: skip
    bots = by_bot(replays)
    a = bots["a"]
    assert a.games == 2 and a.decisions == 10 + 12 and a.think_max_ms == 7.0
    assert a.think_total_ms == 20.0 + 60.0
    assert bots["b"].forfeits == {"illegal": 1}
    random_bot = bots["random"]
    assert random_bot.games == 4 and random_bot.deals == 100
    assert random_bot.think_max_ms is None  # the golden games record none
    total = sum(load(GOLDEN[0])["result"]["totals"]) * 2
    assert random_bot.points == total


def test_to_dict_is_json_with_documented_keys() -> None:
    stats = by_bot([forfeited_game()])["b"]
    data = json.loads(json.dumps(stats.to_dict()))
    assert sorted(data) == sorted(
        ["games", "deals", "points", "points_per_deal", "contracts", "boards", "forfeits",
         "think"]
    )  # fmt: skip
    assert data["forfeits"] == {"illegal": 1}
    assert data["think"] == {"decisions": 24, "mean_ms": 120.0 / 24, "max_ms": 8.0}
    assert Statistics().to_dict()["think"] is None


def test_arena_play_records_think_time_when_asked(tmp_path: Path) -> None:
    replay = tmp_path / "r.json"
    result = run_arena(
        "play", "random", "random", "random", "random", "--seed", "3", "--sandbox", "process",
        "--record-think", "--replay", str(replay),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = load(replay)
    for seat, player in enumerate(data["players"]):
        decisions = sum(b["seat"] == seat for d in data["deals"] for b in d["bids"]) + sum(
            s == seat for d in data["deals"] for t in d["tricks"] for s, _ in t["plays"]
        )
        assert player["think"]["decisions"] == decisions
        assert 0 < player["think"]["max_ms"] <= player["think"]["total_ms"]
    stats = seat_statistics(Replay.from_dict(data))
    assert [s.decisions for s in stats] == [p["think"]["decisions"] for p in data["players"]]


def test_a_bot_dead_at_start_up_is_recorded_with_think_time_asked(tmp_path: Path) -> None:
    """A start-up fault ends the game before every seat is reached: the replay still records
    it (the seats reached with their think time, the others without), as the ladder records
    every match with think time. Without that, a bot dying at start-up made its own match a
    platform error, never rated."""
    bot = tmp_path / "dies"
    bot.mkdir()
    (bot / "bot.py").write_text("raise SystemExit(3)\n")
    replay = tmp_path / "r.json"
    result = run_arena(
        "play", "random", str(bot), "random", "random", "--seed", "3", "--sandbox", "process",
        "--record-think", "--replay", str(replay),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = load(replay)
    assert data["result"]["forfeit"]["seat"] == 1
    assert data["result"]["forfeit"]["reason"] == "startup"
    assert [("think" in p) for p in data["players"]] == [True, False, False, False]
    stats = seat_statistics(Replay.from_dict(data))
    assert [s.forfeits for s in stats] == [{}, {"startup": 1}, {}, {}]
