"""version_tallies: each version's running statistics and head-to-head (backfilled from the
done matches and their replays by 0010); an index for one version's rating history in order

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02 01:50:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "version_tallies",
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("statistics", sa.JSON(), nullable=False),
        sa.Column("head_to_head", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["version_id"],
            ["bot_versions.id"],
            name=op.f("fk_version_tallies_version_id_bot_versions"),
        ),
        sa.PrimaryKeyConstraint("version_id", name=op.f("pk_version_tallies")),
    )
    with op.batch_alter_table("rating_history", schema=None) as batch_op:
        batch_op.create_index(
            "ix_rating_history_version_order",
            ["tournament_id", "version_id", "schedule_index"],
            unique=False,
        )
    # The results recorded before this revision are counted by 0010, by tournament: the
    # counting code is today's, which writes today's table.


def downgrade() -> None:
    with op.batch_alter_table("rating_history", schema=None) as batch_op:
        batch_op.drop_index("ix_rating_history_version_order")
    op.drop_table("version_tallies")
