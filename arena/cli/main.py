"""The arena CLI whole: every command group imported (each registers its commands on
``arena.cli.app.app`` as it loads), and ``main``, what the console script runs.

Kept apart from ``arena.cli.app`` so that the command modules, which import the shared app
and helpers from there, are not imported back by it: no module of the CLI imports in a circle.
"""

from __future__ import annotations

import sys

import typer
from typer._click.exceptions import ClickException

from .app import app, err

# The command groups, in the order --help lists their commands (each registers as it loads).
# isort: off
from . import check_bot, submit, standings, bots, matches, worker, demo  # noqa: F401
from . import admin, tournament, compare, server, status, tokens, web  # noqa: F401
# isort: on


def main() -> None:
    """What the console script runs (``arena/__main__.py``, once the CLI is loaded): like
    ``app()``, but a usage error is one line, exit status 2."""
    try:
        code = app(standalone_mode=False)
    except ClickException as e:
        if type(e).__name__ != "NoArgsIsHelpError":  # that one has printed the help already
            err.print(f"error: {e.format_message()}", markup=False)
        code = e.exit_code
    except typer.Abort:
        err.print("aborted", markup=False)
        code = 1
    sys.exit(code if isinstance(code, int) else 0)
