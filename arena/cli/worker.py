"""``arena worker``: play queued matches; and the progress bar of a run played here."""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from arena.host.platform_logs import setup_logging
from arena.read_model import SILENT_AFTER_S

from .app import app, err, fail, sandbox_for
from .opening import local_ladder
from .options import SandboxOption

if TYPE_CHECKING:  # the rest is imported where it is used (see app.py)
    from arena.league.api import LocalLadder, Match, Tournament
    from arena.sandbox import Sandbox


@app.command("worker")
def worker_command(
    concurrency: Annotated[int, typer.Option(help="Matches played at once.")] = 1,
    tournament: Annotated[
        str | None, typer.Option(help="Only this tournament (default: all).")
    ] = None,
    until_idle: Annotated[
        bool, typer.Option("--until-idle", help="Stop when nothing is queued or running.")
    ] = False,
    sandbox: SandboxOption = None,
    silent_after: Annotated[
        float, typer.Option(help="Requeue a running match silent this long (s).")
    ] = SILENT_AFTER_S,
    heartbeat: Annotated[float, typer.Option(help="Heartbeat period (s).")] = 5.0,
) -> None:
    """Claim queued matches and play them until stopped.

    On SIGINT or SIGTERM the matches in hand are finished and recorded first."""
    from arena.league.worker import WorkerConfig

    try:
        setup_logging()  # its events on stderr: $ARENA_LOG_FORMAT, $ARENA_LOG_LEVEL
    except ValueError as e:
        fail(str(e))
    if concurrency < 1:
        fail("--concurrency must be >= 1")
    config = WorkerConfig(concurrency, heartbeat, silent_after)
    with local_ladder() as ladder:
        only = ladder.tournament(tournament) if tournament else None
        backend = sandbox_for(sandbox, fallback=False)
        worker = ladder.worker(backend, config, tournament=only)
        # A flag, not KeyboardInterrupt: an exception raised in the middle of Thread.join
        # can leave the slot threads running unjoined while the interpreter shuts down.
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: worker.stopping.set())
        try:
            worker.run(until_idle=until_idle)
        finally:
            backend.close()


def run_with_progress(
    ladder: LocalLadder, tournament: Tournament | None, concurrency: int, sandbox: Sandbox
) -> None:
    """Play until nothing is left, with a progress bar over the queued and running matches."""
    from arena.league.worker import WorkerConfig

    left = ladder.unfinished(tournament)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeElapsedColumn(), console=err) as progress:
        task = progress.add_task("matches", total=left)

        def tell(event: str, match: Match) -> None:
            if event == "done":
                progress.advance(task)
                # An adaptive schedule queues more as results come in.
                done = progress.tasks[0].completed
                progress.update(task, total=done + ladder.unfinished(tournament))

        config = WorkerConfig(concurrency=concurrency)
        worker = ladder.worker(sandbox, config, tournament=tournament, listener=tell)
        worker.run(until_idle=True)
