"""The ``arena`` command line: parse, call one function, print."""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console

# Typer vendors click; its exception base is not re-exported (pinned in pyproject.toml).
from typer._click.exceptions import ClickException

from .engine import Rules, RulesError
from .engine.replay import ReplayError, build_replay, verify_replay
from .players import UnknownPlayerError, make_player
from .referee import run_game
from .render import deal_lines

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Back Alley Arena.")
replay_app = typer.Typer(no_args_is_help=True, help="Work with replay files.")
app.add_typer(replay_app, name="replay")
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str) -> NoReturn:
    """One line on stderr, exit status 2: the way every bad input ends."""
    err.print(f"error: {message}", markup=False)
    raise typer.Exit(2)


def write_atomically(path: Path, text: str) -> None:
    """Write the whole file or nothing: a crash never leaves half a replay behind."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "x") as f:  # "x", not mkstemp: the file gets the usual umask mode
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def check_writable(path: Path) -> None:
    """Fail before any work is done if ``path`` cannot take a file."""
    if path.is_dir():
        fail(f"cannot write the replay: {path} is a directory")
    if not path.resolve().parent.is_dir():
        fail(f"cannot write the replay: no directory {path.parent}")
    if not os.access(path.resolve().parent, os.W_OK):
        fail(f"cannot write the replay: directory {path.parent} is not writable")


@app.command()
def play(
    bots: Annotated[list[str], typer.Argument(help="Four bots, seats 0-3 (e.g. random).")],
    seed: Annotated[int | None, typer.Option(help="Game seed (default: a random one).")] = None,
    replay: Annotated[Path | None, typer.Option(help="Write the replay JSON here.")] = None,
    record_legal: Annotated[
        bool, typer.Option("--record-legal", help="Record the legal cards of every play.")
    ] = False,
    max_redeals: Annotated[int, typer.Option(help="Rule: consecutive redeals allowed.")] = 5,
) -> None:
    """Play one full game between four bots and print it deal by deal."""
    if len(bots) != 4:
        fail(f"a game needs exactly 4 bots, got {len(bots)}")
    if replay is not None:
        check_writable(replay)
    try:
        rules = Rules(max_redeals=max_redeals)
    except RulesError as e:
        fail(str(e))
    if seed is None:
        seed = random.randrange(2**31)
    elif seed < 0:
        fail(f"--seed must be >= 0, got {seed}")
    try:
        players = [make_player(name, seed * 4 + seat) for seat, name in enumerate(bots)]
    except UnknownPlayerError as e:
        fail(str(e))
    names = [f"{seat}:{name}" for seat, name in enumerate(bots)]
    out.print(f"seed {seed} · team 0 = seats 0+2 ({bots[0]}, {bots[2]})"
              f" · team 1 = seats 1+3 ({bots[1]}, {bots[3]})")  # fmt: skip

    def show(record: Any) -> None:
        for line in deal_lines(record, names):
            out.print(line, markup=False)

    state = run_game(players, seed, rules, record_legal=record_legal, on_deal=show)
    winner = state.winner()
    result = "draw" if winner is None else f"team {winner} wins"
    out.print(f"final: team 0 {state.totals[0]} · team 1 {state.totals[1]} · {result}")
    if replay is not None:
        data = build_replay(state, bots)
        try:
            write_atomically(replay, json.dumps(data, indent=1) + "\n")
        except OSError as e:
            fail(f"cannot write the replay {replay}: {e.strerror}")
        out.print(f"replay written to {replay}")


@replay_app.command("verify")
def replay_verify(
    files: Annotated[list[Path], typer.Argument(help="Replay JSON files.")],
) -> None:
    """Re-run the rules over replays; name the first violation of each bad one."""
    bad = 0
    for file in files:
        try:
            data = json.loads(file.read_text())
            verify_replay(data)
        except OSError as e:
            problem = f"cannot read: {e.strerror}"
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            problem = f"not JSON: {e}"
        except ReplayError as e:
            problem = str(e)
        else:
            totals = data["result"]["totals"]
            out.print(
                f"{file}: ok · {len(data['deals'])} dealings · totals {totals[0]} {totals[1]}"
            )
            continue
        bad += 1
        err.print(f"error: {file}: {problem}", markup=False)
    if bad:
        raise typer.Exit(2)


def main() -> None:
    """The console script: like ``app()``, but a usage error is one line, exit status 2."""
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
