"""Migrations: an empty database reaches head, and the migrations agree with the models."""

from __future__ import annotations

import threading

from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from arena.store import Store, open_store
from arena.store.migrate import HEAD, current_revision, head_revision, schema_diff

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
