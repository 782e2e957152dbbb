"""deal_secrets: the deployment's secret that match seeds are drawn from

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03 08:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Empty: the first scheduling after the upgrade makes the secret. Matches already
    # queued keep the seeds they were stored with (from the public schedule of old).
    op.create_table(
        "deal_secrets",
        sa.Column("generation", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("secret", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("generation", name=op.f("pk_deal_secrets")),
    )


def downgrade() -> None:
    op.drop_table("deal_secrets")
