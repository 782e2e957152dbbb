"""``arena token list|create|revoke``: a user's own tokens, locally or through a server."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Annotated

import typer
from rich.table import Table

from arena.service.tls import ClientTls

from .app import app, err, fail, out
from .opening import ladder_for, print_table, token_of
from .options import JsonListOption, PlaintextOption, ServerOption, TlsCaOption, TokenOption

token_app = typer.Typer(no_args_is_help=True, help="Your tokens: list, create, revoke.")
app.add_typer(token_app, name="token")


def _when(seconds: float | None) -> str:
    if seconds is None:
        return "never"
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")


@token_app.command("list")
def token_list(
    as_json: JsonListOption = False,
    token: TokenOption = None,
    server: ServerOption = None,
    tls_ca: TlsCaOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Your tokens: their names, when made, when they expire (never the tokens)."""
    secret = token_of(token)
    with ladder_for(server, tls=ClientTls(tls_ca, plaintext)) as ladder:
        rows = ladder.tokens(secret)
    if as_json:
        print(json.dumps([row.as_json() for row in rows], indent=1))
        return
    table = Table("name", "created", "expires")
    for row in rows:
        table.add_row(row.name, _when(row.created_at), _when(row.expires_at))
    print_table(table)


@token_app.command("create")
def token_create(
    name: Annotated[str, typer.Argument(help="A name for the new token (e.g. laptop).")],
    expires_in_days: Annotated[
        float | None, typer.Option(help="Expire after this many days (default: never).")
    ] = None,
    token: TokenOption = None,
    server: ServerOption = None,
    tls_ca: TlsCaOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Make a new token for yourself and print it (shown this once; only its hash is kept)."""
    if expires_in_days is not None and not expires_in_days > 0:
        fail(f"--expires-in-days must be > 0, got {expires_in_days:g}")
    secret = token_of(token)
    expires_at = time.time() + expires_in_days * 86400 if expires_in_days else None
    with ladder_for(server, tls=ClientTls(tls_ca, plaintext)) as ladder:
        made = ladder.create_token(secret, name, expires_at)
    out.print(made, markup=False)
    err.print(f"token {name} made: keep it, it is not shown again", markup=False)


@token_app.command("revoke")
def token_revoke(
    name: Annotated[str, typer.Argument(help="The token's name (see arena token list).")],
    user: Annotated[str | None, typer.Option(help="Another user's token (operators only).")] = None,
    token: TokenOption = None,
    server: ServerOption = None,
    tls_ca: TlsCaOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Revoke a token: it stops working at once."""
    secret = token_of(token)
    with ladder_for(server, tls=ClientTls(tls_ca, plaintext)) as ladder:
        ladder.revoke_token(secret, name, user)
    out.print(f"token {name}{f' of {user}' if user else ''} revoked", markup=False)
