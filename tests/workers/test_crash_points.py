"""A worker killed between any two writes of settling a validation or of recording a match
leaves the ladder whole: another worker run to idle finishes everything, once.

Each run: ``a v1`` and ``b v1`` active (their match queued), ``a v2`` submitted through the
server's path (pending, its validation queued). A real ``arena worker`` process is told by
the test seam ``ARENA_CRASH_AT`` (``arena/host/crashpoint.py``) to ``os._exit`` at one step; it
must die there (its status says so). The ladder is checked at once (atomic: no version
active without its matches), then a second worker (``--silent-after 2``, so it takes the dead
one's claim back) runs until idle, and every invariant is checked, by ``arena doctor`` and
by reading the store directly.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots.submission import content_hash, pack
from arena.host.crashpoint import CRASH_STATUS, STEPS
from arena.league.api import LocalLadder, cached_data
from arena.league.doctor import problems
from arena.league.stored_files import code_key
from arena.league.submit import settle
from arena.read_model import LADDER
from arena.store import MatchStatus, Store, VersionStatus, open_store
from tests.cli.runner import run_arena
from tests.store.conftest import postgres_schema_url

SAMPLE = Path(__file__).resolve().parents[2] / "sample_bots" / "random"


# Every step on PostgreSQL (the service's database); on SQLite the steps inside a
# transaction, whose rollback at a killed process is the backend's own (each run is some
# 20 s on a loaded 2-core machine, most of it starting processes).
IN_TRANSACTION = ("settle_retired", "settle_activated", "settle_scheduled")
RUNS = [
    *(pytest.param("postgres", step, marks=pytest.mark.postgres) for step in STEPS),
    *(pytest.param("sqlite", step) for step in IN_TRANSACTION),
]


def database(kind: str, tmp_path: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'arena.db'}"
    else:
        yield from postgres_schema_url()


def bot(tmp_path: Path, name: str) -> Path:
    """The sample random bot, a comment making each copy's code its own."""
    code = tmp_path / "bots" / name
    shutil.copytree(SAMPLE, code)
    with (code / "bot.py").open("a") as source:
        source.write(f"# {name}\n")
    return code


def seeded(tmp_path: Path, url: str, *, pending: bool = True) -> dict[str, str]:
    """The ladder before the crash (``pending``: with ``a v2`` waiting for its validation),
    and the environment its workers run in."""
    env = {
        "ARENA_HOME": str(tmp_path / "home"),
        "ARENA_DATABASE_URL": url,
        "ARENA_SANDBOX": "process",
    }
    store = open_store(url)
    try:
        token = store.add_user("owner")
        user = store.authenticate(token)
        for name in ("a", "b"):  # active, as a passed validation leaves them
            code = bot(tmp_path, f"{name}1")
            digest = content_hash(code)
            version = store.add_version(user, name, digest, code_key(digest), pack(code))
            assert version.id is not None
            settle(store, version.id, None)
        if pending:  # a v2 as the server stores it: its validation queued for the workers
            server = LocalLadder(store, cached_data(store))
            assert server.submit(token, bot(tmp_path, "a2"), "a").version.status == "pending"
    finally:
        store.close()
    return env


def kinds(store: Store) -> set[str]:
    return {p.kind for p in problems(store, silent_after=60.0)}


@pytest.fixture
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from database(request.param, tmp_path)


@pytest.mark.parametrize(("db_url", "step"), RUNS, indirect=["db_url"])
def test_a_worker_killed_at_any_step_leaves_the_ladder_whole(
    step: str, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARENA_CRASH_AT", raising=False)
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    for key, value in seeded(tmp_path, db_url).items():
        monkeypatch.setenv(key, value)

    crashed = run_arena("worker", "--until-idle", env={"ARENA_CRASH_AT": step}, timeout=300)
    assert crashed.returncode == CRASH_STATUS, f"it never reached {step}:\n{crashed.stderr}"
    store = open_store(db_url)
    try:
        # At once: a version is pending, or active with all its matches; never in between.
        assert kinds(store) <= {"unrated"}, problems(store, 60.0)
        (a1, a2), (b1,) = (store.versions(n) for n in ("a", "b"))
        if a2.status == VersionStatus.ACTIVE:
            assert a1.status == VersionStatus.RETIRED
        else:
            assert (a1.status, a2.status) == (VersionStatus.ACTIVE, VersionStatus.PENDING)
    finally:
        store.close()

    finished = run_arena("worker", "--until-idle", "--silent-after", 2, timeout=300)
    assert finished.returncode == 0, finished.stderr
    store = open_store(db_url)
    try:
        assert problems(store, silent_after=60.0) == []  # arena doctor's check, in process
        (a1, a2), (b1,) = (store.versions(n) for n in ("a", "b"))
        assert (a1.status, a2.status, b1.status) == ("retired", "active", "active")
        assert store.validation(a2.id or 0).status == MatchStatus.DONE
        ladder = store.tournament(LADDER)
        assert ladder.id is not None
        matches = store.matches(ladder.id)
        # a v2 against b v1 once, played once; a v1's match played, or cancelled unplayed.
        live = [m for m in matches if m.status != MatchStatus.CANCELLED]
        assert [set(m.seats) for m in live if a2.id in m.seats] == [{a2.id, b1.id}]
        assert {m.status for m in live} == {MatchStatus.DONE}
        assert all(m.attempts <= 1 for m in live)  # a taken-back claim counts one attempt
        # Every done match rated, in order, once; the tallies the worker counted those of
        # the stored replays.
        assert store.rated_through(ladder.id) == max(m.schedule_index for m in live)
        rated = [r.match_id for r in store.rating_history(ladder.id)]
        assert sorted(set(rated)) == sorted(m.id for m in live if m.id is not None)
        versions = [v for v in (a1.id, a2.id, b1.id) if v is not None]
        counted = store.tallies(ladder.id, versions)
        assert sorted(counted) == sorted({v for m in live for v in m.seats})
        store.rebuild_tallies()
        assert store.tallies(ladder.id, versions) == counted
    finally:
        store.close()


def test_doctor_repairs_what_an_older_release_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bug of issue 24, as an older release left it: a version active without its
    matches, and a result recorded without its rating. ``arena doctor`` reports them (exit
    1), ``arena status`` shows them, ``--repair`` mends them."""
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    for key, value in seeded(tmp_path, url, pending=False).items():
        monkeypatch.setenv(key, value)
    store = open_store(url)
    try:
        token = store.add_user("other")
        code = bot(tmp_path, "c1")
        digest = content_hash(code)
        user = store.authenticate(token)
        c = store.add_version(user, "c", digest, code_key(digest), pack(code))
        assert c.id is not None
        store.set_status(c.id, VersionStatus.ACTIVE)  # what the old settle committed first
    finally:
        store.close()

    found = run_arena("doctor")
    assert found.returncode == 1
    assert found.stdout.splitlines() == [
        "broken: missing_matches: ladder: c v1 has no match scheduled against a v1, b v1"
        " (arena doctor --repair mends it)"
    ]
    assert "broken: missing_matches: ladder: c v1" in run_arena("status").stdout
    (problem,) = json.loads(run_arena("status", "--json").stdout)["problems"]
    assert (problem["kind"], problem["repairable"]) == ("missing_matches", True)

    mended = run_arena("doctor", "--repair")
    assert mended.returncode == 0, mended.stdout
    assert mended.stdout.splitlines() == [
        "repaired: ladder: 2 missing matches scheduled",
        "invariants: ok",
    ]
    again = run_arena("doctor", "--repair")  # idempotent: nothing more to do
    assert again.stdout.splitlines() == ["invariants: ok"]

    played = run_arena("worker", "--until-idle")
    assert played.returncode == 0, played.stderr
    store = open_store(url)
    try:
        ladder = store.tournament(LADDER)
        assert ladder.id is not None
        assert {m.status for m in store.matches(ladder.id)} == {MatchStatus.DONE}
        assert len(store.matches(ladder.id)) == 3  # a1-b1, then c against a1 and b1
    finally:
        store.close()
