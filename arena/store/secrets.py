"""The deployment's deal secret: made at first use, rotated by an operator, never shown.

Two databases made apart hold different secrets, so they deal different cards; within one,
the secret and a tournament's id and seed decide its match seeds (``league/seed_keys.py``),
which are stored with each match when it is scheduled.
"""

from __future__ import annotations

import secrets
import time

from sqlmodel import Session, col, select

from .base import StoreBase
from .models import DealSecret

SECRET_BYTES = 32


class DealSecrets(StoreBase):
    def deal_secret(self) -> bytes:
        """The secret in use, made now if this database has none (a race makes one)."""
        with self._session() as session:
            newest = _newest(session)
        if newest is not None:
            return newest.secret
        return self._retrying(lambda session: _add_generation(session, only_if_none=True))

    def rotate_deal_secret(self) -> int:
        """A new secret for every match scheduled from now on; its generation number."""

        def rotate(session: Session) -> int:
            _add_generation(session, only_if_none=False)
            newest = _newest(session)
            assert newest is not None
            return newest.generation

        return self._retrying(rotate)


def _newest(session: Session) -> DealSecret | None:
    query = select(DealSecret).order_by(col(DealSecret.generation).desc()).limit(1)
    return session.exec(query).first()


def _add_generation(session: Session, *, only_if_none: bool) -> bytes:
    # A concurrent first use or rotation inserts the same generation: the primary key refuses
    # one of them, and ``_retrying`` reads again.
    newest = _newest(session)
    if newest is not None and only_if_none:
        return newest.secret
    generation = 1 if newest is None else newest.generation + 1
    row = DealSecret(
        generation=generation, secret=secrets.token_bytes(SECRET_BYTES), created_at=time.time()
    )
    session.add(row)
    session.flush()
    return row.secret
