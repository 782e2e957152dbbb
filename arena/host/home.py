"""The data directory: ``$ARENA_HOME``, else ``~/.arena``."""

from __future__ import annotations

import os
from pathlib import Path


def arena_home() -> Path:
    """Where the platform keeps its files: the SQLite database, bot code, replays and logs,
    and the bot image's build cache."""
    home = os.environ.get("ARENA_HOME")
    return Path(home).expanduser() if home else Path.home() / ".arena"
