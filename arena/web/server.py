"""Serving the web app with uvicorn on a socket bound first, so that ``--listen HOST:0``
can say which port it got before the first request."""

from __future__ import annotations

import socket

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


def serve(app: FastAPI, sock: socket.socket) -> None:
    """Serve ``app`` on ``sock`` until SIGINT or SIGTERM (uvicorn's own handlers)."""
    make_server(app).run(sockets=[sock])
