"""``arena demo``: the whole platform in one go, on a data directory of its own."""

from __future__ import annotations

import os
import shlex
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from arena.play.bot_specs import SAMPLE_BOTS, sample_bot_names
from arena.read_model import LADDER, MatchStatus, plural, version_label

from .app import app, fail, out, sandbox_for, sandbox_kind
from .opening import local_ladder
from .options import SandboxOption
from .standings import print_standings
from .worker import run_with_progress


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
    out.print(f"data directory: {home}", markup=False)
    # Its own ladder: the SQLite file and the code's cache in its data directory, whatever
    # ARENA_HOME and ARENA_DATABASE_URL say. The sandbox is chosen once (said once), then
    # each submission's validation game and the round-robin play in one of that kind.
    url = f"sqlite:///{home / 'arena.db'}"
    kind = sandbox_kind(sandbox)
    with local_ladder(kind, url=url, home=home) as ladder:
        backend = sandbox_for(kind)
        try:
            out.print(f"sandbox: {backend.name}", markup=False)
            token = ladder.add_user("demo")
            for bot in chosen:
                done = ladder.submit(token, SAMPLE_BOTS / bot, bot)
                v = done.version
                matches = plural(done.scheduled, "match")
                out.print(
                    f"submitted {version_label(bot, v.number)}: {v.status}"
                    + (f" · {matches} scheduled" if done.scheduled else ""),
                    markup=False,
                )
            run_with_progress(ladder, None, concurrency, backend)
        finally:
            backend.close()
        print_standings(ladder.standings(LADDER), hide_retired=True)
        played = ladder.matches(LADDER, MatchStatus.DONE)
    for line in next_commands(home, chosen[0], played[0].id if played else None):
        out.print(line, markup=False)
    if os.environ.get("ARENA_DATABASE_URL"):
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
