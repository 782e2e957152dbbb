"""bots.name_key: each bot's name reserved against its look-alikes (issue 24)

Every bot gets its name's key (arena.store.names.name_key), oldest bot first. A bot whose
key an older bot already holds keeps its name and its versions, with no key: it is reported
(a warning naming both, event ``look_alike_bots``), never renamed. Such bots are listed by
``SELECT name FROM bots WHERE name_key IS NULL``.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03 07:50:00
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

from arena.store.names import name_key

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

log = logging.getLogger("arena.store")


def upgrade() -> None:
    with op.batch_alter_table("bots", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("name_key", sqlmodel.sql.sqltypes.AutoString(length=256), nullable=True)
        )
        batch_op.create_unique_constraint(batch_op.f("uq_bots_name_key"), ["name_key"])
    connection = op.get_bind()
    holders: dict[str, str] = {}
    for bot_id, name in connection.execute(sa.text("SELECT id, name FROM bots ORDER BY id")):
        key = name_key(name)
        if len(key) > 256:  # the column's length: a name NFKC makes very long keeps none
            log.warning(
                f"bot {name!r}: its name is too long once normalised to be reserved",
                extra={"event": "look_alike_bots", "bot": name, "older": None},
            )
            continue
        if key in holders:
            log.warning(
                f"bot {name!r} looks like the older bot {holders[key]!r}: both kept, "
                f"{name!r} without a reserved name",
                extra={"event": "look_alike_bots", "bot": name, "older": holders[key]},
            )
            continue
        holders[key] = name
        connection.execute(
            sa.text("UPDATE bots SET name_key = :key WHERE id = :id"), {"key": key, "id": bot_id}
        )


def downgrade() -> None:
    with op.batch_alter_table("bots", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_bots_name_key"), type_="unique")
        batch_op.drop_column("name_key")
