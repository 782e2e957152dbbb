"""``arena tournament``: one-off round-robins, created, scheduled, run here, and counted."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from arena.bots.limits import LADDER_PACE_MS, stored_limits
from arena.read_model import MatchStatus, RatingModelName, ScheduleKind, plural

from .app import app, fail, out, sandbox_for
from .opening import local_ladder
from .options import SandboxOption
from .standings import print_standings
from .worker import run_with_progress

tournament_app = typer.Typer(no_args_is_help=True, help="One-off round-robin tournaments.")
app.add_typer(tournament_app, name="tournament")


@tournament_app.command("create")
def tournament_create(
    name: Annotated[str, typer.Argument(help="The tournament's name.")],
    bots: Annotated[str, typer.Option(help="Comma-separated bot names (their active version).")],
    format: Annotated[str, typer.Option(help="pairs or mixed.")] = "pairs",
    games_per_pairing: Annotated[int, typer.Option(help="Duplicate pairs per pairing.")] = 1,
    seed: Annotated[int, typer.Option(help="Seeds every match's deals.")] = 0,
    rating: Annotated[
        str, typer.Option(help="elo (the fit, beside sequential Elo) or openskill (Weng-Lin).")
    ] = "elo",
    pace_ms: Annotated[
        int | None,
        typer.Option(
            help="The tables' pace in ms (0: none), as arena play's; default: the ladder's"
            f" ($ARENA_LADDER_PACE_MS, else {LADDER_PACE_MS}).",
            show_default=False,
        ),
    ] = None,
    schedule: Annotated[
        str,
        typer.Option(
            help="round-robin (every pairing) or adaptive (matches chosen by what they teach,"
            " queued a batch at a time as results come in)."
        ),
    ] = "round-robin",
) -> None:
    """Schedule a tournament among the named bots' active versions."""
    from arena.competition import FORMATS, RATING_MODELS, SCHEDULES

    if format not in FORMATS:
        fail(f"unknown format {format!r}: {' or '.join(FORMATS)}")
    if rating not in RATING_MODELS:
        fail(f"unknown rating model {rating!r}: {' or '.join(RATING_MODELS)}")
    if schedule not in SCHEDULES:
        fail(f"unknown schedule {schedule!r}: {' or '.join(SCHEDULES)}")
    try:
        stored_limits({} if pace_ms is None else {"pace_ms": pace_ms})
    except ValueError as e:
        fail(str(e))
    names = [b.strip() for b in bots.split(",") if b.strip()]
    with local_ladder() as ladder:
        _, count = ladder.create_tournament(
            name, names, format, games_per_pairing, seed, RatingModelName(rating),
            pace_ms=pace_ms, schedule=ScheduleKind(schedule),
        )  # fmt: skip
    more = " (more as results come in)" if schedule == "adaptive" else ""
    matches = plural(count, "match")
    out.print(f"tournament {name}: {matches} scheduled{more}", markup=False)


@tournament_app.command("schedule")
def tournament_schedule(
    name: Annotated[str, typer.Argument(help="The tournament's name (the ladder: ladder).")],
    schedule: Annotated[str, typer.Argument(help="round-robin or adaptive.")],
) -> None:
    """Change how a tournament chooses its next matches; those queued stay.

    The ladder is round-robin until set adaptive here (docs/operating.md)."""
    from arena.competition import SCHEDULES

    if schedule not in SCHEDULES:
        fail(f"unknown schedule {schedule!r}: {' or '.join(SCHEDULES)}")
    with local_ladder() as ladder:
        t, count = ladder.set_schedule(name, ScheduleKind(schedule))
    queued = f": {plural(count, 'match')} scheduled" if count else ""
    out.print(f"tournament {name}: schedule {t.schedule}{queued}", markup=False)


@tournament_app.command("run")
def tournament_run(
    name: Annotated[str, typer.Argument(help="The tournament's name.")],
    concurrency: Annotated[int, typer.Option(help="Matches played at once.")] = 1,
    sandbox: SandboxOption = None,
) -> None:
    """Play the tournament's matches here until none is left, then print the standings."""
    with local_ladder() as ladder:
        t = ladder.tournament(name)
        backend = sandbox_for(sandbox)
        try:
            run_with_progress(ladder, t, concurrency, backend)
        finally:
            backend.close()
        print_standings(ladder.standings(name))


@tournament_app.command("status")
def tournament_status(
    name: Annotated[str, typer.Argument(help="The tournament's name.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="JSON: {matches, standings}, as arena ladder --json.")
    ] = False,
) -> None:
    """How many matches are queued, running, done and failed; the standings so far."""
    with local_ladder() as ladder:
        counts = ladder.match_counts(name)
        if as_json:
            rows = [row.as_json() for row in ladder.standings(name)]
            matches = {s.value: counts[s] for s in MatchStatus}
            print(json.dumps({"matches": matches, "standings": rows}, indent=1))
            return
        shown = [s for s in MatchStatus if s != MatchStatus.CANCELLED or counts[s]]
        out.print(" · ".join(f"{s.value} {counts[s]}" for s in shown), markup=False)
        print_standings(ladder.standings(name))
