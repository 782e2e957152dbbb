"""The operator's commands on this machine's ladder: users, and the deal secret."""

from __future__ import annotations

from typing import Annotated

import typer

from .app import app, err, out
from .opening import local_ladder

user_app = typer.Typer(no_args_is_help=True, help="Manage users.")
app.add_typer(user_app, name="user")
secret_app = typer.Typer(no_args_is_help=True, help="The secret every match's deals come from.")
app.add_typer(secret_app, name="secret")


@user_app.command("add")
def user_add(
    name: Annotated[str, typer.Argument(help="The new user's name.")],
    operator: Annotated[
        bool, typer.Option("--operator", help="May read every bot's logs and code.")
    ] = False,
) -> None:
    """Add a user and print their token (shown this once; only its hash is kept)."""
    with local_ladder() as ladder:
        token = ladder.add_user(name, operator=operator)
    out.print(token, markup=False)
    err.print(f"user {name} added: keep the token above, it is not shown again", markup=False)


@secret_app.command("rotate")
def secret_rotate() -> None:
    """Replace the deal secret: matches scheduled from now on draw their seeds from a new
    one (those already scheduled keep theirs). For a secret that may have leaked."""
    with local_ladder() as ladder:
        generation = ladder.rotate_deal_secret()
    out.print(f"deal secret rotated: generation {generation}", markup=False)
