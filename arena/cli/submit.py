"""``arena submit``: a bot version onto the ladder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.host.inert import inert
from arena.play.bot_specs import sample_bot
from arena.read_model import plural
from arena.service.tls import ClientTls

from .app import app, fail, out
from .opening import ladder_for, token_of
from .options import PlaintextOption, SandboxOption, ServerOption, TlsCaOption, TokenOption


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
        matches = plural(done.scheduled, "ladder match")
        out.print(f"{version.label}: active · {matches} scheduled", markup=False)
