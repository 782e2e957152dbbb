"""The ladder through the CLI, as users use it: users, submissions, the ladder's matches played
by a worker, standings, replays and logs, new versions, one-off tournaments."""

from __future__ import annotations

import hashlib
import json
import tarfile
import zipfile
from pathlib import Path

from arena.store import MatchStatus, VersionStatus
from tests.cli.runner import error_line

from .conftest import Arena, bot_copy, table_rows

LADDER_KEYS = {
    "rank", "bot", "version", "elo", "ci95", "games", "wins", "draws", "losses", "mean_diff",
}  # fmt: skip


def zip_of(bot_dir: Path, dest: Path) -> Path:
    """A .zip of the bot, inside one top-level directory (as zipping a folder makes it)."""
    with zipfile.ZipFile(dest, "w") as zf:
        for path in sorted(bot_dir.rglob("*")):
            zf.write(path, f"{bot_dir.name}/{path.relative_to(bot_dir).as_posix()}")
    return dest


def tar_of(bot_dir: Path, dest: Path) -> Path:
    """A .tar.gz of the bot's files at the archive's root."""
    with tarfile.open(dest, "w:gz") as tf:
        for path in sorted(bot_dir.iterdir()):
            tf.add(path, path.name)
    return dest


def test_submit_play_and_read_the_ladder(arena: Arena, tmp_path: Path) -> None:
    added = arena.run("user", "add", "alice")
    assert added.returncode == 0, added.stderr
    token = added.stdout.strip()
    assert added.stdout == token + "\n"  # the token, alone on stdout
    assert "not shown again" in added.stderr
    rows = arena.rows()
    assert len(rows["users"]) == 1 and len(rows["tokens"]) == 1
    assert token not in repr(rows)  # kept only as its hash
    assert hashlib.sha256(token.encode()).hexdigest() in repr(rows["tokens"])

    random_dir = bot_copy("random", tmp_path / "random")
    heuristic_zip = zip_of(bot_copy("heuristic", tmp_path / "heuristic"), tmp_path / "h.zip")
    first = arena.submit(random_dir, "random", token)
    assert first.returncode == 0, first.stderr
    assert first.stdout == "random v1: active · 0 ladder matches scheduled\n"
    second = arena.submit(heuristic_zip, "heuristic", token)
    assert second.returncode == 0, second.stderr
    assert second.stdout == "heuristic v1: active · 1 ladder match scheduled\n"

    bots = table_rows(arena.ok("bots").stdout)
    assert [row[:3] for row in bots] == [["heuristic", "1", "active"], ["random", "1", "active"]]
    with arena.store() as store:
        (random_v,) = store.versions("random")
        (heuristic_v,) = store.versions("heuristic")
        ladder = store.tournament("ladder")
        assert ladder.id is not None
        (match,) = store.matches(ladder.id)
    assert {random_v.status, heuristic_v.status} == {VersionStatus.ACTIVE}
    assert sorted(match.teams) == sorted([(random_v.id, random_v.id), (heuristic_v.id,) * 2])
    assert match.status == MatchStatus.QUEUED
    scheduled = table_rows(arena.ok("matches").stdout)
    assert len(scheduled) == 1
    assert scheduled[0][0] == str(match.id) and scheduled[0][4] == "queued"
    assert {scheduled[0][2], scheduled[0][3]} == {"random v1", "heuristic v1"}

    worked = arena.ok("worker", "--until-idle")
    assert f"match {match.id} (index 0): done" in worked.stderr
    with arena.store() as store:
        played = store.match(match.id)  # type: ignore[arg-type]
    assert played.status == MatchStatus.DONE and played.worker_id is not None
    blobs = {row[0] for row in arena.rows()["blobs"]}
    assert played.replay_path in blobs and played.logs_path in blobs
    (done,) = table_rows(arena.ok("matches").stdout)
    signed = [str(p).replace("-", "\u2212") for p in (played.points_team0, played.points_team1)]
    assert done[4] == "done" and done[5] == f"team A {signed[0]} · team B {signed[1]}"

    rows = json.loads(arena.ok("ladder", "--json").stdout)
    assert isinstance(rows, list) and len(rows) == 2
    for row in rows:
        assert set(row) >= LADDER_KEYS, row
        low, high = row["ci95"]
        assert low < high
        assert row["games"] == 2 and row["wins"] + row["draws"] + row["losses"] == 1
    assert [(r["rank"], r["bot"], r["version"]) for r in rows] == [
        (1, "heuristic", 1),
        (2, "random", 1),
    ]
    assert rows[0]["wins"] == 1 and rows[1]["losses"] == 1
    assert rows[0]["mean_diff"] == -rows[1]["mean_diff"] > 0
    assert rows[0]["elo"] > 1500 > rows[1]["elo"]
    table = table_rows(arena.ok("ladder").stdout)
    assert [row[2] for row in table] == ["heuristic", "random"]

    replay = arena.ok("replay", match.id).stdout.splitlines()
    assert replay[0].startswith(f"match {match.id} · game 1 · seed {match.seed}")
    assert sum(line.startswith("Deal ") for line in replay) >= 10
    assert replay[-1] == f"final: team 0 {played.game1_team0} · team 1 {played.game1_team1}"
    replay2 = arena.ok("replay", "show", match.id, "--game", "2").stdout.splitlines()
    # The second game seats the first game's team 0 at seats 1+3.
    assert replay2[-1] == f"final: team 0 {played.game2_team1} · team 1 {played.game2_team0}"

    logs = arena.ok("logs", match.id, "random", "--token", token).stdout
    seats = [s for s, v in enumerate(match.seats) if v == random_v.id]
    headers = [line for line in logs.splitlines() if line.startswith("== ")]
    assert headers == [f"== game 1, seat {s} (random v1) ==" for s in seats] + [
        f"== game 2, seat {(s + 1) % 4} (random v1) ==" for s in seats
    ]
    assert logs.count("random serving on") == 4 and "heuristic" not in logs
    nobody = arena.run("logs", match.id, "montecarlo", "--token", token)
    assert nobody.returncode == 2
    assert "has no bot 'montecarlo'" in error_line(nobody)

    # The same code again, packed differently: nothing new.
    rows_before, files_before = arena.rows(), arena.files()
    again = arena.submit(tar_of(random_dir, tmp_path / "random.tar.gz"), "random", token)
    assert again.returncode == 0, again.stderr
    assert again.stdout == "random v1: already submitted (active)\n"
    assert arena.rows() == rows_before and arena.files() == files_before
    assert arena.leftovers() == []


def test_a_new_version_retires_the_old_one_and_only_its_owner_may_submit(
    arena: Arena, tmp_path: Path
) -> None:
    alice, bob = arena.user("alice"), arena.user("bob")
    arena.seed(alice, "alpha", bot_copy("random", tmp_path / "a1"))
    arena.seed(bob, "beta", bot_copy("random", tmp_path / "b1", "beta"))
    newer = arena.submit(bot_copy("random", tmp_path / "a2", "alpha 2"), "alpha", alice)
    assert newer.stdout == "alpha v2: active · 1 ladder match scheduled\n", newer.stderr

    with arena.store() as store:
        v1, v2 = store.versions("alpha")
        (b1,) = store.versions("beta")
        ladder = store.tournament("ladder")
        assert ladder.id is not None
        matches = store.matches(ladder.id)
        entries = {e.bot.name: e.version.id for e in store.active_entries()}
    assert (v1.status, v1.reason) == (VersionStatus.RETIRED, "replaced by v2")
    assert v2.status == VersionStatus.ACTIVE
    assert entries == {"alpha": v2.id, "beta": b1.id}
    assert [sorted(m.teams) for m in matches] == [
        sorted([(b1.id, b1.id), (v1.id, v1.id)]),  # beta's, scheduled when it joined
        sorted([(v2.id, v2.id), (b1.id, b1.id)]),  # alpha v2's own
    ]
    assert [m.schedule_index for m in matches] == [0, 1]
    # alpha v1's match, still queued, is not played any more: v1 is off the ladder.
    assert [m.status for m in matches] == [MatchStatus.CANCELLED, MatchStatus.QUEUED]
    bots = table_rows(arena.ok("bots").stdout)
    assert [row[:3] for row in bots] == [
        ["alpha", "1", "retired"],
        ["alpha", "2", "active"],
        ["beta", "1", "active"],
    ]

    # Bob can't submit to alice's bot: not new code, not her very code, not as a new bot.
    rows, files = arena.rows(), arena.files()
    for attempt in (tmp_path / "a2", bot_copy("random", tmp_path / "b2", "bob's")):
        refused = arena.submit(attempt, "alpha", bob)
        assert refused.returncode == 2
        assert error_line(refused) == "error: bot name 'alpha' belongs to another user"
        assert arena.rows() == rows and arena.files() == files
    assert arena.leftovers() == []


def test_a_one_off_round_robin(arena: Arena, tmp_path: Path) -> None:
    token = arena.user("alice")
    for name in ("r1", "r2", "r3"):  # submissions are tested above: no validation games here
        arena.seed(token, name, bot_copy("random", tmp_path / name, name))

    created = arena.ok("tournament", "create", "cup", "--bots", "r1,r2,r3", "--seed", 5)
    assert created.stdout == "tournament cup: 3 matches scheduled\n"
    with arena.store() as store:
        versions = {e.version.id: e.bot.name for e in store.active_entries()}
        cup = store.tournament("cup")
        ladder = store.tournament("ladder")
        assert cup.id is not None and ladder.id is not None
        pairings = [m.teams for m in store.matches(cup.id)]
    assert (cup.format, cup.seed, cup.games_per_pairing) == ("pairs", 5, 1)
    assert all(a == c and b == d for (a, c), (b, d) in pairings)  # pairs: two copies a team
    met = sorted(tuple(sorted(versions[t[0]] for t in teams)) for teams in pairings)
    assert met == [("r1", "r2"), ("r1", "r3"), ("r2", "r3")]  # every pairing, once
    status = arena.ok("tournament", "status", "cup").stdout
    assert status.splitlines()[0] == "queued 3 · running 0 · done 0 · error 0"

    ran = arena.ok("tournament", "run", "cup", "--concurrency", 2)
    assert sorted(row[2] for row in table_rows(ran.stdout)) == ["r1", "r2", "r3"]
    status = arena.ok("tournament", "status", "cup").stdout
    assert status.splitlines()[0] == "queued 0 · running 0 · done 3 · error 0"
    standings = table_rows(status)
    assert sorted(row[2] for row in standings) == ["r1", "r2", "r3"]
    as_json = json.loads(arena.ok("tournament", "status", "cup", "--json").stdout)
    assert as_json["matches"] == {"queued": 0, "running": 0, "done": 3, "error": 0, "cancelled": 0}
    cup_ladder = json.loads(arena.ok("ladder", "--tournament", "cup", "--json").stdout)
    assert as_json["standings"] == cup_ladder
    assert [row["bot"] for row in cup_ladder] == [row[2] for row in standings]
    assert all(row[6] == "2" for row in standings)  # two matches: two duplicate pairs
    with arena.store() as store:
        assert store.status_counts(ladder.id)[MatchStatus.QUEUED] == 3  # the ladder's: untouched
        assert {r.version_id for r in store.ratings(cup.id)} == set(versions)

    rows, files = arena.rows(), arena.files()
    taken = arena.run("tournament", "create", "cup", "--bots", "r1,r2")
    assert taken.returncode == 2
    assert error_line(taken) == "error: tournament name 'cup' is taken"
    unknown = arena.run("tournament", "create", "cup2", "--bots", "r1,nobody")
    assert unknown.returncode == 2
    assert error_line(unknown) == "error: no active version of nobody"
    assert arena.rows() == rows and arena.files() == files
