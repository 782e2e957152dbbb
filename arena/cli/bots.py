"""The bots: their versions (``arena bots``), a version's code (``arena bots export``), a
bot's statistics (``arena bot``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from arena.host.inert import inert
from arena.read_model import LADDER
from arena.service.tls import ClientTls

from .app import app, bots_app, cells, fail, out
from .opening import ladder_for, local_ladder, print_table, token_of
from .options import (
    JsonListOption,
    JsonObjectOption,
    PlaintextOption,
    ServerOption,
    TlsCaOption,
    TokenOption,
    TournamentOption,
)

app.add_typer(bots_app, name="bots")


@bots_app.command("list")
def bots_command(
    as_json: JsonListOption = False,
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
    from arena.league.stored_files import export_archive

    if server:
        secret = token_of(token)
        with ladder_for(server, tls=ClientTls(tls_ca, plaintext)) as ladder:
            code = ladder.code(secret, version)
            export_archive(code.archive, output)
        out.print(inert(f"{code.label} -> {output}"), markup=False)
        return
    with local_ladder() as ladder:
        label = ladder.export_code(version, output)
    out.print(inert(f"{label} -> {output}"), markup=False)


@app.command("bot")
def bot_command(
    name: Annotated[str, typer.Argument(help="A bot's name on the ladder.")],
    as_json: JsonObjectOption = False,
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
