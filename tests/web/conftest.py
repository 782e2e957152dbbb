"""The web's fixtures: a real ladder, built once per session and database, and the web app
serving it on 127.0.0.1 (a free port) in a thread.

The ladder: two active bots (``random``, and ``heuristic`` under a name that is markup), one
match between them played by a real ``arena worker`` in the process sandbox (about ten
seconds), and a version rejected by its real validation game (it crashes at its first bid, having
written ``HOSTILE_LOG_LINE`` to its log; its exception's words hold ``HOSTILE_REASON``).
The bots' code is stored as a passed submission leaves it, without its validation game, to
keep the session short.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.league.opening import open_ladder
from arena.web import bound_socket, create_app
from arena.web.server import make_server, url_of
from tests.league.conftest import Arena, bot_copy, make_arena
from tests.league.conftest import sqlite_arena as sqlite_arena  # a fixture, by name
from tests.store.conftest import postgres_schema_url
from tests.web.browser import browser_context as browser_context  # fixtures, by name
from tests.web.browser import guarded as guarded
from tests.web.browser import page as page
from tests.web.browser import shots as shots

MARKUP_NAME = "<script>alert(1)</script>"
# A line the crasher writes to its log: markup and a terminal escape, to be shown as text.
HOSTILE_LOG_LINE = "\x1b[31m<script>alert(2)</script>\x1b[0m ready"
# The crasher's exception's end: a terminal escape, a bell and a right-to-left override.
HOSTILE_REASON = "\x1b[2J\x07\u202edesrever"
CRASHER = """
import sys

from arena_sdk import Bot, run

print("\\x1b[31m<script>alert(2)</script>\\x1b[0m ready", file=sys.stderr, flush=True)


class Crasher(Bot):
    def bid(self, obs):
        raise RuntimeError("<b>crashed</b> on purpose\\x1b[2J\\x07\\u202edesrever")

    def play(self, obs):
        return obs.legal_plays[0]


if __name__ == "__main__":
    run(Crasher())
"""


@dataclass
class Site:
    """A served ladder: its data (``arena``, for the CLI), its URL, and HTTP helpers."""

    arena: Arena
    url: str  # ends with "/"
    match_id: int  # the one played match
    token: str  # alice's, who owns every bot

    def get(self, path: str) -> tuple[int, dict[str, str], str]:
        """GET ``path`` (relative to the site): status, headers, body; never raises."""
        try:
            with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=30) as r:
                return r.status, _lower(r.headers), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, _lower(e.headers), e.read().decode()

    def json(self, path: str) -> Any:
        status, _, body = self.get(path)
        assert status == 200, (path, status, body)
        return json.loads(body)


def build_ladder(arena: Arena, work: Path) -> tuple[int, str]:
    """The ladder described above; the id of its played match, and its owner's token."""
    token = arena.user("alice")
    arena.seed(token, "random", bot_copy("random", work / "random"))
    arena.seed(token, MARKUP_NAME, bot_copy("heuristic", work / "heuristic"))
    crasher = work / "crasher"
    crasher.mkdir()
    (crasher / "bot.py").write_text(CRASHER)
    rejected = arena.submit(crasher, "crasher", token)
    assert rejected.returncode == 2, rejected.stderr
    arena.ok("worker", "--until-idle", "--concurrency", "1")
    with arena.store() as store:
        ladder_id = store.tournament("ladder").id
        assert ladder_id is not None
        played = [m for m in store.matches(ladder_id) if m.status == "done"]
    assert len(played) == 1, played
    assert played[0].id is not None
    return played[0].id, token


@pytest.fixture(
    scope="session", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp(f"web-{request.param}")
    if request.param == "sqlite":
        yield from _serve(make_arena(tmp), tmp)
    else:
        for url in postgres_schema_url():
            yield from _serve(make_arena(tmp, url), tmp)


def _serve(arena: Arena, tmp: Path) -> Iterator[Site]:
    match_id, token = build_ladder(arena, tmp)
    ladder = open_ladder(arena.url)
    sock = bound_socket("127.0.0.1:0")
    # Failed sign-ins unlimited: the tests share this server's one address (test_hostile
    # tests the limit on a server of its own).
    app = create_app(ladder, poll_seconds=1, failed_sign_ins_per_hour=10**9)
    server = make_server(app)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield Site(arena, url_of(sock), match_id, token)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
        ladder.close()


def _lower(headers: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()}
