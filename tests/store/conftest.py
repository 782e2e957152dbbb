"""Each test gets a fresh database: a SQLite file, and (marked ``postgres``) a schema of its
own in the PostgreSQL that ``.ci/postgres`` starts, dropped afterwards.

PostgreSQL is found through ``ARENA_TEST_POSTGRES_URL``; when it doesn't answer, its tests
are skipped, except under CI (``CI=true``), where that is a failure.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, exc, text
from sqlalchemy.engine import make_url

from arena.store import Store, open_store

DEFAULT_POSTGRES_URL = "postgresql+psycopg://arena:arena@127.0.0.1:5432/arena_test"
POSTGRES_URL = os.environ.get("ARENA_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL)


def postgres_schema_url() -> Iterator[str]:
    """A URL whose connections see only a new, empty schema; the schema is dropped after."""
    admin = create_engine(POSTGRES_URL, connect_args={"connect_timeout": 5})
    schema = f"test_{uuid.uuid4().hex[:12]}"
    try:
        with admin.begin() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    except exc.OperationalError as e:
        admin.dispose()
        why = str(e.orig).strip().splitlines()[0]
        message = (
            f"PostgreSQL at {make_url(POSTGRES_URL)!r} does not answer ({why}): run .ci/postgres"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    url = make_url(POSTGRES_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'arena.db'}"
    else:
        yield from postgres_schema_url()


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    opened = open_store(db_url)
    try:
        yield opened
    finally:
        opened.close()
