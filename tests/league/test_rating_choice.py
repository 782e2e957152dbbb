"""A tournament's rating model, chosen at ``arena tournament create --rating``: Weng-Lin
(openskill) in the ``mixed`` format rates each partner, and ``arena ladder`` shows its mu,
sigma and mu - 3 sigma, in the table, in ``--json`` and through the gRPC message."""

from __future__ import annotations

import json
import re
import threading
import urllib.request
from pathlib import Path

import pytest

from arena.competition import states_after
from arena.competition.elo_ratings import Z95
from arena.competition.weng_lin import WengLin
from arena.league.apply_ratings import done_results
from arena.league.opening import open_ladder
from arena.read_model import Standing
from arena.service.convert import standing_message, standing_row
from arena.store import RatingModelName
from arena.web import bound_socket, create_app
from arena.web.server import make_server, url_of
from tests.author.test_ladder_view import header
from tests.cli.runner import error_line

from .conftest import Arena, bot_copy, table_rows

# Two random bots and two heuristic ones: identical code partnered against itself mirrors
# its duplicate pair into a draw, so only mixed partnerships decide anything.
BOTS = {"r1": "random", "r2": "random", "h1": "heuristic", "h2": "heuristic"}


def test_a_mixed_tournament_rated_by_weng_lin(sqlite_arena: Arena, tmp_path: Path) -> None:
    arena = sqlite_arena
    token = arena.user("alice")
    for name, sample in BOTS.items():
        arena.seed(token, name, bot_copy(sample, tmp_path / name, name))
    rows, files = arena.rows(), arena.files()
    unknown = arena.run("tournament", "create", "cup", "--bots", ",".join(BOTS), "--rating", "x")
    assert unknown.returncode == 2
    assert error_line(unknown) == "error: unknown rating model 'x': elo or openskill"
    assert arena.rows() == rows and arena.files() == files

    arena.ok(
        "tournament", "create", "cup", "--bots", ",".join(BOTS), "--format", "mixed",
        "--rating", "openskill", "--seed", 3,
    )  # fmt: skip
    arena.ok("tournament", "run", "cup", "--concurrency", 2, "--sandbox", "process")
    shown = arena.ok("ladder", "--tournament", "cup").stdout
    assert header(shown)[5:9] == ["rating (95%)", "mu", "sigma", "mu-3sigma"]
    assert sorted(row[2] for row in table_rows(shown)) == sorted(BOTS)

    standings = json.loads(arena.ok("ladder", "--tournament", "cup", "--json").stdout)
    with arena.store() as store:
        cup = store.tournament("cup")
        assert cup.id is not None and cup.rating_model == RatingModelName.OPENSKILL
        stored = {r.version_id: (r.value, r.deviation) for r in store.ratings(cup.id)}
        # What the worker applied is Weng-Lin over the results in schedule order.
        replayed = states_after(WengLin(), done_results(store.matches(cup.id)))
    assert stored == {e: (s.value, s.deviation) for e, s in replayed.items()}
    # Each partner rated alone: not one shared team rating (some pair was decided).
    assert len({mu for mu, _ in stored.values()}) > 1
    for row in standings:
        mu, sigma = stored[row["version_id"]]
        assert row["rating_model"] == "openskill" and sigma is not None
        assert (row["mu"], row["sigma"]) == (round(mu, 1), round(sigma, 1))
        assert row["conservative"] == round(mu - 3 * sigma, 1)
        assert row["rating"] == round(mu, 1)
        assert row["ci95"] == [round(mu - Z95 * sigma, 1), round(mu + Z95 * sigma, 1)]
    assert [row["mu"] for row in standings] == sorted((r["mu"] for r in standings), reverse=True)

    # The web ladder heads the same figures and shows each row's.
    page = web_page(arena, "/?tournament=cup")
    heads = ("\u03bc", "\u03c3", "\u03bc \u2212 3\u03c3")  # mu, sigma, mu - 3 sigma
    shown = re.findall(r'<th data-testid="detail-head"[^>]*>([^<]*)</th>', page)
    assert tuple(shown) == heads
    for row in standings:
        figures = (row["mu"], row["sigma"], row["conservative"])
        assert "".join(f"<td>{x:.1f}</td>" for x in figures) in page, row


def web_page(arena: Arena, path: str) -> str:
    """GET ``path`` from ``arena web``'s app over HTTP, served on a free port meanwhile."""
    ladder = open_ladder(arena.url)
    sock = bound_socket("127.0.0.1:0")
    server = make_server(create_app(ladder, poll_seconds=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        with urllib.request.urlopen(url_of(sock) + path.lstrip("/"), timeout=30) as response:
            assert response.status == 200
            return str(response.read().decode())
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
        ladder.close()


@pytest.mark.parametrize(
    "details",
    [{"elo": 1510.5, "fit_elo": 1522.25}, {"mu": 26.5, "sigma": 7.0, "conservative": 5.5}],
)
def test_a_standing_crosses_the_grpc_message_unchanged(details: dict[str, float]) -> None:
    row = Standing(
        1, 1, "a", 2, 7, 26.5, (12.8, 40.2), 4, 1, 0, 1, 3.5, "ann", "active",
        "openskill" if "mu" in details else "elo", details,
    )  # fmt: skip
    again = standing_row(standing_message(row))
    assert again == row and list(again.details) == list(details)
