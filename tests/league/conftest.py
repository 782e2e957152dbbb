"""Each test gets a fresh data directory (``ARENA_HOME``) and a fresh database: a SQLite file
in that directory, and (marked ``postgres``) a schema of its own in the PostgreSQL that
``.ci/postgres`` starts (skipped when none answers, a failure under ``CI=true``).

``Arena`` runs the real ``arena`` console script against them, and reads back what the
commands wrote: every row of every table, and every file under ``ARENA_HOME``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlmodel import SQLModel

from arena.bots.submission import content_hash, pack
from arena.league.stored_files import code_key
from arena.league.submit import settle
from arena.store import Store, open_store
from tests.cli.runner import run_arena
from tests.store.conftest import postgres_schema_url

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"
TOKEN = re.compile(r"[A-Za-z0-9_-]{40,}")


@dataclass
class Arena:
    home: Path  # ARENA_HOME
    url: str  # ARENA_DATABASE_URL
    tmp: Path  # TMPDIR of the commands: whatever they leave there is a leak

    def env(self) -> dict[str, str]:
        return {
            "ARENA_HOME": str(self.home),
            "ARENA_DATABASE_URL": self.url,
            "ARENA_TOKEN": "",
            "TMPDIR": str(self.tmp),
        }

    def run(
        self, *args: object, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``arena ARGS...`` on this data directory and database."""
        return run_arena(*args, env=self.env() | (env or {}))

    def ok(self, *args: object) -> subprocess.CompletedProcess[str]:
        """``arena ARGS...``, which must succeed."""
        result = self.run(*args)
        assert result.returncode == 0, f"arena {args}: {result.returncode}\n{result.stderr}"
        return result

    def user(self, name: str) -> str:
        """``arena user add NAME``: the token it printed."""
        result = self.ok("user", "add", name)
        token = result.stdout.strip()
        assert TOKEN.fullmatch(token), result.stdout
        return token

    def submit(
        self, path: Path, name: str, token: str, *more: object
    ) -> subprocess.CompletedProcess[str]:
        return self.run("submit", path, "--name", name, "--token", token, *more)

    def seed(self, token: str, name: str, bot_dir: Path) -> int:
        """An active version of the token's user's bot, as a passed submission leaves it (its
        code stored, its ladder matches scheduled), without playing its validation game."""
        with self.store() as store:
            user = store.authenticate(token)
            digest = content_hash(bot_dir)
            version = store.add_version(user, name, digest, code_key(digest), pack(bot_dir))
            version_id = version.id
            assert version_id is not None
            settle(store, version_id, None)
            return version_id

    @contextmanager
    def store(self) -> Iterator[Store]:
        opened = open_store(self.url)
        try:
            yield opened
        finally:
            opened.close()

    def rows(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every table of the store, by table, in primary-key order."""
        with self.store() as store, store.database.connect() as connection:
            return {
                table.name: [
                    tuple(row)
                    for row in connection.execute(
                        select(table).order_by(*table.primary_key.columns)
                    )
                ]
                for table in SQLModel.metadata.sorted_tables
            }

    def files(self) -> set[str]:
        """Every file and directory under ARENA_HOME but the SQLite database's own."""
        return {
            p.relative_to(self.home).as_posix()
            for p in self.home.rglob("*")
            if not p.name.startswith("arena.db")
        }

    def leftovers(self) -> list[str]:
        """What the commands left in their TMPDIR."""
        return sorted(p.name for p in self.tmp.iterdir())


def make_arena(tmp_path: Path, url: str | None = None) -> Arena:
    home = tmp_path / "home"
    home.mkdir()
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    return Arena(home, url or f"sqlite:///{home / 'arena.db'}", tmp)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def arena(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Arena]:
    """A fresh ARENA_HOME, and a fresh database: SQLite in it, or a PostgreSQL schema."""
    if request.param == "sqlite":
        yield make_arena(tmp_path)
    else:
        for url in postgres_schema_url():
            yield make_arena(tmp_path, url)


@pytest.fixture
def sqlite_arena(tmp_path: Path) -> Arena:
    """A fresh ARENA_HOME with its SQLite database (for what doesn't depend on the store)."""
    return make_arena(tmp_path)


def bot_copy(sample: str, dest: Path, note: str = "") -> Path:
    """A copy of a sample bot; ``note`` (a comment added to bot.py) makes it new code."""
    shutil.copytree(SAMPLE_BOTS / sample, dest, ignore=shutil.ignore_patterns("__pycache__"))
    if note:
        with (dest / "bot.py").open("a") as f:
            f.write(f"# {note}\n")
    return dest


def table_rows(text: str) -> list[list[str]]:
    """The cells of a rich table's body lines."""
    return [
        [cell.strip() for cell in line.strip("│").split("│")]
        for line in text.splitlines()
        if line.startswith("│")
    ]
