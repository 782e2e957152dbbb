"""Migrations: an empty database reaches head, and the migrations agree with the models."""

from __future__ import annotations

import threading

from alembic import command
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

from arena.store import Store, open_store
from arena.store.migrate import (
    HEAD,
    alembic_config,
    current_revision,
    head_revision,
    schema_diff,
)
from arena.store.tokens import token_hash

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
    "validations",
}


def test_an_empty_database_is_migrated_to_head(store: Store) -> None:
    assert head_revision() == HEAD  # opening a store trusts HEAD to skip loading alembic
    with store.engine.connect() as connection:
        assert current_revision(connection) == HEAD
        assert MigrationContext.configure(connection).get_current_revision() == HEAD
        assert set(inspect(connection).get_table_names()) == TABLES


def test_autogenerate_finds_nothing_to_migrate(store: Store) -> None:
    assert schema_diff(store.engine) == []


def test_reopening_keeps_the_data(db_url: str) -> None:
    first = open_store(db_url)
    token = first.add_user("ann")
    first.close()
    again = open_store(db_url)
    try:
        assert again.authenticate(token).name == "ann"
    finally:
        again.close()


def test_workers_opening_a_fresh_database_at_once_migrate_it_once(db_url: str) -> None:
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
    store = open_store(db_url)
    try:
        assert schema_diff(store.engine) == []
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
        assert schema_diff(store.engine) == []
    finally:
        store.close()


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
        assert schema_diff(store.engine) == []
        _active, pending = store.versions("b")
        assert store.validation_statuses() == {pending.id: "queued"}
        claimed = store.claim_validation("w")
        assert claimed is not None and claimed.version_id == pending.id
    finally:
        store.close()
