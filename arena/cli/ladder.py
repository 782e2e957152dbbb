"""The ladder's commands: users, submissions, workers, tournaments, and what they produced.

They work on the store named by ``ARENA_DATABASE_URL`` (default: SQLite in ``$ARENA_HOME``)
and the files in ``$ARENA_HOME``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shlex
import signal
import socket
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Protocol, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from arena.bot_specs import SAMPLE_BOTS, sample_bot, sample_bot_names
from arena.engine.replay import ReplayError, verify_replay
from arena.inert import inert, inert_bytes
from arena.league.opening import open_ladder
from arena.limits import LADDER_PACE_MS, stored_limits
from arena.logs import setup_logging
from arena.read_model import (
    LADDER,
    SILENT_AFTER_S,
    MatchStatus,
    RatingModelName,
    ScheduleKind,
    Standing,
)
from arena.service.tls import ClientTls
from arena.submission import SubmissionError

from .app import app, bots_app, cells, err, fail, out, replay_app, sandbox_for
from .options import (
    PlaintextOption,
    SandboxOption,
    ServerOption,
    TlsCaOption,
    TokenOption,
    TournamentOption,
)

if TYPE_CHECKING:  # the rest is imported where it is used (see app.py)
    from arena.league.api import Ladder, LocalLadder
    from arena.sandbox import Sandbox
    from arena.store import Match, Store, Tournament

user_app = typer.Typer(no_args_is_help=True, help="Manage users.")
tournament_app = typer.Typer(no_args_is_help=True, help="One-off round-robin tournaments.")
app.add_typer(bots_app, name="bots")
app.add_typer(user_app, name="user")
secret_app = typer.Typer(no_args_is_help=True, help="The secret every match's deals come from.")
app.add_typer(secret_app, name="secret")
app.add_typer(tournament_app, name="tournament")

Errors = tuple[type[Exception], ...]


def local_errors() -> Errors:
    """What the local store, sandbox and ladder raise for input a person can act on."""
    from arena.competition import ScheduleError
    from arena.league.api import NoResult
    from arena.sandbox import SandboxError
    from arena.store import StoreError

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
    """The ladder (``open_ladder``) or store (``open_store``) ``open_it`` opens, closed
    after; every one of its ``errors()`` opening or using it as one ``error:`` line."""
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


def opened_store() -> contextlib.AbstractContextManager[Store]:
    """The store, with every store / sandbox / submission error as one ``error:`` line."""
    from arena.store import open_store

    return opened(open_store)


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
    sandbox: str | None = None, *, fallback: bool = True
) -> contextlib.AbstractContextManager[LocalLadder]:
    """The ladder on this machine's store; every error as one ``error:`` line."""
    chosen = functools.partial(sandbox_for, sandbox, fallback=fallback)
    return opened(lambda: open_ladder(sandbox=chosen))


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


# ---------------------------------------------------------------------- users and bots


@user_app.command("add")
def user_add(
    name: Annotated[str, typer.Argument(help="The new user's name.")],
    operator: Annotated[
        bool, typer.Option("--operator", help="May read every bot's logs and code.")
    ] = False,
) -> None:
    """Add a user and print their token (shown this once; only its hash is kept)."""
    with opened_store() as store:
        token = store.add_user(name, operator=operator)
    out.print(token, markup=False)
    err.print(f"user {name} added: keep the token above, it is not shown again", markup=False)


@secret_app.command("rotate")
def secret_rotate() -> None:
    """Replace the deal secret: matches scheduled from now on draw their seeds from a new
    one (those already scheduled keep theirs). For a secret that may have leaked."""
    with opened_store() as store:
        generation = store.rotate_deal_secret()
    out.print(f"deal secret rotated: generation {generation}", markup=False)


@app.command("submit")
def submit_command(
    bot: Annotated[
        str,
        typer.Argument(
            metavar="PATH",
            help="A bot directory, a .zip / .tar.gz of one, or a sample bot's name.",
        ),
    ],
    name: Annotated[
        str | None,
        typer.Option(
            help="The bot's name on the ladder (default: a sample bot's own).", show_default=False
        ),
    ] = None,
    token: TokenOption = None,
    sandbox: SandboxOption = None,
    server: ServerOption = None,
    tls_ca: TlsCaOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Submit a bot version: checked, validated in one game, then it joins the ladder.

    Here, the validation game is played at once; through --server, by the workers."""
    sample = sample_bot(bot)
    path = Path(bot) if sample is None else sample
    if name is None:
        if sample is None:
            fail("--name is needed: the bot's name on the ladder (only a sample bot has one)")
        name = bot
    secret = token_of(token)
    with ladder_for(server, sandbox, ClientTls(tls_ca, plaintext), fallback=False) as ladder:
        done = ladder.submit(secret, path, name)
    version = done.version
    if not done.new and version.status == "rejected":
        fail(inert(f"{version.label}: already submitted and rejected: {version.reason}"))
    elif version.status == "rejected":
        fail(inert(f"{version.label} rejected: {version.reason}"))
    elif version.status == "pending":  # through a server: the workers validate it
        again = "already submitted: " if not done.new else ""
        out.print(
            inert(
                f"{version.label}: {again}pending · its validation game is queued for the"
                " workers (arena bots shows when it is active or rejected)"
            ),
            markup=False,
        )
    elif not done.new:
        out.print(inert(f"{version.label}: already submitted ({version.status})"), markup=False)
    else:
        out.print(
            f"{version.label}: active · {done.scheduled} ladder matches scheduled", markup=False
        )


@bots_app.command("list")
def bots_command(
    as_json: Annotated[bool, typer.Option("--json", help="JSON: a list of objects.")] = False,
    server: ServerOption = None,
    tls_ca: TlsCaOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Every bot with its versions and their status."""
    with ladder_for(server, tls=ClientTls(tls_ca, plaintext)) as ladder:
        versions = ladder.versions()
    if as_json:
        print(json.dumps([v.as_json() for v in versions], indent=1))
        return
    table = Table("bot", "version", "status", "reason", "content")
    for v in versions:
        table.add_row(*cells(v.bot, str(v.number), v.status, v.reason, v.content_hash[:12]))
    print_table(table)
    for v in versions:
        if v.status == "rejected" and v.validation == "done":
            spec = f"{v.bot}@{v.number}"
            out.print(
                inert(
                    f"{v.label}'s validation game: arena replay --validation {spec}"
                    f" · arena logs --validation {spec}"
                ),
                markup=False,
            )


@bots_app.command("export")
def bots_export(
    version: Annotated[
        str, typer.Argument(metavar="NAME@V", help="A stored version (NAME: the active one).")
    ],
    output: Annotated[
        Path,
        typer.Option("--output", "-o", help="A new or empty directory to write its code into."),
    ],
    token: TokenOption = None,
    server: ServerOption = None,
    tls_ca: TlsCaOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Write a stored version's code into a directory (through a server: your own bots')."""
    from arena.league.api import cached_data
    from arena.league.compare import resolve_version
    from arena.league.stored_files import export_archive

    if server:
        secret = token_of(token)
        with ladder_for(server, tls=ClientTls(tls_ca, plaintext)) as ladder:
            code = ladder.code(secret, version)
            export_archive(code.archive, output)
        out.print(inert(f"{code.label} -> {output}"), markup=False)
        return
    with opened_store() as store:
        found = resolve_version(store, version)
        cached_data(store).export_code(found.archive_path, output)
    out.print(f"{store.bot_by_id(found.bot_id).name} v{found.number} -> {output}", markup=False)


# ---------------------------------------------------------------------- the ladder


@app.command("ladder")
def ladder_command(
    as_json: Annotated[
        bool, typer.Option("--json", help="JSON: a list of objects, every version, Elo included.")
    ] = False,
    show_all: Annotated[
        bool, typer.Option("--all", help="Retired versions too, with each one's status and Elo.")
    ] = False,
    tournament: TournamentOption = LADDER,
    server: ServerOption = None,
    tls_ca: TlsCaOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """The standings: the fit's rating with its 95% interval, the owner, W/D/L over pairs."""
    with ladder_for(server, tls=ClientTls(tls_ca, plaintext)) as ladder:
        rows = ladder.standings(tournament)
    if as_json:
        print(json.dumps([row.as_json() for row in rows], indent=1))
        return
    print_standings(rows, show_all=show_all, hide_retired=not show_all)


def print_standings(
    rows: list[Standing], *, show_all: bool = False, hide_retired: bool = False
) -> None:
    """One rating column (the model's, with its 95% interval) and the model's figures
    (Weng-Lin's mu, sigma and mu - 3 sigma); with ``show_all`` the status and the sequential
    Elo beside it. ``hide_retired``: the ladder's default, its live entries."""
    from arena.league.standings import DETAIL_LABELS, detail_keys

    shown = [row for row in rows if not (hide_retired and row.status == "retired")]
    hidden = len(rows) - len(shown)
    openskill = bool(rows) and rows[0].rating_model == "openskill"
    caption = (
        "rating: Weng-Lin's mu (openskill), with its 95% interval; mu-3sigma: conservative. "
        if openskill
        else "rating: maximum likelihood over all results, with its 95% interval. "
    ) + "A group: entries not yet told apart (LOS < 95%). W/D/L: duplicate pairs."
    if show_all and not openskill:
        caption += " Elo: sequential, in schedule order."
    if hidden:
        caption += f" {hidden} retired version{'s' * (hidden > 1)} hidden (--all shows them)."
    keys = detail_keys(rows, show_all=show_all)
    digits = 1 if openskill else 0
    columns = ["rank", "group", "bot", "version", "owner", "rating (95%)"]
    columns += ["status"] if show_all else []
    columns += [DETAIL_LABELS[k] for k in keys]
    table = Table(*columns, "pairs", "W/D/L", "mean diff", caption=caption)
    for row in shown:
        low, high = row.ci95
        rating = f"{row.rating:.{digits}f} ({low:.{digits}f}..{high:.{digits}f})"
        extra = [row.status] if show_all else []
        extra += [f"{row.details[k]:.{digits}f}" for k in keys]
        table.add_row(*cells(
            str(row.rank), str(row.group), row.bot, str(row.version), row.owner, rating, *extra,
            str(row.pairs), f"{row.wins}/{row.draws}/{row.losses}", f"{row.mean_diff:+.1f}",
        ))  # fmt: skip
    print_table(table)


@app.command("bot")
def bot_command(
    name: Annotated[str, typer.Argument(help="A bot's name on the ladder.")],
    as_json: Annotated[bool, typer.Option("--json", help="JSON: one object.")] = False,
    tournament: TournamentOption = LADDER,
    server: ServerOption = None,
    tls_ca: TlsCaOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """A bot's statistics over its played matches in the tournament, per version and in all:
    its versions' tallies, counted as each result was recorded (as the web's bot page)."""
    from arena.competition.statistics import Statistics
    from arena.render import statistics_lines

    with ladder_for(server, tls=ClientTls(tls_ca, plaintext)) as ladder:
        if not any(v.bot == name for v in ladder.versions()):
            fail(f"no bot {name!r} on this ladder (arena bots lists them)")
        found = ladder.bot_statistics(name, tournament)
    total = Statistics.from_record(found.all)
    versions = {label: Statistics.from_record(r) for label, r in found.versions.items()}
    if as_json:
        data = {
            "bot": name,
            "tournament": tournament,
            "all": total.to_dict(),
            "versions": {label: s.to_dict() for label, s in versions.items()},
        }
        print(json.dumps(data, indent=1))
        return
    if not versions:
        out.print(f"{name}: no played match in {tournament} yet", markup=False)
        return
    for line in statistics_lines(f"{name}, all versions", total):
        out.print(line, markup=False)
    for label, one in versions.items():
        for line in statistics_lines(label, one):
            out.print(line, markup=False)


@app.command("matches")
def matches_command(
    tournament: TournamentOption = LADDER,
    status: Annotated[
        MatchStatus | None, typer.Option(help="Only the matches in this status.")
    ] = None,
    bot: Annotated[
        str | None,
        typer.Option(metavar="NAME", help="Only the matches a version of this bot plays in."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON: a list of objects.")] = False,
    server: ServerOption = None,
    tls_ca: TlsCaOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """The tournament's matches in schedule order: team A (seats 0+2 of game 1) against B."""
    with ladder_for(server, tls=ClientTls(tls_ca, plaintext)) as ladder:
        rows = ladder.matches(tournament, status, bot)
    if as_json:
        print(json.dumps([m.as_json() for m in rows], indent=1))
        return
    table = Table("match", "index", "team A", "team B", "status", "points", "winner", "note")
    for m in rows:
        points = m.points
        score = (
            "" if points is None else f"team A {_signed(points[0])} · team B {_signed(points[1])}"
        )
        table.add_row(*cells(
            str(m.id), str(m.schedule_index), m.team_a, m.team_b, m.status, score,
            m.winner, m.note,
        ))  # fmt: skip
    print_table(table)


def _signed(n: int) -> str:
    return f"\u2212{-n}" if n < 0 else str(n)  # a true minus sign: "-" reads as a dash


ValidationOption = Annotated[
    str | None,
    typer.Option(
        "--validation",
        metavar="NAME@V",
        help="A bot version's validation game instead of a match's (see arena bots).",
        show_default=False,
    ),
]


def version_spec(spec: str) -> tuple[str, int]:
    """``NAME@V`` as (name, V); a bad one is an ``error:`` line."""
    name, _, number = spec.rpartition("@")
    if not name or not number.isdigit():
        fail(f"--validation takes NAME@V, a bot and its version number (mybot@2), got {spec!r}")
    return name, int(number)


@replay_app.command("show")
def replay_show(
    match_id: Annotated[
        int | None, typer.Argument(help="A match id (see arena matches).", show_default=False)
    ] = None,
    game: Annotated[int, typer.Option(help="Which game of the duplicate pair: 1 or 2.")] = 1,
    validation: ValidationOption = None,
    step: Annotated[bool, typer.Option("--step", help="Wait for Enter after each deal.")] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="The game's replay as stored (docs/replay.md).")
    ] = False,
    server: ServerOption = None,
    tls_ca: TlsCaOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Step through a played match's game (or a validation game) in the terminal."""
    from arena.render import deal_lines, forfeit_lines

    if (match_id is None) == (validation is None):
        fail("name a match (arena replay MATCH) or a version (arena replay --validation NAME@V)")
    if game not in (1, 2):
        fail(f"--game is 1 or 2, got {game}")
    spec = version_spec(validation) if validation is not None else None
    what = f"match {match_id}" if spec is None else f"{spec[0]} v{spec[1]}'s validation game"
    try:
        with ladder_for(server, tls=ClientTls(tls_ca, plaintext)) as ladder:
            if spec is not None:
                replay = ladder.validation_replay(*spec)
            else:
                assert match_id is not None
                replay = ladder.replay(match_id, game)
        if as_json:
            print(json.dumps(replay.to_dict(), indent=1))
            return
        state = verify_replay(replay.to_dict())
    except ReplayError as e:
        fail(f"{what}: the stored replay is broken: {e}")
    names = [f"{p.seat}:{p.name}" for p in replay.players]
    heading = f"match {match_id} · game {game}" if spec is None else what
    out.print(inert(f"{heading} · seed {replay.seed}"), markup=False)
    for record in state.deals:
        for line in deal_lines(record, names):
            out.print(line, markup=False)
        if step and sys.stdin.isatty():
            input()
    result = replay.result
    if (forfeit := result.forfeit) is not None:
        for line in forfeit_lines(forfeit, replay.players[forfeit.seat].name):
            out.print(line, markup=False)
    out.print(f"final: team 0 {result.totals[0]} · team 1 {result.totals[1]}", markup=False)


@app.command("logs")
def logs_command(
    match_id: Annotated[
        int | None, typer.Argument(help="A match id (see arena matches).", show_default=False)
    ] = None,
    bot: Annotated[
        str | None,
        typer.Argument(help="A bot's name, or a seat 0-3 of the first game.", show_default=False),
    ] = None,
    validation: ValidationOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="JSON: a list of objects, one per game and seat.")
    ] = False,
    token: TokenOption = None,
    server: ServerOption = None,
    tls_ca: TlsCaOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """A bot's captured output in both games of a match (or in its validation game, both of
    its seats): yours only (an operator's: any)."""
    if (validation is not None) == (match_id is not None) or (match_id is None) != (bot is None):
        fail("name a match and a bot (arena logs MATCH BOT) or a version (--validation NAME@V)")
    spec = version_spec(validation) if validation is not None else None
    secret = token_of(token)
    with ladder_for(server, tls=ClientTls(tls_ca, plaintext)) as ladder:
        if spec is not None:
            logs = ladder.validation_logs(secret, *spec)
        else:
            assert match_id is not None
            logs = ladder.logs(secret, match_id)
    if spec is not None:
        wanted = logs
    elif bot is not None and bot.isdigit() and int(bot) < 4:
        wanted = [log for log in logs if log.first_seat == int(bot)]
    else:
        wanted = [log for log in logs if log.label.rsplit(" v", 1)[0] == bot]
        if not wanted:
            names = sorted({log.label for log in logs})
            fail(f"match {match_id} has no bot {bot!r} whose logs you may read: {', '.join(names)}")
    if as_json:
        print(json.dumps([log.as_json() for log in wanted], indent=1))
        return
    for log in wanted:
        out.print(inert(f"== game {log.game}, seat {log.seat} ({log.label}) =="), markup=False)
        if sys.stdout.isatty():  # a terminal gets no control character; a pipe, every byte
            out.print(inert_bytes(log.output), markup=False, highlight=False, end="")
        else:
            sys.stdout.flush()
            sys.stdout.buffer.write(log.output)
            sys.stdout.buffer.flush()


# ---------------------------------------------------------------------- playing


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
    from arena.league.worker import Worker, WorkerConfig

    try:
        setup_logging()  # its events on stderr: $ARENA_LOG_FORMAT, $ARENA_LOG_LEVEL
    except ValueError as e:
        fail(str(e))
    if concurrency < 1:
        fail("--concurrency must be >= 1")
    config = WorkerConfig(concurrency, heartbeat, silent_after)
    with local_ladder() as ladder:
        tid = ladder.tournament(tournament).id if tournament else None
        backend = sandbox_for(sandbox, fallback=False)
        worker = Worker(ladder.store, ladder.data, backend, config, tournament_id=tid)
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
    from arena.league.worker import Worker, WorkerConfig

    tid = tournament.id if tournament is not None else None
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
        worker = Worker(
            ladder.store, ladder.data, sandbox, config, tournament_id=tid, listener=tell
        )
        worker.run(until_idle=True)


@tournament_app.command("create")
def tournament_create(
    name: Annotated[str, typer.Argument(help="The tournament's name.")],
    bots: Annotated[str, typer.Option(help="Comma-separated bot names (their active version).")],
    format: Annotated[str, typer.Option(help="pairs or mixed.")] = "pairs",
    games_per_pairing: Annotated[int, typer.Option(help="Duplicate pairs per pairing.")] = 1,
    seed: Annotated[int, typer.Option(help="Seeds every match's deals.")] = 0,
    rating: Annotated[
        str, typer.Option(help="elo (the fit, beside sequential Elo) or openskill (Weng-Lin).")
    ] = "elo",
    pace_ms: Annotated[
        int | None,
        typer.Option(
            help="The tables' pace in ms (0: none), as arena play's; default: the ladder's"
            f" ($ARENA_LADDER_PACE_MS, else {LADDER_PACE_MS}).",
            show_default=False,
        ),
    ] = None,
    schedule: Annotated[
        str,
        typer.Option(
            help="round-robin (every pairing) or adaptive (matches chosen by what they teach,"
            " queued a batch at a time as results come in)."
        ),
    ] = "round-robin",
) -> None:
    """Schedule a tournament among the named bots' active versions."""
    from arena.competition import FORMATS, RATING_MODELS, SCHEDULES

    if format not in FORMATS:
        fail(f"unknown format {format!r}: {' or '.join(FORMATS)}")
    if rating not in RATING_MODELS:
        fail(f"unknown rating model {rating!r}: {' or '.join(RATING_MODELS)}")
    if schedule not in SCHEDULES:
        fail(f"unknown schedule {schedule!r}: {' or '.join(SCHEDULES)}")
    try:
        stored_limits({} if pace_ms is None else {"pace_ms": pace_ms})
    except ValueError as e:
        fail(str(e))
    names = [b.strip() for b in bots.split(",") if b.strip()]
    with local_ladder() as ladder:
        _, count = ladder.create_tournament(
            name, names, format, games_per_pairing, seed, RatingModelName(rating),
            pace_ms=pace_ms, schedule=ScheduleKind(schedule),
        )  # fmt: skip
    more = " (more as results come in)" if schedule == "adaptive" else ""
    out.print(f"tournament {name}: {count} matches scheduled{more}", markup=False)


@tournament_app.command("schedule")
def tournament_schedule(
    name: Annotated[str, typer.Argument(help="The tournament's name (the ladder: ladder).")],
    schedule: Annotated[str, typer.Argument(help="round-robin or adaptive.")],
) -> None:
    """Change how a tournament chooses its next matches; those queued stay.

    The ladder is round-robin until set adaptive here (docs/operating.md)."""
    from arena.competition import SCHEDULES

    if schedule not in SCHEDULES:
        fail(f"unknown schedule {schedule!r}: {' or '.join(SCHEDULES)}")
    with local_ladder() as ladder:
        t, count = ladder.set_schedule(name, ScheduleKind(schedule))
    queued = f": {count} matches scheduled" if count else ""
    out.print(f"tournament {name}: schedule {t.schedule}{queued}", markup=False)


@tournament_app.command("run")
def tournament_run(
    name: Annotated[str, typer.Argument(help="The tournament's name.")],
    concurrency: Annotated[int, typer.Option(help="Matches played at once.")] = 1,
    sandbox: SandboxOption = None,
) -> None:
    """Play the tournament's matches here until none is left, then print the standings."""
    with local_ladder() as ladder:
        t = ladder.tournament(name)
        backend = sandbox_for(sandbox)
        try:
            run_with_progress(ladder, t, concurrency, backend)
        finally:
            backend.close()
        print_standings(ladder.standings(name))


@tournament_app.command("status")
def tournament_status(
    name: Annotated[str, typer.Argument(help="The tournament's name.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="JSON: {matches, standings}, as arena ladder --json.")
    ] = False,
) -> None:
    """How many matches are queued, running, done and failed; the standings so far."""
    with local_ladder() as ladder:
        t = ladder.tournament(name)
        assert t.id is not None
        counts = ladder.store.status_counts(t.id)
        if as_json:
            rows = [row.as_json() for row in ladder.standings(name)]
            matches = {s.value: counts[s] for s in MatchStatus}
            print(json.dumps({"matches": matches, "standings": rows}, indent=1))
            return
        shown = [s for s in MatchStatus if s != MatchStatus.CANCELLED or counts[s]]
        out.print(" · ".join(f"{s.value} {counts[s]}" for s in shown), markup=False)
        print_standings(ladder.standings(name))


@app.command("demo")
def demo(
    home: Annotated[
        Path | None, typer.Option(help="A new data directory (default: a fresh temporary one).")
    ] = None,
    bots: Annotated[
        str | None,
        typer.Option(
            metavar="NAMES",
            help="Comma-separated sample bots to submit (default: the Python ones; "
            "random_cpp and heuristic_go are built in the sandbox first).",
            show_default=False,
        ),
    ] = None,
    concurrency: Annotated[int, typer.Option(help="Matches played at once.")] = 2,
    sandbox: SandboxOption = None,
) -> None:
    """The whole platform in one go: sample bots submitted, played, the ladder printed.

    A fresh ladder, the sample bots submitted, a round-robin played in the sandbox; then the
    commands that look at it again, each naming the demo's data directory."""
    from arena.league.submit import submit
    from arena.league.validate import validate_until_settled

    samples = sample_bot_names()
    # The Python samples by default; the other languages' (built first) when named.
    python = [b for b in samples if (SAMPLE_BOTS / b / "bot.py").is_file()]
    chosen = python if bots is None else [b.strip() for b in bots.split(",") if b.strip()]
    unknown = [b for b in chosen if b not in samples]
    if unknown or not chosen:
        fail(f"--bots takes sample bots ({', '.join(samples)}), got {bots!r}")
    if home is None:
        home = Path(tempfile.mkdtemp(prefix="arena-demo-"))
    elif home.exists() and any(home.iterdir()):
        fail(f"--home {home} is not empty: the demo starts from a fresh data directory")
    home = home.resolve()
    caller_database = os.environ.get("ARENA_DATABASE_URL")
    os.environ["ARENA_HOME"] = str(home)
    os.environ["ARENA_DATABASE_URL"] = f"sqlite:///{home / 'arena.db'}"
    out.print(f"data directory: {home}", markup=False)
    with local_ladder() as ladder:
        store = ladder.store
        token = store.add_user("demo")
        backend = sandbox_for(sandbox)
        try:
            out.print(f"sandbox: {backend.name}", markup=False)
            for bot in chosen:
                queued = submit(store, token=token, path=SAMPLE_BOTS / bot, name=bot)
                assert queued.version.id is not None
                worker = f"{socket.gethostname()}:{os.getpid()}:demo"
                validated = validate_until_settled(
                    store, ladder.data, backend, queued.version.id, worker
                )
                done = validated.settled
                v = done.version
                out.print(
                    f"submitted {bot} v{v.number}: {v.status}"
                    + (f" · {done.scheduled} matches scheduled" if done.scheduled else ""),
                    markup=False,
                )
            run_with_progress(ladder, None, concurrency, backend)
        finally:
            backend.close()
        print_standings(ladder.standings(LADDER), hide_retired=True)
        tid = ladder.tournament(LADDER).id
        assert tid is not None
        played = store.matches(tid, MatchStatus.DONE)
    for line in next_commands(home, chosen[0], played[0].id if played else None):
        out.print(line, markup=False)
    if caller_database:
        out.print(
            "(ARENA_DATABASE_URL is set in your shell: unset it first, the demo's database is"
            " the SQLite file in its data directory)",
            markup=False,
        )


def next_commands(home: Path, bot: str, match_id: int | None) -> list[str]:
    """What to run next on the demo's data directory, each line a whole shell command."""
    where = f"ARENA_HOME={shlex.quote(str(home))}"
    commands = ["arena ladder", "arena matches", f"arena bot {bot}"]
    if match_id is not None:
        commands.append(f"arena replay {match_id}")
    commands.append("arena web")
    return [
        "next, on the demo's ladder (arena web: then open the address it prints):",
        *(f"  {where} {command}" for command in commands),
    ]
