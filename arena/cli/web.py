"""``arena web``: the ladder, bots, matches and replays in a browser; ``arena replay view``
and ``arena replay html``: a replay file in the same viewer (docs/web.md)."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated

import typer

from .app import app, check_writable, fail, out, replay_app, write_atomically

ListenOption = Annotated[str, typer.Option(help="HOST:PORT to listen on (port 0: any free one).")]


@app.command("web")
def web_command(
    listen: ListenOption = "127.0.0.1:8000",
    failed_sign_ins_per_hour: Annotated[
        int, typer.Option(help="Wrong tokens per address per hour; then its sign-ins are refused.")
    ] = 30,
) -> None:
    """Serve the ladder, the bots, the matches and a replay viewer over HTTP, read-only, on
    the store named by ARENA_DATABASE_URL (default: SQLite in $ARENA_HOME). Runs until
    SIGINT or SIGTERM (exit status 130 or 143: 128 + the signal, as a shell reports it)."""
    from arena.host.platform_logs import setup_logging
    from arena.league.api import StoreError
    from arena.league.opening import open_ladder  # the web's imports only when serving
    from arena.web import create_app
    from arena.web.server import serve, url_of

    try:
        # Its events on stderr as the server's and the workers' are: the web opens the
        # store too, and may be the process that migrates it (event schema_migrated).
        setup_logging()
    except ValueError as e:
        fail(str(e))
    if failed_sign_ins_per_hour < 1:
        fail("--failed-sign-ins-per-hour must be > 0")
    # The address first: one refused is one error line, and opens (or migrates) nothing.
    sock = _listening(listen)
    try:
        ladder = open_ladder()
    except StoreError as e:
        sock.close()
        fail(str(e))
    try:
        said = f"serving the arena at {url_of(sock)}"
        app = create_app(ladder, failed_sign_ins_per_hour=failed_sign_ins_per_hour)
        stopped_by = serve(app, sock, lambda: out.print(said, markup=False))
    finally:
        ladder.close()
    _exit_for(stopped_by)


def _exit_for(signal: int | None) -> None:
    """A server stopped by a signal exits 128 + its number, however the signal was sent
    (a terminal's Ctrl-C, kill, docker stop) and whatever the process inherited for it."""
    if signal is not None:
        raise typer.Exit(128 + signal)


def _listening(listen: str) -> socket.socket:
    from arena.web.server import bound_socket

    try:
        return bound_socket(listen)
    except ValueError as e:
        fail(str(e))
    except OSError as e:
        fail(f"cannot listen on {listen}: {e.strerror or e}")


ReplayFileArgument = Annotated[
    Path, typer.Argument(help="A replay JSON file (arena play --replay).", show_default=False)
]


@replay_app.command("view")
def replay_view(file: ReplayFileArgument, listen: ListenOption = "127.0.0.1:8000") -> None:
    """Show a replay file in the web viewer, served over HTTP until SIGINT or SIGTERM (the
    file is verified first)."""
    from arena.web.replay_file import ReplayFileError, create_file_app, read_replay
    from arena.web.server import serve, url_of

    try:
        replay = read_replay(file)
    except ReplayFileError as e:
        fail(str(e))
    sock = _listening(listen)
    said = f"serving {file.name} at {url_of(sock)}"
    _exit_for(serve(create_file_app(file, replay), sock, lambda: out.print(said, markup=False)))


@replay_app.command("html")
def replay_html(
    file: ReplayFileArgument,
    output: Annotated[
        Path, typer.Option("--output", "-o", help="The HTML file to write.", show_default=False)
    ],
) -> None:
    """Write a replay file's viewer as ONE self-contained HTML file: it opens in a browser
    with no server and no network (the file is verified first)."""
    from arena.web.replay_file import ReplayFileError, read_replay, standalone_html

    try:
        replay = read_replay(file)
    except ReplayFileError as e:
        fail(str(e))
    check_writable(output)
    try:
        write_atomically(output, standalone_html(file, replay))
    except OSError as e:
        fail(f"cannot write {output}: {e.strerror or e}")
    out.print(f"viewer written to {output}", markup=False)
