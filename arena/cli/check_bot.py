"""``arena check-bot``: the conformance check of one bot, each rule it breaks named
(``arena/play/conformance.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.bots.limits import Limits
from arena.play.attached import is_attached
from arena.play.bot_specs import attached_spec, built, resolve_bot

from .app import app, complete_bot, err, fail, out, sandbox_for
from .options import SandboxOption

LOG_LINES = 5  # of the bot's output, under each rule it broke: its traceback's end


@app.command("check-bot")
def check_bot(
    bot: Annotated[
        str,
        typer.Argument(
            help="A bot directory, its .zip / .tar.gz, a sample bot's name, or a bot already"
            " running at tcp://127.0.0.1:PORT.",
            autocompletion=complete_bot,
            show_default=False,
        ),
    ],
    sandbox: SandboxOption = None,
    seed: Annotated[int, typer.Option(help="The scripted game's seed.")] = 1,
    move_ms: Annotated[int, typer.Option(help="Time per decision before the bank.")] = 1000,
    bank_ms: Annotated[int, typer.Option(help="The time bank of each start of the bot.")] = 10_000,
    logs: Annotated[
        Path | None, typer.Option(help="Keep the bot's output here (one log per start).")
    ] = None,
) -> None:
    """Check that a bot, in any language, keeps the protocol: drive it through scripted
    positions and name each rule it breaks (exit status 1 if it breaks any)."""
    import contextlib

    from arena.play.conformance import RULES
    from arena.play.conformance import check_bot as run_check
    from arena.render import log_tail
    from arena.sandbox import SandboxError

    if seed < 0:
        fail(f"--seed must be >= 0, got {seed}")
    try:
        limits = Limits(move_ms=move_ms, bank_ms=bank_ms)
    except ValueError as e:
        fail(str(e))
    if logs is not None and logs.exists() and not logs.is_dir():
        fail(f"--logs {logs}: not a directory")
    with contextlib.ExitStack() as unpacked:
        try:
            spec = attached_spec(bot) if is_attached(bot) else resolve_bot(bot, unpacked)
            # A bot already running is dialled, never started: no sandbox.
            backend = None if spec.address is not None else sandbox_for(sandbox)
            if backend is not None:
                spec = built(spec, backend)  # a bot.toml's build step, as `arena play` builds
        except (ValueError, SandboxError) as e:  # BotSpecError is a ValueError
            fail(str(e))
        where = "already running" if backend is None else f"in the {backend.name} sandbox"
        out.print(f"checking {bot} ({where}), seed {seed}", markup=False)
        try:
            report = run_check(spec, backend, limits, seed, logs)
        except SandboxError as e:
            fail(str(e))
        finally:
            if backend is not None:
                backend.close()
    asked = report.calls
    for rule in RULES:
        verdict = report.verdict(rule)
        out.print(f"{verdict:<11} {rule.name:<13} {rule.says}", markup=False)
        finding = report.findings.get(rule.name)
        if finding is not None:
            out.print(f"{'':12}{finding.fault.reason}: {finding.fault.detail}", markup=False)
            out.print(f"{'':12}where: {finding.where}", markup=False)
            for line in log_tail(finding.log, LOG_LINES):
                out.print(f"{'':12}| {line}", markup=False)
    if report.unfinished:
        out.print(f"not every position was asked: {report.unfinished}", markup=False)
    out.print(
        f"asked: {asked['hello']} Hello, {asked['bid']} Bid, {asked['play']} Play,"
        f" {asked['notify']} Notify ({report.starts} start{'s' * (report.starts != 1)})",
        markup=False,
    )
    if not report.passed:
        broken = ", ".join(report.findings) or report.unfinished
        err.print(f"{bot} fails the check: {broken}", markup=False)
        raise typer.Exit(1)
    out.print(f"{bot} passes the check", markup=False)
