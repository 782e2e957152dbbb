"""Migrations: an empty database reaches head, and the migrations agree with the models."""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

from arena.competition.statistics import by_bot
from arena.engine.replay import Replay
from arena.store import Store, open_store
from arena.store.migrate import (
    HEAD,
    alembic_config,
    current_revision,
    head_revision,
    schema_diff,
)
from arena.store.tokens import token_hash
from tests.store.previous_release import PREVIOUS_HEAD, make_previous_release

TABLES = {
    "alembic_version",
    "users",
    "bots",
    "bot_versions",
    "tournaments",
    "matches",
    "ratings",
    "rating_history",
    "blobs",
    "workers",
    "tokens",
    "version_tallies",
    "validations",
    "deal_secrets",
}


def test_an_empty_database_is_migrated_to_head(store: Store) -> None:
    assert head_revision() == HEAD  # opening a store trusts HEAD to skip loading alembic
    with store.database.connect() as connection:
        assert current_revision(connection) == HEAD
        assert MigrationContext.configure(connection).get_current_revision() == HEAD
        assert set(inspect(connection).get_table_names()) == TABLES


def test_autogenerate_finds_nothing_to_migrate(store: Store) -> None:
    assert schema_diff(store.database) == []


def test_reopening_keeps_the_data(db_url: str) -> None:
    first = open_store(db_url)
    token = first.add_user("ann")
    first.close()
    again = open_store(db_url)
    try:
        assert again.authenticate(token).name == "ann"
    finally:
        again.close()


def migrated(records: list[logging.LogRecord]) -> list[tuple[Any, Any]]:
    """The ``schema_migrated`` events logged: each one's from and to revisions."""
    return [
        (getattr(r, "from_revision", None), getattr(r, "to_revision", None))
        for r in records
        if getattr(r, "event", None) == "schema_migrated"
    ]


def test_the_process_that_migrates_says_so_and_one_that_finds_it_done_does_not(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="arena.store")
    engine = create_engine(db_url)
    try:
        with engine.begin() as connection:
            make_previous_release(connection, [])
    finally:
        engine.dispose()
    open_store(db_url).close()
    assert migrated(caplog.records) == [(PREVIOUS_HEAD, HEAD)]
    open_store(db_url).close()
    assert migrated(caplog.records) == [(PREVIOUS_HEAD, HEAD)]  # none the second time


def test_workers_opening_a_fresh_database_at_once_migrate_it_once(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="arena.store")
    errors: list[BaseException] = []

    def open_and_close() -> None:
        try:
            open_store(db_url).close()
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=open_and_close) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert migrated(caplog.records) == [(None, HEAD)]  # one migrated; three found it done
    store = open_store(db_url)
    try:
        assert schema_diff(store.database) == []
    finally:
        store.close()


def test_a_database_of_the_previous_schema_is_upgraded_without_loss(db_url: str) -> None:
    """A database as the last release left it (0002), with a user in it: opening it with
    this version migrates it, and the user keeps their token (and is no operator)."""
    engine = create_engine(db_url)
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), "0002")
            connection.execute(
                text("INSERT INTO users (name, token_hash, created_at) VALUES ('old', :h, 1.0)"),
                {"h": token_hash("old-token")},
            )
    finally:
        engine.dispose()
    store = open_store(db_url)
    try:
        user = store.authenticate("old-token")
        assert (user.name, user.operator) == ("old", False)
        assert schema_diff(store.database) == []
    finally:
        store.close()


def test_upgrading_from_0004_counts_the_results_already_recorded(db_url: str) -> None:
    """A database at 0004 holding two done matches with their replays, one in each of two
    tournaments: the upgrade (0005, then 0010) fills each version's tallies in each
    tournament, equal to the statistics recomputed from that tournament's replays by player
    name, and head-to-head from the matches' points."""
    golden = Path(__file__).parents[1] / "golden" / "v1"  # replays of that time
    first = json.loads((golden / "plain_seed653_random.json").read_text())
    second = json.loads((golden / "double_board_seed2_random.json").read_text())
    labels = {1: "a v1", 2: "b v1", 3: "c v1"}
    matches = [(1, (1, 2, 1, 2), (310, -40), 0), (2, (3, 1, 3, 1), (55, 55), None)]
    engine = create_engine(db_url)
    replays: dict[int, list[dict[str, Any]]] = {}
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), "0004")
            connection.execute(text("INSERT INTO users (name, created_at) VALUES ('u', 1.0)"))
            for bot, name in enumerate("abc", start=1):
                connection.execute(
                    text("INSERT INTO bots (name, owner_id, created_at) VALUES (:n, 1, 1.0)"),
                    {"n": name},
                )
                connection.execute(
                    text(
                        "INSERT INTO bot_versions (bot_id, number, content_hash, archive_path,"
                        " status, created_at) VALUES (:b, 1, :h, 'code/x', 'active', 1.0)"
                    ),
                    {"b": bot, "h": f"{bot:064x}"},
                )
            for name in ("ladder", "cup"):
                connection.execute(
                    text(
                        "INSERT INTO tournaments (name, kind, format, games_per_pairing, seed,"
                        " limits, created_at) VALUES (:n, 'ladder', 'pairs', 1, 1, '{}', 1.0)"
                    ),
                    {"n": name},
                )
            for match_id, seats, points, winner in matches:
                games = [named(first, seats, labels), named(second, rotated(seats), labels)]
                replays[match_id] = games
                key = f"blobs/{match_id}.json"
                data = json.dumps({"games": games}).encode()
                connection.execute(
                    text("INSERT INTO blobs VALUES (:k, :s, :d, 1.0)"),
                    {"k": key, "s": len(data), "d": data},
                )
                connection.execute(
                    text(
                        "INSERT INTO matches (tournament_id, schedule_index, seed, seat0, seat1,"
                        " seat2, seat3, status, attempts, lease, points_team0, points_team1,"
                        " winner, replay_path) VALUES (:i, :i, 1, :s0, :s1, :s2, :s3, 'done', 0,"
                        " 1, :p0, :p1, :w, :k)"
                    ),
                    {"i": match_id, "p0": points[0], "p1": points[1], "w": winner, "k": key}
                    | {f"s{n}": v for n, v in enumerate(seats)},
                )
    finally:
        engine.dispose()
    store = open_store(db_url)
    try:
        for tournament, match_id in ((1, 1), (2, 2)):  # ladder: match 1; cup: match 2
            stored = store.tallies(tournament, [1, 2, 3])
            recomputed = by_bot(Replay.from_dict(g) for g in replays[match_id])
            assert {labels[v] for v in stored} == set(recomputed)
            for version, figures in stored.items():
                label = labels[version]
                assert figures.statistics.to_dict() == recomputed[label].to_dict(), label
        ladder, cup = store.tallies(1, [1, 2, 3]), store.tallies(2, [1, 2, 3])
        assert dict(ladder[1].head_to_head) == {"2,2": (1, 1, 0, 0, 310, -40)}
        assert dict(ladder[2].head_to_head) == {"1,1": (1, 0, 0, 1, -40, 310)}
        assert dict(cup[1].head_to_head) == {"3,3": (1, 0, 1, 0, 55, 55)}
        assert dict(cup[3].head_to_head) == {"1,1": (1, 0, 1, 0, 55, 55)}
        assert schema_diff(store.database) == []
    finally:
        store.close()


def named(replay: dict[str, Any], seats: tuple[int, ...], labels: dict[int, str]) -> dict[str, Any]:
    """``replay`` with its players named by the labels of the versions at ``seats``."""
    players = [{**p, "name": labels[seats[p["seat"]]]} for p in replay["players"]]
    return {**replay, "players": players}


def rotated(seats: tuple[int, ...]) -> tuple[int, ...]:
    """The second game's seats: everyone one seat further clockwise (competition/pairs.py)."""
    return (seats[3], seats[0], seats[1], seats[2])


def test_a_pending_version_of_the_0004_schema_gets_its_validation_queued(db_url: str) -> None:
    """Upgraded from 0004 (the synchronous submit): a version it left pending (its game cut
    short) is queued for the workers' validation; an active one is not."""
    engine = create_engine(db_url)
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), "0004")
            connection.execute(text("INSERT INTO users (name, created_at) VALUES ('ann', 1.0)"))
            connection.execute(
                text("INSERT INTO bots (name, owner_id, created_at) VALUES ('b', 1, 1.0)")
            )
            for number, status in ((1, "active"), (2, "pending")):
                connection.execute(
                    text(
                        "INSERT INTO bot_versions (bot_id, number, content_hash, archive_path,"
                        " status, created_at) VALUES (1, :n, :h, 'code/x', :s, 2.0)"
                    ),
                    {"n": number, "h": f"hash{number}", "s": status},
                )
    finally:
        engine.dispose()
    store = open_store(db_url)
    try:
        assert schema_diff(store.database) == []
        _active, pending = store.versions("b")
        assert store.validation_statuses() == {pending.id: "queued"}
        claimed = store.claim_job("w")
        assert claimed is not None and (claimed.kind, claimed.id) == ("validation", pending.id)
    finally:
        store.close()


def test_look_alike_bots_of_the_0008_schema_are_reported_not_renamed(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Upgraded from 0008: each bot gets its name's key, oldest first; a bot that looks like
    an older one is logged and kept as it is, with no key; a new look-alike is refused."""
    engine = create_engine(db_url)
    names = ["heuristic", "Heuristic", "heurist\u0456c", "random"]  # the third: a Cyrillic i
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), "0008")
            connection.execute(text("INSERT INTO users (name, created_at) VALUES ('ann', 1.0)"))
            for name in names:
                connection.execute(
                    text("INSERT INTO bots (name, owner_id, created_at) VALUES (:n, 1, 1.0)"),
                    {"n": name},
                )
    finally:
        engine.dispose()
    with caplog.at_level(logging.WARNING, logger="arena.store"):
        store = open_store(db_url)
    try:
        assert schema_diff(store.database) == []
        assert [b.name for b in store.bots()] == sorted(names)  # nobody renamed
        keys = {b.name: b.name_key for b in store.bots()}
        assert keys == {
            "heuristic": "heuristic",
            "Heuristic": None,
            "heurist\u0456c": None,
            "random": "randorn",
        }
        warned = [r.getMessage() for r in caplog.records if r.event == "look_alike_bots"]  # type: ignore[attr-defined]
        assert warned == [
            "bot 'Heuristic' looks like the older bot 'heuristic': both kept,"
            " 'Heuristic' without a reserved name",
            "bot 'heurist\u0456c' looks like the older bot 'heuristic': both kept,"
            " 'heurist\u0456c' without a reserved name",
        ]
    finally:
        store.close()
