"""Every page and API route over HTTP, on SQLite and PostgreSQL: what it shows, the same
data as the CLI, escaping, and a clear error page (never a traceback) for what is unknown
or malformed."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import urllib.parse
import urllib.request

import pytest

from arena.competition.statistics import by_bot
from arena.engine.replay import Replay, verify_replay
from arena.host.inert import inert
from tests.cli.runner import arena_executable, error_line
from tests.league.conftest import Arena
from tests.web.conftest import MARKUP_NAME, Site


def test_api_ladder_is_the_cli_s_json(site: Site) -> None:
    cli = json.loads(site.arena.ok("ladder", "--json").stdout)
    assert site.json("/api/ladder") == cli
    assert {row["bot"] for row in cli} == {"random", MARKUP_NAME}


def test_api_status_is_the_cli_s_json_with_the_invariants(site: Site) -> None:
    cli = json.loads(site.arena.ok("status", "--json").stdout)
    web = site.json("/api/status")
    assert {k: v for k, v in web.items() if k != "now"} == {
        k: v for k, v in cli.items() if k != "now"
    }
    assert web["problems"] == []
    status, _, page = site.get("/status")
    assert status == 200 and 'data-testid="invariants-ok"' in page


def test_ladder_page_has_a_row_per_entry_with_its_interval(site: Site) -> None:
    status, headers, body = site.get("/")
    assert status == 200
    rows = re.findall(r'data-testid="ladder-row" data-bot="([^"]*)"', body)
    cli = json.loads(site.arena.ok("ladder", "--json").stdout)
    assert rows == [row["bot"].replace("<", "&lt;").replace(">", "&gt;") for row in cli]
    assert body.count('class="interval"') == len(cli)
    records = re.findall(r"<td>(\d+)</td><td>(\d+)/(\d+)/(\d+)</td>", body)
    assert [tuple(map(int, r)) for r in records] == [
        (row["pairs"], row["wins"], row["draws"], row["losses"]) for row in cli
    ]  # pairs, not games: what W/D/L counts
    assert "alice" in body  # the owner
    assert "content-security-policy" in headers
    assert "script-src 'self'" in headers["content-security-policy"]


def test_the_ladder_shows_one_rating_column_and_the_rest_with_all(site: Site) -> None:
    """As ``arena ladder``: the fit with its 95% interval; Elo and each version's status
    with ``?all=1`` (its ``--all``); ``/api/ladder``'s keys stay the CLI's JSON's."""
    cli = json.loads(site.arena.ok("ladder", "--json").stdout)
    text = site.arena.ok("ladder").stdout
    assert "rating (95%)" in text and "Elo" not in text  # what the page must read like
    _, _, body = site.get("/")
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", body)
    assert [h for h in heads if "rating" in h or h in ("Elo", "fit", "status")] == [
        heads[5]
    ] and heads[5].startswith("rating, 95% interval")
    # Each row's rating and interval as the CLI's one rating column prints them.
    printed = re.findall(r"(-?\d+) \((-?\d+\.\.-?\d+)\)", text)
    assert len(printed) == len(cli)
    assert re.findall(r'data-testid="rating">([^<]*)<', body) == [r for r, _ in printed]
    assert re.findall(r'class="ci">([^<]*)<', body) == [ci for _, ci in printed]
    assert "Elo:" not in body
    _, _, every = site.get("/?all=1")
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", every)
    assert heads[5].startswith("rating, 95% interval") and heads[6:8] == ["status", "Elo"]
    assert re.findall(r'class="status-(\w+)">', every) == [row["status"] for row in cli]
    assert re.findall(r'<td class="status-\w+">\w+</td>\s*<td>([^<]*)</td>', every) == [
        f"{row['elo']:.0f}" for row in cli
    ]
    assert "Elo: sequential, applied in schedule order." in every
    assert 'hx-get="/?tournament=ladder&amp;all=1"' in every  # it stays so as it refreshes
    assert site.json("/api/ladder?all=1") == cli == site.json("/api/ladder")


def test_the_ladder_fragment_is_served_to_htmx(site: Site) -> None:
    request_status, _, whole = site.get("/")
    assert request_status == 200 and "<html" in whole
    req = urllib.request.Request(site.url, headers={"HX-Request": "true"})
    with urllib.request.urlopen(req, timeout=30) as r:
        fragment = r.read().decode()
    assert "<html" not in fragment
    assert fragment.lstrip().startswith('<div id="ladder"')
    assert fragment.count('data-testid="ladder-row"') == whole.count('data-testid="ladder-row"')


def test_markup_in_a_bot_name_is_text(site: Site) -> None:
    for path in ("/", "/matches", f"/matches/{site.match_id}", "/bots/random"):
        _, _, body = site.get(path)
        assert MARKUP_NAME not in body, path
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body, path


def test_bot_page_shows_versions_history_and_head_to_head(site: Site) -> None:
    status, _, body = site.get("/bots/random")
    assert status == 200
    assert 'data-testid="version-row" data-version="1"' in body
    assert 'data-testid="rating-chart"' in body and "<polyline" in body
    assert body.count('data-testid="h2h-row"') == 1
    assert f'data-match="{site.match_id}"' in body
    api = site.json("/api/bots/random")
    assert api["name"] == "random" and api["owner"] == "alice"
    assert [v["status"] for v in api["versions"]] == ["active"]
    assert len(api["history"]) == 1
    [h2h] = api["head_to_head"]
    assert h2h["opponent"] == f"{MARKUP_NAME} v1" and h2h["pairs"] == 1
    row = site.json(f"/api/matches/{site.match_id}")["row"]
    assert row["team_a"] == "random v1" or row["team_b"] == "random v1"
    team = 0 if row["team_a"] == "random v1" else 1
    # Team A is the bots at seats 0 and 2 of the first game.
    seats = [f"{seat['bot']} v{seat['version']}" for seat in row["seats"]]
    assert seats[0::2] == [row["team_a"]] * 2 and seats[1::2] == [row["team_b"]] * 2
    assert [h2h["points_for"], h2h["points_against"]] == row["points"][:: 1 if team == 0 else -1]
    won = {"team A": 0, "team B": 1, "draw": None}[row["winner"]]
    assert [h2h["wins"], h2h["draws"], h2h["losses"]] == (
        [1, 0, 0] if won == team else [0, 1, 0] if won is None else [0, 0, 1]
    )


def test_bot_page_shows_the_statistics_of_its_games(site: Site) -> None:
    replays = [site.json(f"/api/matches/{site.match_id}/games/{game}/replay") for game in (1, 2)]
    for bot in ("random", MARKUP_NAME):
        figures = site.json(f"/api/bots/{urllib.parse.quote(bot, safe='')}")["statistics"]
        # The page reads the version's tallies, counted as the result was recorded: the
        # same as a recomputation from the replays (think time's sums up to rounding).
        expected = json.loads(
            json.dumps(by_bot(map(Replay.from_dict, replays))[f"{bot} v1"].to_dict())
        )
        assert figures["think"] == pytest.approx(expected.pop("think"))
        assert {k: v for k, v in figures.items() if k != "think"} == expected
        assert figures["games"] == 4  # both seats of its team, in both games
        assert figures["think"] is not None  # the ladder's replays record think time
        bids = sum(t["made"] + t["set"] for t in figures["contracts"].values())
        assert bids + figures["boards"]["made"] + figures["boards"]["set"] <= figures["deals"]
    _, _, body = site.get("/bots/random")
    per_deal = site.json("/api/bots/random")["statistics"]["points_per_deal"]
    assert f'data-testid="points-per-deal">{per_deal:.1f}<' in body
    # The labels say what each part counts: the statistics and head-to-head every played
    # match (the tallies), the list the newest 20 only.
    assert "Game statistics, over all its played matches" in body
    assert "Head to head, over all its played matches" in body
    assert "Over all its played matches in ladder, every version (4 games by seat" in body
    assert "Its most recent played matches, newest first (at most 20;" in body
    assert "most recent matches" not in body.replace("most recent played matches", "")


def test_a_rejected_version_shows_its_reason(site: Site) -> None:
    status, _, body = site.get("/bots/crasher")
    assert status == 200
    [version] = site.json("/api/bots/crasher")["versions"]
    assert version["status"] == "rejected"
    assert "crashed" in version["reason"]
    assert "&lt;b&gt;crashed&lt;/b&gt;" in body and "<b>crashed" not in body


def test_a_rejected_versions_validation_game_opens_in_the_viewer(site: Site) -> None:
    [version] = site.json("/api/bots/crasher")["versions"]
    assert version["validation"] == "done"
    _, _, body = site.get("/bots/crasher")
    at = "/bots/crasher/versions/1/validation"
    assert f'data-testid="validation-link" href="{at}"' in body
    assert 'data-testid="validation-log"' not in body  # its logs: for its owner, signed in
    status, _, page = site.get(at)
    assert status == 200, page
    assert "crasher v1 · validation game" in page
    replay = site.json(f"/api{at}/replay")
    assert [p["name"] for p in replay["players"]] == ["crasher v1", "random"] * 2
    assert replay["result"]["forfeit"]["reason"] == "crash"
    assert replay["result"]["forfeit"]["seat"] in (0, 2)
    assert 'id="replay-data"' in page and 'src="/static/replay.js"' in page
    with site.arena.store() as store:  # what the CLI reads is what the page serves, inert
        assert inert(store.versions("crasher")[0].reason or "") == version["reason"]
    shown = site.arena.ok("replay", "--validation", "crasher@1", "--json").stdout
    assert json.loads(shown) == replay
    for missing in ("/bots/crasher/versions/9/validation", "/bots/nobody/versions/1/validation"):
        status, _, page = site.get(missing)
        assert status == 404, (missing, page)
    status, _, page = site.get("/bots/random/versions/1/validation")  # seeded: never played
    assert status == 404 and "has no validation game" in page
    status, _, _ = site.get("/bots/crasher/versions/x/validation")
    assert status in (400, 422)


def test_matches_list_filters_and_pages(site: Site) -> None:
    listed = site.json("/api/matches")
    assert listed["total"] == 1 and listed["pages"] == 1
    [row] = listed["rows"]
    assert row["id"] == site.match_id and row["status"] == "done"
    # One dialect: arena matches --json's keys, and the match's own page's row.
    assert list(row) == [
        "id", "schedule_index", "team_a", "team_b", "status", "points", "winner", "note", "seats",
    ]  # fmt: skip
    assert row["winner"] in ("team A", "team B", "draw")
    assert row == site.json(f"/api/matches/{site.match_id}")["row"]
    assert site.json("/api/matches?status=queued")["total"] == 0
    assert site.json("/api/matches?bot=random")["total"] == 1
    status, _, body = site.get("/matches?page=1&status=done")
    assert status == 200 and body.count('data-testid="match-row"') == 1


def test_match_page_shows_both_games_deal_by_deal(site: Site) -> None:
    status, _, body = site.get(f"/matches/{site.match_id}")
    assert status == 200
    assert body.count('data-testid="replay-link"') == 2
    detail = site.json(f"/api/matches/{site.match_id}")
    assert detail["row"]["status"] == "done"
    for n, game in enumerate(detail["games"], start=1):
        replay = site.json(f"/api/matches/{site.match_id}/games/{n}/replay")
        verify_replay(replay)
        assert game["totals"] == replay["result"]["totals"]
        assert game["deals"][-1][1] == replay["result"]["totals"]
    p0, p1 = detail["row"]["points"]
    assert f'data-testid="points-a">{p0}<' in body and f'data-testid="points-b">{p1}<' in body


def test_replay_page_embeds_the_stored_replay(site: Site) -> None:
    for game in (1, 2):
        status, _, body = site.get(f"/matches/{site.match_id}/games/{game}")
        assert status == 200
        assert 'data-testid="score-0">0<' in body and 'data-testid="score-1">0<' in body
        assert '<script type="module" src="/static/replay.js">' in body
    _, headers, script = site.get("/static/replay.js")
    assert "javascript" in headers["content-type"]
    assert "export class Viewer" in script


def test_status_page(site: Site) -> None:
    status, _, body = site.get("/status")
    assert status == 200
    assert 'data-testid="queue-depth">0<' in body
    assert body.count('data-testid="worker-row"') == 1


@pytest.mark.parametrize(
    ("path", "status", "message"),
    [
        ("/bots/nobody", 404, "unknown bot &#39;nobody&#39;"),
        ("/matches/999999", 404, "unknown match 999999"),
        ("/matches/1/games/3", 404, "match 1 has games 1 and 2, not 3"),
        ("/matches/999999/games/1", 404, "unknown match 999999"),
        ("/matches/x", 400, "bad request"),
        ("/matches?page=0", 400, "bad request: page: Input should be greater than or equal to 1"),
        ("/matches?page=two", 400, "bad request: page: Input should be a valid integer"),
        ("/matches?page=9", 400, "page 9 is past the last page, 1"),
        ("/matches?status=won", 400, "unknown status &#39;won&#39;"),
        ("/?tournament=cup", 404, "unknown tournament &#39;cup&#39;"),
        ("/no/such/page", 404, "no such page"),
    ],
)
def test_bad_requests_get_a_clear_page(site: Site, path: str, status: int, message: str) -> None:
    got, _, body = site.get(path)
    assert got == status, body
    assert f"error: {message}" in body
    assert "Traceback" not in body


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/api/bots/nobody", 404),
        ("/api/matches/999999", 404),
        ("/api/matches/1/games/0/replay", 404),
        ("/api/matches?page=0", 400),
        ("/api/ladder?tournament=cup", 404),
    ],
)
def test_api_errors_are_json(site: Site, path: str, status: int) -> None:
    got, headers, body = site.get(path)
    assert got == status
    assert headers["content-type"] == "application/json"
    assert json.loads(body)["error"]


def test_arena_web_serves_and_says_where(site: Site) -> None:
    """The real command, on port 0: it prints its URL, serves, and stops on SIGINT."""
    env = site.arena.env()
    proc = subprocess.Popen(
        [str(arena_executable()), "web", "--listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",
        env={**os.environ, **env},
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.fullmatch(r"serving the arena at (http://127\.0\.0\.1:\d+/)\n", line)
        assert found, line
        served = Site(site.arena, found.group(1), site.match_id, site.token)
        assert served.json("/api/ladder") == site.json("/api/ladder")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)


@pytest.mark.parametrize(
    ("sent", "inherited", "status"),
    [
        (signal.SIGINT, signal.SIG_DFL, 130),
        (signal.SIGINT, signal.SIG_IGN, 130),  # as a shell's background job starts
        (signal.SIGTERM, signal.SIG_DFL, 143),
    ],
    ids=["SIGINT", "SIGINT-inherited-ignored", "SIGTERM"],
)
def test_arena_web_exits_128_plus_the_signal_that_stopped_it(
    sqlite_arena: Arena, sent: signal.Signals, inherited: signal.Handlers, status: int
) -> None:
    """Sent as soon as it says where it serves, whatever the process inherited for it."""
    previous = signal.signal(signal.SIGINT, inherited)  # the child keeps an ignored signal
    try:
        proc = subprocess.Popen(
            [str(arena_executable()), "web", "--listen", "127.0.0.1:0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            encoding="utf-8",
            env={**os.environ, **sqlite_arena.env()},
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("serving the arena at "), proc.stderr and proc.stderr.read()
        proc.send_signal(sent)
        assert proc.wait(timeout=60) == status
    finally:
        proc.kill()
        proc.communicate()


@pytest.mark.parametrize(
    ("listen", "message"),
    [
        ("8000", "error: --listen '8000': expected HOST:PORT, e.g. 127.0.0.1:8000"),
        ("127.0.0.1:http", "error: --listen '127.0.0.1:http': expected HOST:PORT"),
        ("192.0.2.1:8000", "error: cannot listen on 192.0.2.1:8000: "),
    ],
)
def test_arena_web_refuses_a_bad_address(sqlite_arena: Arena, listen: str, message: str) -> None:
    result = sqlite_arena.run("web", "--listen", listen)
    assert result.returncode == 2
    assert error_line(result).startswith(message)
