"""``arena server``: serve the ladder over gRPC (see protos/arena/service/v1/arena.proto)."""

from __future__ import annotations

import signal
import threading
from typing import Annotated

import typer

from .cli import SandboxOption, app, fail, sandbox_for
from .cli_ladder import data_dir, opened_store
from .league.api import LocalLadder
from .logs import setup_logging
from .service.server import serve
from .store import arena_home


@app.command("server")
def server_command(
    listen: Annotated[str, typer.Option(help="HOST:PORT to listen on.")] = "0.0.0.0:50051",
    sandbox: SandboxOption = None,
    grace: Annotated[float, typer.Option(help="On SIGTERM, let calls finish this long (s).")] = 30,
) -> None:
    """Serve the ladder's commands over gRPC, until SIGINT or SIGTERM.

    Submissions, the ladder, matches, replays, logs, status and comparisons, on the store
    named by ARENA_DATABASE_URL."""
    try:
        setup_logging()
    except ValueError as e:
        fail(str(e))
    with opened_store() as store:
        # A missing sandbox is said now, not at the first submit; no silent weaker one.
        sandbox_for(sandbox, fallback=False).close()
        ladder = LocalLadder(store, data_dir(store), lambda: sandbox_for(sandbox, fallback=False))
        try:
            server = serve(listen, ladder, arena_home() / "spool")
        except (RuntimeError, ValueError) as e:
            fail(f"cannot listen on {listen}: {e}")
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        stop.wait()
        server.stop(grace).wait()
