"""The options several commands share, each defined once: where bots run, and which ladder
(``--server`` with its ``--tls-ca`` and ``--plaintext``, ``--token``, ``--tournament``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

# The sandbox's backends, arena.sandbox.KINDS (tests/architecture/test_light_imports.py checks
# they agree), spelled out here: every command's --help shows them, and loads no sandbox.
SANDBOX_KINDS = ("docker", "process", "none")


def _complete_sandbox(incomplete: str) -> list[str]:
    return [kind for kind in SANDBOX_KINDS if kind.startswith(incomplete)]


# The choices as the metavar, not a typer choice: open_sandbox's error names them too.
SandboxOption = Annotated[
    str | None,
    typer.Option(
        metavar="[" + "|".join(SANDBOX_KINDS) + "]",
        autocompletion=_complete_sandbox,
        help="Where bots run (default: docker if an engine answers, else process).",
    ),
]

TokenOption = Annotated[
    str | None, typer.Option(help="Your token (default: $ARENA_TOKEN).", show_default=False)
]
TournamentOption = Annotated[str, typer.Option(help="Tournament name.")]
ServerOption = Annotated[
    str | None,
    typer.Option(
        envvar="ARENA_SERVER",
        help="An arena server's HOST:PORT (default: $ARENA_SERVER; none: the local store).",
        show_default=False,
    ),
]
TlsCaOption = Annotated[
    Path | None,
    typer.Option(
        envvar="ARENA_TLS_CA",
        help="With --server: the CA that signed its certificate (default: $ARENA_TLS_CA, "
        "else the system's roots).",
        show_default=False,
    ),
]
PlaintextOption = Annotated[
    bool,
    typer.Option(
        "--plaintext",
        envvar="ARENA_PLAINTEXT",
        help="With --server: no TLS (a server on loopback, or on a network you trust).",
    ),
]

# --json, for a command that prints rows (a list) or one document (an object).
JsonListOption = Annotated[bool, typer.Option("--json", help="JSON: a list of objects.")]
JsonObjectOption = Annotated[bool, typer.Option("--json", help="JSON: one object.")]
