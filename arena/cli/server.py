"""``arena server``: serve the ladder over gRPC (see protos/arena/service/v1/arena.proto)."""

from __future__ import annotations

import logging
import os
import signal
import threading
from pathlib import Path
from typing import Annotated

import typer

from arena.host.home import arena_home
from arena.host.platform_logs import setup_logging
from arena.league.opening import open_ladder
from arena.service.quotas import ServiceLimits
from arena.service.tls import server_credentials

from .app import app, fail
from .opening import opened

D = ServiceLimits()  # the defaults, shown by --help
log = logging.getLogger("arena.server")


@app.command("server")
def server_command(
    listen: Annotated[
        str, typer.Option(help="HOST:PORT to listen on (0.0.0.0:PORT: every interface).")
    ] = "127.0.0.1:50051",
    tls_cert: Annotated[
        Path | None,
        typer.Option(help="The server's TLS certificate chain (PEM); with --tls-key."),
    ] = None,
    tls_key: Annotated[Path | None, typer.Option(help="Its private key (PEM).")] = None,
    grace: Annotated[
        float, typer.Option(help="On SIGTERM, let calls finish this long (s), then stop.")
    ] = 30,
    max_calls: Annotated[int, typer.Option(help="Calls in progress, all callers.")] = D.max_calls,
    max_calls_per_user: Annotated[
        int, typer.Option(help="Calls in progress per user (or address).")
    ] = D.max_calls_per_user,
    max_uploads: Annotated[
        int, typer.Option(help="Uploads in progress, all users.")
    ] = D.max_uploads,
    max_uploads_per_user: Annotated[
        int, typer.Option(help="Uploads in progress per user.")
    ] = D.max_uploads_per_user,
    upload_idle_s: Annotated[
        float, typer.Option(help="Refuse an upload silent this long (s).")
    ] = D.upload_idle_s,
    upload_total_s: Annotated[
        float, typer.Option(help="Refuse an upload taking longer (s).")
    ] = D.upload_total_s,
    submits_per_hour: Annotated[
        int, typer.Option(help="Submissions per user per hour.")
    ] = D.submits_per_hour,
    compares_per_hour: Annotated[
        int, typer.Option(help="Comparisons per user per hour.")
    ] = D.compares_per_hour,
    max_batch: Annotated[
        int, typer.Option(help="A comparison's pairs queued ahead, at most.")
    ] = D.max_batch,
    max_pairs: Annotated[int, typer.Option(help="A comparison's pairs, at most.")] = D.max_pairs,
    tokens_per_hour: Annotated[
        int, typer.Option(help="Tokens a user may create per hour.")
    ] = D.tokens_per_hour,
    failed_auths_per_hour: Annotated[
        int, typer.Option(help="Wrong tokens per address per hour; then its calls are refused.")
    ] = D.failed_auths_per_hour,
) -> None:
    """Serve the ladder's commands over gRPC, until SIGINT or SIGTERM.

    Submissions, the ladder, matches, replays, logs, status and comparisons, on the store
    named by ARENA_DATABASE_URL. It plays no game (a submission's validation game is the
    workers'), so it needs neither a sandbox nor a Docker engine."""
    from arena.service.server import serve

    try:
        setup_logging()
        limits = ServiceLimits(
            max_calls=max_calls, max_calls_per_user=max_calls_per_user,
            max_uploads=max_uploads, max_uploads_per_user=max_uploads_per_user,
            upload_idle_s=upload_idle_s, upload_total_s=upload_total_s,
            submits_per_hour=submits_per_hour, compares_per_hour=compares_per_hour,
            max_batch=max_batch, max_pairs=max_pairs, tokens_per_hour=tokens_per_hour,
            failed_auths_per_hour=failed_auths_per_hour,
        )  # fmt: skip
    except ValueError as e:
        fail(str(e))
    if (tls_cert is None) != (tls_key is None):
        fail("--tls-cert and --tls-key go together")
    try:
        credentials = server_credentials(tls_cert, tls_key) if tls_cert and tls_key else None
    except ValueError as e:
        fail(str(e))
    with opened(open_ladder) as ladder:  # no sandbox: it plays no game
        try:
            server = serve(
                listen, ladder, arena_home() / "spool", limits=limits, credentials=credentials
            )
        except (RuntimeError, ValueError) as e:
            fail(f"cannot listen on {listen}: {e}")
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        stop.wait()
        # After the grace gRPC cancels what is still in flight; a call that cannot notice
        # (a comparison waiting on the store) must not keep the process alive past it.
        if not server.stop(grace):
            log.warning("calls still running after the grace: exiting", extra={"event": "killed"})
            logging.shutdown()
            os._exit(0)
