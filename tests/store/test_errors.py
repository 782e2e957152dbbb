"""A database that doesn't answer: one line, the password masked."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from arena.store import StoreError, Unavailable, database_url, open_store


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_postgres_on_a_closed_port() -> None:
    url = f"postgresql://arena:s3cret@127.0.0.1:{closed_port()}/arena_test"
    with pytest.raises(Unavailable) as raised:
        open_store(url)
    message = str(raised.value)
    assert "\n" not in message
    assert "s3cret" not in message
    assert message.startswith("database postgresql://arena:***@127.0.0.1:")
    assert "does not answer" in message


def test_sqlite_in_a_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(Unavailable, match="no directory") as raised:
        open_store(f"sqlite:///{tmp_path}/missing/arena.db")
    assert "\n" not in str(raised.value)
    assert not (tmp_path / "missing").exists()


def test_not_a_database_url() -> None:
    with pytest.raises(StoreError, match=r"^not a database URL"):
        open_store("nonsense")
    with pytest.raises(StoreError, match="only sqlite:// and postgresql://"):
        open_store("mysql://u:p@localhost/db")


def test_the_default_database_is_a_file_in_arena_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARENA_DATABASE_URL", raising=False)
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    assert database_url() == f"sqlite:///{tmp_path}/home/arena.db"
    store = open_store()
    store.close()
    assert (tmp_path / "home" / "arena.db").is_file()
    monkeypatch.setenv("ARENA_DATABASE_URL", "postgresql://u@h/d")
    assert database_url() == "postgresql://u@h/d"
