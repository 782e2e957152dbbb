"""Serving the web app with uvicorn on a socket bound first, so that ``--listen HOST:0``
can say which port it got before the first request."""

from __future__ import annotations

import signal
import socket
from collections.abc import Callable

import uvicorn
from fastapi import FastAPI


def bound_socket(listen: str) -> socket.socket:
    """A listening TCP socket on ``HOST:PORT`` (port 0: any free one); ValueError if the
    address is malformed, OSError if it can't be had."""
    host, sep, port = listen.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--listen {listen!r}: expected HOST:PORT, e.g. 127.0.0.1:8000")
    host = host.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, int(port)))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def make_server(app: FastAPI) -> uvicorn.Server:
    """A server for ``app`` whose ``run(sockets=[...])`` serves until ``should_exit``."""
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    return uvicorn.Server(config)


STOPPING = (signal.SIGINT, signal.SIGTERM)


def serve(
    app: FastAPI, sock: socket.socket, ready: Callable[[], None] = lambda: None
) -> int | None:
    """Serve ``app`` on ``sock`` until SIGINT or SIGTERM; the signal that stopped it.
    ``ready()`` is called (to say where it serves) once either would stop it.

    Whatever the process inherited for them: a shell's background job starts with SIGINT
    ignored, and Python's own handler would turn it into KeyboardInterrupt. uvicorn handles
    both while it serves, then raises the one it got again under the handler it found: this
    one, which notes it (and stops a server not yet serving)."""
    server = make_server(app)
    stopped_by: list[int] = []

    def stop(sig: int, _: object) -> None:
        stopped_by.append(sig)
        server.should_exit = True

    previous = {sig: signal.signal(sig, stop) for sig in STOPPING}
    try:
        ready()
        server.run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return stopped_by[0] if stopped_by else None
