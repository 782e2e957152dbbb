"""blobs (code, replays, logs in the database) and workers

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 07:20:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "blobs",
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_blobs")),
    )
    op.create_table(
        "workers",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column("host", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("slots", sa.Integer(), nullable=False),
        sa.Column("sandbox", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("started_at", sa.Float(), nullable=False),
        sa.Column("heartbeat_at", sa.Float(), nullable=False),
        sa.Column("stopped_at", sa.Float(), nullable=True),
        sa.Column("matches_done", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_workers")),
    )


def downgrade() -> None:
    op.drop_table("workers")
    op.drop_table("blobs")
