"""Bot code, replays and logs: kept as blobs in the database, code unpacked into a local cache.

Blob keys are content-addressed: ``code/<content hash>`` for a bot's code (the .tar.gz that
``submission.pack`` makes), ``built/<content hash>`` for its build's product if it has one
(``bot.toml``), ``blobs/<sha256>.json`` / ``.log`` for a match's records. Workers unpack code
once per machine under ``<cache>/code/<hash>``, renamed into place whole.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.bots import submission
from arena.engine.replay import Replay
from arena.store import Store


class StoredFiles:
    """A ladder's files in its database: bots' code (unpacked on first use into ``cache``, a
    local directory), matches' replays and logs."""

    def __init__(self, store: Store, cache: Path) -> None:
        self.store = store
        self.cache = cache

    def has_code(self, digest: str) -> bool:
        return self.store.has_blob(code_key(digest))

    def code_dir(self, key: str) -> Path:
        """The bot directory to run for a stored code key, unpacked here on first use: its
        build's product (``store_built``) if its code has a build step."""
        built = built_key(key)
        return self.source_dir(built if self.store.has_blob(built) else key)

    def has_built(self, key: str) -> bool:
        return self.store.has_blob(built_key(key))

    def store_built(self, key: str, product: bytes) -> None:
        """Keep the build product of the code ``key`` (``submission.pack`` of the built
        directory), content-addressed as the code is."""
        self.store.put_blob(built_key(key), product)

    def source_dir(self, key: str) -> Path:
        """The bot directory for a stored key, as stored, unpacked here on first use."""
        target = self.cache / key
        if not target.is_dir():
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=".incoming-", dir=target.parent))
            try:
                archive = tmp / "code.tar.gz"
                archive.write_bytes(self.store.blob(key))
                bot = submission.unpack(archive, tmp / "unpacked")
                try:
                    os.rename(bot, target)
                except OSError:
                    if not target.is_dir():  # not merely unpacked meanwhile by another slot
                        raise
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        return target

    def export_code(self, key: str, dest: Path) -> None:
        """Write a stored version's code into ``dest`` (see ``export_archive``)."""
        export_archive(self.store.blob(key), dest)

    def store_blob(self, data: bytes, suffix: str) -> str:
        key = f"blobs/{hashlib.sha256(data).hexdigest()}{suffix}"
        self.store.put_blob(key, data)
        return key

    def store_json(self, value: Any) -> str:
        # Compact: json's C encoder (an indent falls back to the pure-Python one, which took
        # a quarter of a worker's CPU per match); `arena replay` is how people read them.
        return self.store_blob(json.dumps(value, separators=(",", ":")).encode(), ".json")

    def store_replays(self, replays: Sequence[Replay]) -> str:
        """A match's replays, one record; its key."""
        return self.store_json({"games": [r.to_dict() for r in replays]})

    def read_replays(self, key: str) -> list[Replay]:
        """A match's replays, as ``store_replays`` kept them."""
        return [Replay.from_dict(r) for r in self.read_json(key)["games"]]

    def read_blob(self, key: str) -> bytes:
        return self.store.blob(key)

    def read_json(self, key: str) -> Any:
        return json.loads(self.read_blob(key))


def export_archive(archive: bytes, dest: Path) -> None:
    """Unpack a stored version's archive into ``dest``, a new or empty directory, with a
    submission's checks (a server's bytes are trusted no more than an upload): whole, or
    (on any failure) not at all."""
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ValueError(f"{dest} exists and is not an empty directory: nothing written")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    try:
        (tmp / "code.tar.gz").write_bytes(archive)
        bot = submission.unpack(tmp / "code.tar.gz", tmp / "unpacked")
        if dest.exists():
            dest.rmdir()  # empty, as checked: the rename below needs it gone
        os.rename(bot, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def code_key(digest: str) -> str:
    return f"code/{digest}"


def built_key(key: str) -> str:
    """Where the build product of the code ``code/<hash>`` is kept: ``built/<hash>``."""
    return "built/" + key.removeprefix("code/")
