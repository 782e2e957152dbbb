"""Opening the ladder a command works on, a server's or this machine's, with each failure
one ``error:`` line; the token a command sends; a table printed at a useful width."""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from rich.console import Console
from rich.table import Table

from arena.bots.submission import SubmissionError
from arena.league.opening import open_ladder
from arena.service.tls import ClientTls

from .app import fail, out, sandbox_for

if TYPE_CHECKING:  # the rest is imported where it is used (see app.py)
    from arena.league.api import Ladder, LocalLadder


Errors = tuple[type[Exception], ...]


def local_errors() -> Errors:
    """What the local store, sandbox and ladder raise for input a person can act on."""
    from arena.competition import ScheduleError
    from arena.league.api import NoResult, StoreError
    from arena.sandbox import SandboxError

    return (StoreError, SubmissionError, SandboxError, ScheduleError, NoResult, ValueError)


def remote_errors() -> Errors:
    """What a server's ladder raises: its one-line errors, an archive's, a TLS file's."""
    from arena.service.client import RemoteError

    return (RemoteError, SubmissionError, ValueError)


class _Closes(Protocol):
    def close(self) -> None: ...


C = TypeVar("C", bound=_Closes)


@contextlib.contextmanager
def opened(open_it: Callable[[], C], errors: Callable[[], Errors] = local_errors) -> Iterator[C]:
    """The ladder (``open_ladder``) ``open_it`` opens, closed after; every one of its
    ``errors()`` opening or using it as one ``error:`` line."""
    caught = errors()
    try:
        it = open_it()
    except caught as e:
        fail(str(e))
    try:
        yield it
    except caught as e:
        fail(str(e))
    finally:
        it.close()


PLAINTEXT_OFF = ClientTls()  # TLS, trusting the system's roots


def ladder_for(
    server: str | None,
    sandbox: str | None = None,
    tls: ClientTls = PLAINTEXT_OFF,
    *,
    fallback: bool = True,
) -> contextlib.AbstractContextManager[Ladder]:
    """The ladder on ``server`` (host:port, over ``tls``), else the local store (its sandbox
    as ``sandbox_for`` chooses it); every error as one ``error:`` line."""
    if server:
        return opened(lambda: open_ladder(server=server, tls=tls), remote_errors)
    return local_ladder(sandbox, fallback=fallback)


def local_ladder(
    sandbox: str | None = None,
    *,
    fallback: bool = True,
    url: str | None = None,
    home: Path | None = None,
) -> contextlib.AbstractContextManager[LocalLadder]:
    """The ladder on this machine's store (``url`` and ``home``: another one than
    ``ARENA_DATABASE_URL``'s and ``$ARENA_HOME``'s); every error as one ``error:`` line."""
    chosen = functools.partial(sandbox_for, sandbox, fallback=fallback)
    return opened(lambda: open_ladder(url, sandbox=chosen, home=home))


NO_TOKEN = (
    "no token: pass --token or set ARENA_TOKEN (the arena's operator makes your first one:"
    " arena user add NAME; then arena token create makes more)"
)


def token_of(token: str | None) -> str:
    token = token or os.environ.get("ARENA_TOKEN")
    if not token:
        fail(NO_TOKEN)
    return token


def print_table(table: Table) -> None:
    """A table at the terminal's width; piped, at least 140 columns (not rich's 80, which
    would wrap its cells; ``print(width=...)`` can only narrow a console)."""
    if out.is_terminal:
        out.print(table)
    else:
        Console(highlight=False, width=max(out.width, 140)).print(table)
