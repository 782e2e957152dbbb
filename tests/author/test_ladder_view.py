"""``arena ladder`` at a glance: one rating column, the owner, pairs, retired versions hidden
unless ``--all``; and ``--json`` on the read commands (keys documented in the README)."""

from __future__ import annotations

import json
from pathlib import Path

from arena.store import VersionStatus
from tests.league.conftest import Arena, bot_copy, make_arena, table_rows

OLD_KEYS = {
    "rank", "group", "bot", "version", "version_id", "elo", "fit_elo", "ci95", "games", "wins",
    "draws", "losses", "mean_diff",
}  # fmt: skip


def header(text: str) -> list[str]:
    """The cells of a rich table's header line."""
    line = next(line for line in text.splitlines() if line.startswith("┃"))
    return [cell.strip() for cell in line.strip("┃").split("┃")]


def played_ladder(tmp_path: Path) -> tuple[Arena, str]:
    """alice's alpha v1 (random) played bob's beta (heuristic), then alpha v2 replaced v1."""
    arena = make_arena(tmp_path)
    alice, bob = arena.user("alice"), arena.user("bob")
    first = arena.seed(alice, "alpha", bot_copy("random", tmp_path / "alpha1"))
    arena.seed(bob, "beta", bot_copy("heuristic", tmp_path / "beta"))
    arena.ok("worker", "--until-idle")
    with arena.store() as store:  # as a newer submission retires it
        store.set_status(first, VersionStatus.RETIRED, "replaced by v2")
    arena.seed(alice, "alpha", bot_copy("random", tmp_path / "alpha2", "v2"))
    return arena, bob


def test_the_ladder_shows_one_rating_the_owner_and_pairs_and_hides_retired(
    tmp_path: Path,
) -> None:
    arena, _ = played_ladder(tmp_path)

    shown = arena.ok("ladder").stdout
    assert header(shown) == [
        "rank", "group", "bot", "version", "owner", "rating (95%)", "pairs", "W/D/L", "mean diff",
    ]  # fmt: skip
    rows = {(r[2], r[3]): r for r in table_rows(shown)}
    assert set(rows) == {("beta", "1"), ("alpha", "2")}  # alpha v1, retired, hidden
    assert rows["beta", "1"][4] == "bob" and rows["alpha", "2"][4] == "alice"
    assert rows["beta", "1"][6:8] == ["1", "1/0/0"]  # one duplicate pair, won
    assert rows["alpha", "2"][6:8] == ["0", "0/0/0"]
    assert "1 retired version hidden (--all shows them)" in " ".join(shown.split())

    everything = arena.ok("ladder", "--all").stdout
    assert header(everything)[5:8] == ["rating (95%)", "status", "Elo"]
    every = {(r[2], r[3]): r for r in table_rows(everything)}
    assert set(every) == {("beta", "1"), ("alpha", "2"), ("alpha", "1")}
    assert every["alpha", "1"][6] == "retired" and every["alpha", "1"][8:10] == ["1", "0/0/1"]

    standings = json.loads(arena.ok("ladder", "--json").stdout)
    assert len(standings) == 3  # every version, retired included
    for row in standings:
        assert set(row) == OLD_KEYS | {"owner", "status", "pairs", "rating_model", "rating"}, row
        assert row["games"] == 2 * row["pairs"]
    by_label = {(r["bot"], r["version"]): r for r in standings}
    assert by_label["alpha", 1]["status"] == "retired"
    assert by_label["beta", 1]["owner"] == "bob" and by_label["beta", 1]["pairs"] == 1
    low, high = by_label["beta", 1]["ci95"]
    rating = f"{by_label['beta', 1]['fit_elo']:.0f} ({low:.0f}..{high:.0f})"
    assert rows["beta", "1"][5] == rating


def test_every_read_command_has_json(tmp_path: Path) -> None:
    arena, bob = played_ladder(tmp_path)

    bots = json.loads(arena.ok("bots", "--json").stdout)
    assert [(b["bot"], b["number"], b["status"]) for b in bots] == [
        ("alpha", 1, "retired"), ("alpha", 2, "active"), ("beta", 1, "active"),
    ]  # fmt: skip
    for b in bots:
        assert sorted(b) == ["bot", "content_hash", "number", "reason", "status", "validation"]

    (match,) = json.loads(arena.ok("matches", "--status", "done", "--json").stdout)
    replay = json.loads(arena.ok("replay", "show", match["id"], "--game", "2", "--json").stdout)
    text = arena.ok("replay", "show", match["id"], "--game", "2").stdout.splitlines()
    totals = replay["result"]["totals"]
    assert text[-1] == f"final: team 0 {totals[0]} · team 1 {totals[1]}"
    assert text[0] == f"match {match['id']} · game 2 · seed {replay['seed']}"

    logs = json.loads(arena.ok("logs", match["id"], "beta", "--json", "--token", bob).stdout)
    assert [(log["game"], log["label"]) for log in logs] == [(1, "beta v1")] * 2 + [
        (2, "beta v1")
    ] * 2
    for log in logs:
        assert sorted(log) == ["first_seat", "game", "label", "output", "seat"]
        assert "serving on" in log["output"]
    raw = arena.ok("logs", match["id"], "beta", "--token", bob).stdout
    assert all(log["output"] in raw for log in logs)

    (token,) = json.loads(arena.ok("token", "list", "--json", "--token", bob).stdout)
    assert sorted(token) == ["created_at", "expires_at", "name"] and token["expires_at"] is None
    assert token["name"] in arena.ok("token", "list", "--token", bob).stdout
