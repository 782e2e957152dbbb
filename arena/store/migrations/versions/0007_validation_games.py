"""validations: each version's validation game, queued for the workers and kept

Revision ID: 0007
Revises: 0004
Create Date: 2026-12-02 01:50:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "validations",
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("lease", sa.Integer(), nullable=False),
        sa.Column("worker_id", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=True),
        sa.Column("heartbeat_at", sa.Float(), nullable=True),
        sa.Column("queued_at", sa.Float(), nullable=False),
        sa.Column("finished_at", sa.Float(), nullable=True),
        sa.Column("last_error", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("replay_path", sqlmodel.sql.sqltypes.AutoString(length=512), nullable=True),
        sa.Column("logs_path", sqlmodel.sql.sqltypes.AutoString(length=512), nullable=True),
        sa.ForeignKeyConstraint(
            ["version_id"], ["bot_versions.id"], name=op.f("fk_validations_version_id_bot_versions")
        ),
        sa.PrimaryKeyConstraint("version_id", name=op.f("pk_validations")),
    )
    with op.batch_alter_table("validations", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_validations_status"), ["status"], unique=False)
    # A version left pending by the old synchronous submit (its game never finished) gets
    # its validation game queued now, so that a worker settles it.
    op.execute(
        "INSERT INTO validations (version_id, status, attempts, lease, queued_at)"
        " SELECT id, 'queued', 0, 0, created_at FROM bot_versions WHERE status = 'pending'"
    )


def downgrade() -> None:
    with op.batch_alter_table("validations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_validations_status"))
    op.drop_table("validations")
