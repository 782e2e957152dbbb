"""``arena status``: the queue, the matches being played, the workers and when each was last
heard from, and the ladder's broken invariants; ``arena doctor``: those alone, mended with
``--repair``."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from arena.host.inert import inert
from arena.read_model import SILENT_AFTER_S, MatchStatus, Problem, Status
from arena.service.tls import ClientTls

from .app import app, cells, fail, out
from .opening import ladder_for, local_ladder, print_table
from .options import JsonObjectOption, PlaintextOption, ServerOption, TlsCaOption

ALWAYS_SHOWN = (MatchStatus.QUEUED, MatchStatus.RUNNING, MatchStatus.DONE, MatchStatus.ERROR)


@app.command("status")
def status_command(
    as_json: JsonObjectOption = False,
    silent_after: Annotated[
        float, typer.Option(help="A worker not heard from for this long (s) is silent.")
    ] = SILENT_AFTER_S,
    server: ServerOption = None,
    tls_ca: TlsCaOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Queue depth, running matches, workers and their last heartbeat."""
    if silent_after <= 0:
        fail(f"--silent-after must be > 0, got {silent_after:g}")
    with ladder_for(server, tls=ClientTls(tls_ca, plaintext)) as ladder:
        now = ladder.status(silent_after)
    if as_json:
        print(json.dumps(now.as_json(), indent=1))
        return
    print_status(now)


def print_status(now: Status) -> None:
    """A summary line, the running matches, the workers; times measured from ``now.now``."""
    counts = " · ".join(
        f"{s.value} {now.total(s)}" for s in MatchStatus if s in ALWAYS_SHOWN or now.total(s)
    )
    out.print(f"{counts} · workers up {now.workers_up}", markup=False)
    print_problems(now.problems)

    running = Table(
        "match", "tournament", "index", "teams", "worker", "running for", "last heartbeat",
        title="running matches",
    )  # fmt: skip
    for m in now.running:
        running.add_row(*cells(
            str(m.id), m.tournament, str(m.index), " vs ".join(m.teams), m.worker_id or "",
            _since(now.now, m.started_at), _ago(now.now, m.heartbeat_at),
        ))  # fmt: skip
    print_table(running)

    workers = Table(
        "worker", "host", "slots", "sandbox", "state", "matches done", "last heartbeat",
        title="workers",
    )  # fmt: skip
    for w in now.workers:
        workers.add_row(*cells(
            w.name, w.host, str(w.slots), w.sandbox, w.state, str(w.matches_done),
            _ago(now.now, w.heartbeat_at),
        ))  # fmt: skip
    print_table(workers)


@app.command("doctor")
def doctor_command(
    repair_: Annotated[
        bool, typer.Option("--repair", help="Mend what can be mended, then check again.")
    ] = False,
    silent_after: Annotated[
        float, typer.Option(help="A running match not heard from for this long (s) is silent.")
    ] = SILENT_AFTER_S,
) -> None:
    """Check the ladder's invariants in this machine's database (ARENA_DATABASE_URL); exit
    status 1 if any is broken (after --repair: still broken)."""
    if silent_after <= 0:
        fail(f"--silent-after must be > 0, got {silent_after:g}")
    with local_ladder() as ladder:
        if repair_:
            for line in ladder.repair(silent_after):
                out.print(f"repaired: {inert(line)}", markup=False)
        found = ladder.problems(silent_after)
    print_problems(found)
    if found:
        raise typer.Exit(1)


def print_problems(found: tuple[Problem, ...] | list[Problem]) -> None:
    """``invariants: ok``, or one line per broken invariant."""
    if not found:
        out.print("invariants: ok", markup=False)
    for problem in found:
        mend = " (arena doctor --repair mends it)" if problem.repairable else ""
        out.print(f"broken: {problem.kind}: {inert(problem.detail)}{mend}", markup=False)


def _ago(now: float, then: float | None) -> str:
    return "" if then is None else f"{duration(now - then)} ago"


def _since(now: float, then: float | None) -> str:
    return "" if then is None else duration(now - then)


def duration(seconds: float) -> str:
    """``42s``, ``3m 05s``, ``2h 07m``, ``3d 04h``.

    >>> [duration(s) for s in (0.4, 59.6, 185, 7620, 273600, -2)]
    ['0s', '1m 00s', '3m 05s', '2h 07m', '3d 04h', '0s']
    """
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h {s % 3600 // 60:02d}m"
    return f"{s // 86400}d {s % 86400 // 3600:02d}h"
