"""The web's speed against the issue's targets: p95 at most 100 ms per page on a ladder of
200 bots and 100,000 results; the replay page interactive within 1 s; one step within 16 ms.

Builds the ladder in a fresh database (SQLite in a temporary directory; PostgreSQL too with
``--postgres URL``, in a schema of its own, dropped after): ``--bots`` active bots,
``--results`` played ladder matches between random pairs of them, their rating history, and
one real replay (a game of the sample bots ``random`` and ``heuristic``, played here without
a sandbox) stored as every match's record, as content-addressed blobs allow. Then it serves
the app on 127.0.0.1 and times ``--requests`` GETs of each of ``/``, ``/bots`` (the index),
``/bots/NAME``, ``/matches?page=1``, ``/matches/1`` (a match deal by deal, its two replays
read) and ``/api/ladder`` (server side: from the request to the last byte, on
one connection), beside the same for ``/static/arena.css`` (the server's floor, the
reference). In Chromium (``/usr/bin/chromium``) it times the replay page from navigation to
the viewer's ready mark (``performance.now()`` then, ``data-ready-ms``), and the mean of 200
steps (``next`` clicked, the layout forced each time).

Prints p50 and p95 per route and store, the load average before and after each store's
requests, and each figure beside its target; exit status 1 if a
target is missed. Run from the repository root: ``python bench/web.py [--postgres URL]``.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, insert, text
from sqlalchemy.engine import make_url

from arena.league.opening import open_ladder
from arena.league.stored_files import StoredFiles
from arena.read_model import LADDER, TournamentKind
from arena.store import Match, MatchStatus, RatingChange, Store, VersionStatus, open_store
from arena.web import bound_socket, create_app
from arena.web.server import make_server, url_of

PAGE_TARGET_MS = 100.0
INTERACTIVE_TARGET_MS = 1000.0
STEP_TARGET_MS = 16.0
CHROMIUM = "/usr/bin/chromium"


def real_replay(seed: int) -> dict[str, Any]:
    """One game of the sample bots, played by ``arena play`` (no sandbox: they are ours)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.json"
        subprocess.run(
            [Path(sys.executable).parent / "arena", "play", "heuristic", "random", "heuristic",
             "random", "--seed", str(seed), "--sandbox", "none", "--replay", str(path)],
            check=True, capture_output=True,
        )  # fmt: skip
        replay: dict[str, Any] = json.loads(path.read_text())
        return replay


def build(store: Store, bots: int, results: int, replay: dict[str, Any]) -> str:
    """The ladder described above; the name of a bot to show."""
    rng = random.Random(1)
    user = store.authenticate(store.add_user("bench"))
    versions = []
    for i in range(bots):
        v = store.add_version(user, f"bot{i:03d}", f"{i:064x}", f"code/{i:064x}", b"")
        assert v.id is not None
        store.set_status(v.id, VersionStatus.ACTIVE)
        versions.append(v.id)
    t = store.create_tournament(LADDER, seed=0, kind=TournamentKind.LADDER)  # results below
    assert t.id is not None
    key = StoredFiles(store, Path(tempfile.gettempdir())).store_blob(
        json.dumps({"games": [replay, replay]}).encode(), ".json"
    )
    strength = {v: rng.gauss(0, 1) for v in versions}
    elo = dict.fromkeys(versions, 1500.0)
    matches, history = [], []
    for index in range(results):
        a, b = rng.sample(versions, 2)
        diff = round(rng.gauss((strength[a] - strength[b]) * 100, 300))
        p0, p1 = 500 + diff // 2, 500 - diff + diff // 2
        winner = None if p0 == p1 else 0 if p0 > p1 else 1
        matches.append(
            {
                "id": index + 1, "tournament_id": t.id, "schedule_index": index, "seed": index,
                "seat0": a, "seat1": b, "seat2": a, "seat3": b, "status": MatchStatus.DONE,
                "attempts": 0, "lease": 1, "finished_at": time.time(),
                "game1_team0": p0 // 2, "game1_team1": p1 // 2, "game2_team0": p0 - p0 // 2,
                "game2_team1": p1 - p1 // 2, "points_team0": p0, "points_team1": p1,
                "winner": winner, "replay_path": key,
            }
        )  # fmt: skip
        score = 0.5 if winner is None else 1.0 if winner == 0 else 0.0
        change = 16 * (score - 1 / (1 + 10 ** ((elo[b] - elo[a]) / 400)))
        for vid, delta in ((a, change), (b, -change)):
            history.append(
                {
                    "tournament_id": t.id, "match_id": index + 1, "version_id": vid,
                    "schedule_index": index,
                    "value_before": elo[vid], "value_after": elo[vid] + delta,
                }
            )  # fmt: skip
            elo[vid] += delta
    with store.database.begin() as connection:
        for start in range(0, len(matches), 5000):
            connection.execute(insert(Match), matches[start : start + 5000])
        for start in range(0, len(history), 10000):
            connection.execute(insert(RatingChange), history[start : start + 10000])
    store.rebuild_tallies()  # rows written around Queue.finish, which adds each result's tallies
    return "bot000"


@contextmanager
def postgres_schema(url: str) -> Iterator[str]:
    admin = create_engine(url)
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        scoped = make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
        yield scoped.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@contextmanager
def served(url: str) -> Iterator[str]:
    lad = open_ladder(url)
    sock = bound_socket("127.0.0.1:0")
    server = make_server(create_app(lad))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield url_of(sock)
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()
        lad.close()


def latencies(base: str, path: str, n: int) -> list[float]:
    host, port = base.removeprefix("http://").rstrip("/").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=120)
    times = []
    for _ in range(n + 1):
        start = time.perf_counter()
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        times.append((time.perf_counter() - start) * 1000)
        if response.status != 200:
            raise SystemExit(f"{path}: HTTP {response.status}")
    connection.close()
    return times[1:]  # the first warms the caches


def p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def load() -> str:
    """The machine's load average (1, 5, 15 min): the figures mean little without it."""
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def bench_pages(label: str, base: str, bot: str, n: int) -> bool:
    ok = True
    print(f"{label}: {load()}")
    floor = latencies(base, "/static/arena.css", n)
    p50, p95 = p(floor, 0.5), p(floor, 0.95)
    print(f"{label}: reference /static/arena.css p50 {p50:.1f} ms p95 {p95:.1f} ms")
    for path in ("/", "/bots", f"/bots/{bot}", "/matches?page=1", "/matches/1", "/api/ladder"):
        times = latencies(base, path, n)
        p95 = p(times, 0.95)
        ok &= p95 <= PAGE_TARGET_MS
        verdict = "ok" if p95 <= PAGE_TARGET_MS else "MISSED"
        print(
            f"{label}: {path:18} p50 {p(times, 0.5):7.1f} ms  p95 {p95:7.1f} ms"
            f"  (target p95 <= {PAGE_TARGET_MS:.0f} ms: {verdict})"
        )
    print(f"{label}: {load()}")
    return ok


def bench_viewer(base: str, rounds: int) -> bool:
    from playwright.sync_api import sync_playwright

    args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=args, headless=True
        )
        page = context.new_page()
        ready, steps = [], []
        for _ in range(rounds):
            page.goto(f"{base}matches/1/games/1")
            page.wait_for_selector('#viewer[data-ready="true"]')
            ready.append(float(page.locator("#viewer").get_attribute("data-ready-ms") or "nan"))
            steps.append(
                page.evaluate(
                    """() => { const next = document.querySelector('[data-testid=next]');
                    const t = performance.now();
                    for (let i = 0; i < 200; i++) { next.click(); void document.body.offsetHeight; }
                    return (performance.now() - t) / 200; }"""
                )
            )
        context.close()
    r, s = statistics.median(ready), statistics.median(steps)
    print(
        f"chromium: replay page interactive {r:.0f} ms (median of {rounds}; target <= "
        f"{INTERACTIVE_TARGET_MS:.0f} ms: {'ok' if r <= INTERACTIVE_TARGET_MS else 'MISSED'})"
    )
    print(
        f"chromium: one step {s:.2f} ms (mean of 200, median of {rounds}; target <= "
        f"{STEP_TARGET_MS:.0f} ms: {'ok' if s <= STEP_TARGET_MS else 'MISSED'})"
    )
    return r <= INTERACTIVE_TARGET_MS and s <= STEP_TARGET_MS


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5, help="replay page loads in Chromium")
    parser.add_argument("--postgres", help="a PostgreSQL URL to bench too")
    args = parser.parse_args()
    replay = real_replay(seed=7)
    ok = True
    with tempfile.TemporaryDirectory() as home:
        stores = [("sqlite", f"sqlite:///{home}/arena.db")]
        with contextlib.ExitStack() as stack:
            if args.postgres:
                stores.append(("postgres", stack.enter_context(postgres_schema(args.postgres))))
            for label, url in stores:
                store = open_store(url)
                start = time.perf_counter()
                bot = build(store, args.bots, args.results, replay)
                store.close()
                print(f"{label}: built {args.bots} bots, {args.results} results "
                      f"in {time.perf_counter() - start:.1f} s")  # fmt: skip
                with served(url) as base:
                    ok &= bench_pages(label, base, bot, args.requests)
                    if label == "sqlite":
                        ok &= bench_viewer(base, args.rounds)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
