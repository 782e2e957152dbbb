"""One job queue, and tallies by tournament (issue 25)

validations.started_at: a validation game is a job as a match is, with the same queue
columns (``arena.store.jobs``); a running one's start is taken to be its last heartbeat.

version_tallies keyed by (tournament, version): each version's tallies were counted over
every tournament at once; the rows are counted again from the done matches and their
replays, each in its own tournament (``arena.store.tallies.rebuild``).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from arena.store import tallies

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("validations", schema=None) as batch_op:
        batch_op.add_column(sa.Column("started_at", sa.Float(), nullable=True))
    op.execute("UPDATE validations SET started_at = heartbeat_at WHERE status = 'running'")
    op.drop_table("version_tallies")
    _tallies_table("tournament_id", "version_id")
    tallies.rebuild(op.get_bind())


def downgrade() -> None:
    op.drop_table("version_tallies")
    _tallies_table("version_id")  # empty: 0005's backfill counted what 0010 now counts
    with op.batch_alter_table("validations", schema=None) as batch_op:
        batch_op.drop_column("started_at")


def _tallies_table(*key: str) -> None:
    columns = [sa.Column(name, sa.Integer(), nullable=False) for name in key]
    references = {"tournament_id": "tournaments", "version_id": "bot_versions"}
    op.create_table(
        "version_tallies",
        *columns,
        sa.Column("statistics", sa.JSON(), nullable=False),
        sa.Column("head_to_head", sa.JSON(), nullable=False),
        *(
            sa.ForeignKeyConstraint(
                [name],
                [f"{references[name]}.id"],
                name=op.f(f"fk_version_tallies_{name}_{references[name]}"),
            )
            for name in key
        ),
        sa.PrimaryKeyConstraint(*key, name=op.f("pk_version_tallies")),
    )
