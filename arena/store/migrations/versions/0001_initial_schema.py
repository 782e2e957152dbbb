"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-30 03:57:44.351807
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("format", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("games_per_pairing", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("limits", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
        sa.UniqueConstraint("name", name=op.f("uq_tournaments_name")),
    )
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("name", name=op.f("uq_users_name")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_users_token_hash")),
    )
    op.create_table(
        "bots",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["owner_id"], ["users.id"], name=op.f("fk_bots_owner_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bots")),
        sa.UniqueConstraint("name", name=op.f("uq_bots_name")),
    )
    with op.batch_alter_table("bots", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_bots_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "bot_versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("content_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("archive_path", sqlmodel.sql.sqltypes.AutoString(length=512), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("reason", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], name=op.f("fk_bot_versions_bot_id_bots")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bot_versions")),
        sa.UniqueConstraint("bot_id", "content_hash", name="uq_bot_versions_bot_content"),
        sa.UniqueConstraint("bot_id", "number", name="uq_bot_versions_bot_number"),
    )
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_bot_versions_bot_id"), ["bot_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_bot_versions_status"), ["status"], unique=False)

    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("schedule_index", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("seat0", sa.Integer(), nullable=False),
        sa.Column("seat1", sa.Integer(), nullable=False),
        sa.Column("seat2", sa.Integer(), nullable=False),
        sa.Column("seat3", sa.Integer(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("lease", sa.Integer(), nullable=False),
        sa.Column("worker_id", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=True),
        sa.Column("heartbeat_at", sa.Float(), nullable=True),
        sa.Column("started_at", sa.Float(), nullable=True),
        sa.Column("finished_at", sa.Float(), nullable=True),
        sa.Column("last_error", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("game1_team0", sa.Integer(), nullable=True),
        sa.Column("game1_team1", sa.Integer(), nullable=True),
        sa.Column("game2_team0", sa.Integer(), nullable=True),
        sa.Column("game2_team1", sa.Integer(), nullable=True),
        sa.Column("points_team0", sa.Integer(), nullable=True),
        sa.Column("points_team1", sa.Integer(), nullable=True),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("forfeit_game", sa.Integer(), nullable=True),
        sa.Column("forfeit_seat", sa.Integer(), nullable=True),
        sa.Column("forfeit_reason", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("forfeit_detail", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("replay_path", sqlmodel.sql.sqltypes.AutoString(length=512), nullable=True),
        sa.Column("logs_path", sqlmodel.sql.sqltypes.AutoString(length=512), nullable=True),
        sa.ForeignKeyConstraint(
            ["seat0"], ["bot_versions.id"], name=op.f("fk_matches_seat0_bot_versions")
        ),
        sa.ForeignKeyConstraint(
            ["seat1"], ["bot_versions.id"], name=op.f("fk_matches_seat1_bot_versions")
        ),
        sa.ForeignKeyConstraint(
            ["seat2"], ["bot_versions.id"], name=op.f("fk_matches_seat2_bot_versions")
        ),
        sa.ForeignKeyConstraint(
            ["seat3"], ["bot_versions.id"], name=op.f("fk_matches_seat3_bot_versions")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournaments.id"], name=op.f("fk_matches_tournament_id_tournaments")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
        sa.UniqueConstraint("tournament_id", "schedule_index", name="uq_matches_tournament_index"),
    )
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_matches_seat0"), ["seat0"], unique=False)
        batch_op.create_index(batch_op.f("ix_matches_seat1"), ["seat1"], unique=False)
        batch_op.create_index(batch_op.f("ix_matches_seat2"), ["seat2"], unique=False)
        batch_op.create_index(batch_op.f("ix_matches_seat3"), ["seat3"], unique=False)
        batch_op.create_index(
            "ix_matches_status_order", ["status", "tournament_id", "schedule_index"], unique=False
        )

    op.create_table(
        "ratings",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("elo", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("through_index", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournaments.id"], name=op.f("fk_ratings_tournament_id_tournaments")
        ),
        sa.ForeignKeyConstraint(
            ["version_id"], ["bot_versions.id"], name=op.f("fk_ratings_version_id_bot_versions")
        ),
        sa.PrimaryKeyConstraint("tournament_id", "version_id", name=op.f("pk_ratings")),
    )
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("schedule_index", sa.Integer(), nullable=False),
        sa.Column("elo_before", sa.Float(), nullable=False),
        sa.Column("elo_after", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_rating_history_match_id_matches")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_rating_history_tournament_id_tournaments"),
        ),
        sa.ForeignKeyConstraint(
            ["version_id"],
            ["bot_versions.id"],
            name=op.f("fk_rating_history_version_id_bot_versions"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_history")),
        sa.UniqueConstraint("match_id", "version_id", name="uq_rating_history_match_version"),
    )
    with op.batch_alter_table("rating_history", schema=None) as batch_op:
        batch_op.create_index(
            "ix_rating_history_order", ["tournament_id", "schedule_index"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_rating_history_version_id"), ["version_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("rating_history", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_rating_history_version_id"))
        batch_op.drop_index("ix_rating_history_order")

    op.drop_table("rating_history")
    op.drop_table("ratings")
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_index("ix_matches_status_order")
        batch_op.drop_index(batch_op.f("ix_matches_seat3"))
        batch_op.drop_index(batch_op.f("ix_matches_seat2"))
        batch_op.drop_index(batch_op.f("ix_matches_seat1"))
        batch_op.drop_index(batch_op.f("ix_matches_seat0"))

    op.drop_table("matches")
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bot_versions_status"))
        batch_op.drop_index(batch_op.f("ix_bot_versions_bot_id"))

    op.drop_table("bot_versions")
    with op.batch_alter_table("bots", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bots_owner_id"))

    op.drop_table("bots")
    op.drop_table("users")
    op.drop_table("tournaments")
