"""``arena ladder``: the standings, and the table every command prints them in."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from arena.read_model import LADDER, Standing
from arena.service.tls import ClientTls

from .app import app, cells
from .opening import ladder_for, print_table
from .options import PlaintextOption, ServerOption, TlsCaOption, TournamentOption


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
