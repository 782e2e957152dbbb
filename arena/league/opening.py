"""Opening a ladder, for every front end: a server's (``RemoteLadder``, over gRPC) or this
machine's store's (``LocalLadder``). Each is imported only when opened, so that a remote
read loads neither the store (SQLAlchemy) nor the sandbox (Docker), and a local one no gRPC
(``tests/architecture/test_light_imports.py``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, overload

if TYPE_CHECKING:
    from arena.sandbox import Sandbox
    from arena.service.tls import ClientTls

    from .api import Ladder, LocalLadder


@overload
def open_ladder(
    url: str | None = None,
    *,
    server: None = None,
    tls: ClientTls | None = None,
    sandbox: Callable[[], Sandbox] | None = None,
    home: Path | None = None,
) -> LocalLadder: ...
@overload
def open_ladder(
    url: str | None = None,
    *,
    server: str | None,
    tls: ClientTls | None = None,
    sandbox: Callable[[], Sandbox] | None = None,
    home: Path | None = None,
) -> Ladder: ...
def open_ladder(
    url: str | None = None,
    *,
    server: str | None = None,
    tls: ClientTls | None = None,
    sandbox: Callable[[], Sandbox] | None = None,
    home: Path | None = None,
) -> Ladder:
    """The one way to open a ladder, for every front end. With ``server`` (HOST:PORT), the
    ladder it serves, over ``tls`` (default: TLS, trusting the system's roots);
    ``ValueError`` if a TLS file cannot be read. Else the ladder on this machine's store at
    ``url`` (default: ``ARENA_DATABASE_URL``, else SQLite in ``$ARENA_HOME``), its bot code
    cached under ``$ARENA_HOME``: a submission's validation game is played at once in
    ``sandbox()`` when given (``arena submit``), else queued for the workers (``arena
    server``, the web); ``StoreError`` if the store cannot be opened. ``home``: another data
    directory than ``$ARENA_HOME`` for the code's cache (``arena demo``'s, with its ``url``).
    The caller closes it.
    ``$ARENA_SERVER`` is the CLI's default for ``--server``, not read here: the web and the
    server always serve their own store."""
    if server:
        from arena.service.client import RemoteLadder
        from arena.service.tls import ClientTls

        return RemoteLadder(server, tls or ClientTls())
    from arena.store import open_store

    from .api import LocalLadder, cached_data

    store = open_store(url)
    return LocalLadder(store, cached_data(store, home), sandbox)
