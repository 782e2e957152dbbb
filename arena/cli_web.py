"""``arena web``: the ladder, bots, matches and replays in a browser (docs/web.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from .cli import app, fail, out


@app.command("web")
def web_command(
    listen: Annotated[
        str, typer.Option(help="HOST:PORT to listen on (port 0: any free one).")
    ] = "127.0.0.1:8000",
) -> None:
    """Serve the ladder, the bots, the matches and a replay viewer over HTTP, read-only, on
    the store named by ARENA_DATABASE_URL (default: SQLite in $ARENA_HOME). Runs until
    SIGINT or SIGTERM."""
    from .league.api import open_ladder  # the web's imports only when serving
    from .store import StoreError
    from .web import create_app
    from .web.server import bound_socket, serve, url_of

    try:
        ladder = open_ladder()
    except StoreError as e:
        fail(str(e))
    try:
        try:
            sock = bound_socket(listen)
        except ValueError as e:
            fail(str(e))
        except OSError as e:
            fail(f"cannot listen on {listen}: {e.strerror or e}")
        out.print(f"serving the arena at {url_of(sock)}", markup=False)
        serve(create_app(ladder), sock)
    finally:
        ladder.store.close()
