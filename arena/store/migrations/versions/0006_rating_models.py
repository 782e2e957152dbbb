"""rating models: model-neutral rating columns, and each tournament's rating model

The ratings' ``elo`` becomes ``value`` and the history's ``elo_before``/``elo_after`` become
``value_before``/``value_after``, beside a ``deviation`` (Weng-Lin's sigma; NULL for Elo);
every tournament made before rates by Elo, as it did. Renamed, not copied: no rating is
lost, and none is recomputed.

Revision ID: 0006
Revises: 0004
Create Date: 2026-12-02 01:50:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "rating_model",
                sqlmodel.sql.sqltypes.AutoString(length=16),
                nullable=False,
                server_default="elo",
            )
        )
    with op.batch_alter_table("ratings", schema=None) as batch_op:
        batch_op.alter_column("elo", new_column_name="value", existing_type=sa.Float())
        batch_op.add_column(sa.Column("deviation", sa.Float(), nullable=True))
    with op.batch_alter_table("rating_history", schema=None) as batch_op:
        batch_op.alter_column(
            "elo_before", new_column_name="value_before", existing_type=sa.Float()
        )
        batch_op.alter_column("elo_after", new_column_name="value_after", existing_type=sa.Float())
        batch_op.add_column(sa.Column("deviation_before", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("deviation_after", sa.Float(), nullable=True))


def downgrade() -> None:
    # Lossy for a Weng-Lin tournament: its deviations go, and its means would read as Elo.
    with op.batch_alter_table("rating_history", schema=None) as batch_op:
        batch_op.drop_column("deviation_after")
        batch_op.drop_column("deviation_before")
        batch_op.alter_column("value_after", new_column_name="elo_after", existing_type=sa.Float())
        batch_op.alter_column(
            "value_before", new_column_name="elo_before", existing_type=sa.Float()
        )
    with op.batch_alter_table("ratings", schema=None) as batch_op:
        batch_op.drop_column("deviation")
        batch_op.alter_column("value", new_column_name="elo", existing_type=sa.Float())
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_column("rating_model")
