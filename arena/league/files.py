"""The data directory's files: bot code and match records, content-addressed.

The database holds metadata and these paths (relative to ``$ARENA_HOME``). A file is
written under a temporary name and renamed into place, so a crash never leaves half a file
where a path points; the same content is stored once.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from arena.submission import content_hash


class DataDir:
    def __init__(self, home: Path) -> None:
        self.home = home

    def path(self, relpath: str) -> Path:
        return self.home / relpath

    def has_code(self, digest: str) -> bool:
        return self.path(f"code/{digest}").is_dir()

    def store_code(self, bot_dir: Path) -> tuple[str, str]:
        """Copy a checked bot directory in; returns its content hash and relative path."""
        digest = content_hash(bot_dir)
        relpath = f"code/{digest}"
        target = self.path(relpath)
        if not target.is_dir():
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=".incoming-", dir=target.parent))
            try:
                shutil.copytree(bot_dir, tmp / "bot", symlinks=True)
                try:
                    os.rename(tmp / "bot", target)
                except OSError:
                    if not target.is_dir():  # not merely stored meanwhile by someone else
                        raise
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        return digest, relpath

    def remove_code(self, relpath: str) -> None:
        shutil.rmtree(self.path(relpath), ignore_errors=True)

    def store_blob(self, data: bytes, suffix: str) -> str:
        digest = hashlib.sha256(data).hexdigest()
        relpath = f"blobs/{digest[:2]}/{digest}{suffix}"
        target = self.path(relpath)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".incoming-", dir=target.parent)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, target)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        return relpath

    def store_json(self, value: Any) -> str:
        return self.store_blob(json.dumps(value, indent=1).encode() + b"\n", ".json")

    def read_json(self, relpath: str) -> Any:
        return json.loads(self.path(relpath).read_text())
