"""Alembic's environment: migrates the connection handed over by ``arena.store.migrate``."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

from arena.store import models  # noqa: F401  (registers the tables)


def run() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("migrate through arena.store.migrate, which passes a connection")
    context.configure(
        connection=connection,
        target_metadata=SQLModel.metadata,
        render_as_batch=True,  # SQLite alters a table by copying it
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if getattr(context, "config", None) is not None:  # run by alembic, not merely imported
    run()
