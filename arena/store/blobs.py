"""Content-addressed bytes in the database: bots' code, match replays and logs.

Keeping them beside the metadata means a worker on another machine needs nothing but the
database URL. A blob is written once (an existing key is left alone: same key, same bytes).
"""

from __future__ import annotations

import time

from sqlalchemy import func
from sqlmodel import Session, col, select

from .base import StoreBase
from .errors import NotFound
from .models import Blob


def put_blob(session: Session, key: str, data: bytes) -> None:
    """Within a transaction: store ``data`` under ``key`` unless it is there already."""
    if session.get(Blob, key) is None:
        session.add(Blob(key=key, size=len(data), data=data, created_at=time.time()))
        session.flush()


class Blobs(StoreBase):
    def put_blob(self, key: str, data: bytes) -> None:
        self._retrying(lambda session: put_blob(session, key, data))

    def blob(self, key: str) -> bytes:
        with self._session() as session:
            data = session.exec(select(Blob.data).where(Blob.key == key)).first()
        if data is None:
            raise NotFound(f"no stored file {key!r}")
        return data

    def has_blob(self, key: str) -> bool:
        with self._session() as session:
            return session.exec(select(func.count()).where(col(Blob.key) == key)).one() > 0
