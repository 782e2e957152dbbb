"""tournaments.schedule: round-robin (every tournament made before) or adaptive (issue 27)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03 11:50:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "schedule",
                sqlmodel.sql.sqltypes.AutoString(length=16),
                nullable=False,
                server_default="round-robin",
            )
        )


def downgrade() -> None:
    # An adaptive tournament reads as round-robin after it: nothing more is queued for it.
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_column("schedule")
