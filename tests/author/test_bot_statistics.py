"""``arena bot NAME``: a bot's statistics in a tournament, equal to figures computed here
another way from the very replays its matches stored, and to the web's bot page."""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from arena.competition.statistics import by_bot
from arena.engine.replay import Replay
from arena.league.opening import open_ladder
from arena.league.stored_files import StoredFiles
from arena.store import MatchStatus
from arena.web import bound_socket, create_app
from arena.web.server import make_server, url_of
from tests.cli.runner import error_line
from tests.competition.test_statistics import expected_contracts
from tests.league.conftest import Arena, bot_copy, make_arena


def stored_replays(arena: Arena, tournament: str = "ladder") -> list[dict[str, Any]]:
    with arena.store() as store:
        ladder = store.tournament(tournament)
        assert ladder.id is not None
        data = StoredFiles(store, arena.home / "cache")
        return [
            game
            for m in store.matches(ladder.id, MatchStatus.DONE)
            if m.replay_path is not None
            for game in data.read_json(m.replay_path)["games"]
        ]


def test_arena_bot_statistics_equal_the_replays(tmp_path: Path) -> None:
    arena = make_arena(tmp_path)
    token = arena.user("alice")
    arena.seed(token, "random", bot_copy("random", tmp_path / "random"))
    arena.seed(token, "heuristic", bot_copy("heuristic", tmp_path / "heuristic"))
    arena.ok("tournament", "create", "cup", "--bots", "random,heuristic", "--seed", 5)
    arena.ok("worker", "--until-idle")
    replays = stored_replays(arena)
    assert len(replays) == 2

    shown = json.loads(arena.ok("bot", "random", "--json").stdout)
    assert sorted(shown) == ["all", "bot", "tournament", "versions"]
    assert list(shown["versions"]) == ["random v1"]
    stats = shown["all"]
    assert stats == shown["versions"]["random v1"]
    seats = [(r, p["seat"]) for r in replays for p in r["players"] if p["name"] == "random v1"]
    assert len(seats) == 4  # two seats in each game
    assert stats["games"] == 4 and stats["deals"] == 100
    assert stats["points"] == sum(r["result"]["totals"][seat % 2] for r, seat in seats)
    assert stats["forfeits"] == {}
    made: dict[str, dict[str, int]] = {}
    for r, seat in seats:
        contracts, _ = expected_contracts(r, seat)
        for bid, tally in contracts.items():
            entry = made.setdefault(str(bid), {"made": 0, "set": 0})
            entry["made"] += tally.made
            entry["set"] += tally.set
    assert stats["contracts"] == dict(sorted(made.items(), key=lambda kv: int(kv[0])))
    decisions = sum(
        sum(b["seat"] == seat for d in r["deals"] for b in d["bids"])
        + sum(s == seat for d in r["deals"] for t in d["tricks"] for s, _ in t["plays"])
        for r, seat in seats
    )
    think = stats["think"]
    assert think["decisions"] == decisions
    maxima = [
        p["think"]["max_ms"] for r, _ in seats for p in r["players"] if p["name"] == "random v1"
    ]
    assert think["max_ms"] == max(maxima)

    text = arena.ok("bot", "random").stdout.splitlines()
    assert text[0].startswith("random, all versions: 4 seat-games · 100 deals · ")
    assert text[2].startswith("random v1: 4 seat-games")

    (match,) = json.loads(arena.ok("matches", "--json").stdout)
    with arena.store() as store:
        played = store.match(match["id"])
    assert match["status"] == "done"
    assert match["points"] == [played.points_team0, played.points_team1]
    assert match["winner"] == {0: "team A", 1: "team B", None: "draw"}[played.winner]

    unknown = arena.run("bot", "nobody")
    assert unknown.returncode == 2
    assert error_line(unknown) == "error: no bot 'nobody' on this ladder (arena bots lists them)"

    same_tallies_per_tournament(arena)


@contextmanager
def web(arena: Arena) -> Iterator[str]:
    """``arena web`` on the arena's database, served in a thread: its URL."""
    ladder = open_ladder(arena.url)
    sock = bound_socket("127.0.0.1:0")
    server = make_server(create_app(ladder, poll_seconds=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield url_of(sock)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
        ladder.close()


def same_tallies_per_tournament(arena: Arena) -> None:
    """In the ladder and in the cup, ``arena bot`` and the bot page show the tallies the
    worker counted, which are that tournament's replays' figures and not the other's."""
    shown: dict[str, dict[str, Any]] = {}
    with web(arena) as url:
        for tournament in ("ladder", "cup"):
            cli = json.loads(arena.ok("bot", "random", "--tournament", tournament, "--json").stdout)
            assert (cli["bot"], cli["tournament"]) == ("random", tournament)
            with urllib.request.urlopen(f"{url}api/bots/random?tournament={tournament}") as r:
                page = json.loads(r.read())
            assert page["tournament"] == tournament
            assert page["statistics"] == cli["all"] == cli["versions"]["random v1"]
            replays = [Replay.from_dict(r) for r in stored_replays(arena, tournament)]
            expected = by_bot(replays)["random v1"].to_dict()
            assert cli["all"]["think"] == pytest.approx(expected.pop("think"))
            assert {k: v for k, v in cli["all"].items() if k != "think"} == expected
            assert cli["all"]["games"] == 4  # one match: two seats in each of two games
            [h2h] = page["head_to_head"]
            assert (h2h["opponent"], h2h["pairs"]) == ("heuristic v1", 1)
            shown[tournament] = cli["all"]
    assert shown["ladder"]["deals"] == shown["cup"]["deals"] == 100
    assert shown["ladder"]["contracts"] != shown["cup"]["contracts"]  # other seeds, cards


MATCH_KEYS = [
    "id", "schedule_index", "team_a", "team_b", "status", "points", "winner", "note", "seats",
]  # fmt: skip


def test_arena_matches_json_and_filters(tmp_path: Path) -> None:
    arena = make_arena(tmp_path)
    token = arena.user("alice")
    for name in ("random", "heuristic", "montecarlo"):
        arena.seed(
            token, name, bot_copy(name if name != "montecarlo" else "random", tmp_path / name)
        )
    every = json.loads(arena.ok("matches", "--json").stdout)
    assert len(every) == 3 and all(list(m) == MATCH_KEYS for m in every)
    for m in every:  # team A: the bots at seats 0 and 2 of the first game, B at 1 and 3
        seats = [f"{s['bot']} v{s['version']}" for s in m["seats"]]
        assert seats[0::2] == [m["team_a"]] * 2 and seats[1::2] == [m["team_b"]] * 2
    assert all(m["status"] == "queued" and m["points"] is None for m in every)
    mine = json.loads(arena.ok("matches", "--bot", "heuristic", "--json").stdout)
    assert len(mine) == 2
    assert all("heuristic v1" in (m["team_a"], m["team_b"]) for m in mine)
    assert json.loads(arena.ok("matches", "--status", "done", "--json").stdout) == []
    assert json.loads(
        arena.ok("matches", "--bot", "random", "--status", "queued", "--json").stdout
    ) == [m for m in every if "random v1" in (m["team_a"], m["team_b"])]
    unknown = arena.run("matches", "--bot", "nobody")
    assert unknown.returncode == 2 and error_line(unknown) == "error: unknown bot 'nobody'"
    bad = arena.run("matches", "--status", "finished")
    assert bad.returncode == 2 and "'finished' is not one of 'queued'" in error_line(bad)
    with arena.store() as store:
        first = store.matches(store.tournament("ladder").id or 0)[0]
    assert every[0]["id"] == first.id and every[0]["schedule_index"] == first.schedule_index


def test_compare_shows_both_sides_statistics(tmp_path: Path) -> None:
    from tests.cli.runner import run_arena

    result = run_arena(
        "compare", "heuristic", "random", "--seed", 1, "--max-pairs", 2, "--elo1", 400,
        "--sandbox", "process",
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    lines = result.stdout.splitlines()
    at = lines.index("statistics, per bot:")
    # Two pairs of two games, each side in two seats of each; named A and B as the opening
    # line names them (by side, not by name: ``compare heuristic heuristic`` has two too).
    assert lines[0].startswith("compare: A = heuristic · B = random · ")
    assert lines[at + 1].startswith("  A: 8 seat-games · 200 deals · ")
    assert lines[at + 3].startswith("  B: 8 seat-games · 200 deals · ")
    assert lines[at + 2].startswith("     contracts made/bid, by own bid: ")
    assert lines[-1].startswith(("verdict: ", "no verdict after"))
