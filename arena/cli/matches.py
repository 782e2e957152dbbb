"""What the matches produced: the schedule and results (``arena matches``), a game's replay
(``arena replay``) and the bots' logs (``arena logs``), a validation game's too."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.table import Table

from arena.engine.replay import ReplayError, verify_replay
from arena.host.inert import inert, inert_bytes
from arena.read_model import LADDER, MatchStatus, parse_version, version_label
from arena.service.tls import ClientTls

from .app import app, cells, fail, out, replay_app
from .opening import ladder_for, print_table, token_of
from .options import (
    JsonListOption,
    PlaintextOption,
    ServerOption,
    TlsCaOption,
    TokenOption,
    TournamentOption,
)


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
    as_json: JsonListOption = False,
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
    """``NAME@V`` as (name, V) (``parse_version``); a bad one is an ``error:`` line."""
    name, number = parse_version(spec)
    if number is None:
        fail(f"--validation takes NAME@V, a bot and its version number (mybot@2), got {spec!r}")
    return name, number


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
    what = f"match {match_id}" if spec is None else f"{version_label(*spec)}'s validation game"
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
