"""``arena compare A B``: is A stronger than B? Duplicate pairs until fishtest's sequential
test (``arena/competition/sprt.py``) decides, in seed order whatever ``--concurrency`` is.

A and B are bot specs as ``arena play`` takes them, or ``NAME@N`` versions of the ladder;
with ``--server`` the pairs are queued for the server's workers (``arena/league/compare.py``).
The options and the output are the README's and ``--help``'s; exit status 0 on a verdict, 1
without one, 2 on bad input.
"""

from __future__ import annotations

import contextlib
import math
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from arena.bots.limits import Limits
from arena.play.bot_specs import BotSpec, built, resolve_bot
from arena.read_model import CompareLine, CompareSettings
from arena.service.tls import ClientTls

from .app import app, fail, out, sandbox_for, seed_or_random
from .opening import ladder_for, local_ladder, token_of
from .options import PlaintextOption, SandboxOption, ServerOption, TlsCaOption, TokenOption

if TYPE_CHECKING:  # the rest is imported where it is used (see app.py)
    from arena.competition.sprt import Verdict


@app.command()
def compare(
    a: Annotated[str, typer.Argument(metavar="A", help="The bot under test: a name or a path.")],
    b: Annotated[str, typer.Argument(metavar="B", help="The bot it is measured against.")],
    seed: Annotated[
        int | None, typer.Option(help="First pair's seed, then +1 (default: a random one).")
    ] = None,
    elo0: Annotated[float, typer.Option(help="H0: A - B <= elo0 (logistic Elo per pair).")] = 0.0,
    elo1: Annotated[float, typer.Option(help="H1: A - B >= elo1.")] = 20.0,
    alpha: Annotated[float, typer.Option(help="Chance of accepting H1 when H0 holds.")] = 0.05,
    beta: Annotated[float, typer.Option(help="Chance of accepting H0 when H1 holds.")] = 0.05,
    max_pairs: Annotated[int, typer.Option(help="Give up without a verdict after this.")] = 1000,
    concurrency: Annotated[int, typer.Option(help="Pairs played at once.")] = 1,
    move_ms: Annotated[int, typer.Option(help="Time per decision, in ms.")] = Limits.move_ms,
    sandbox: SandboxOption = None,
    pentanomial: Annotated[
        bool,
        typer.Option("--pentanomial", help="Score a pair by its two game results, not points."),
    ] = False,
    server: ServerOption = None,
    token: TokenOption = None,
    tls_ca: TlsCaOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Play duplicate pairs of A+A against B+B until an SPRT says whether A is stronger."""
    from arena.league.compare import compare_locally
    from arena.sandbox import SandboxError

    if not (math.isfinite(elo0) and math.isfinite(elo1)):
        fail(f"--elo0 and --elo1 must be finite, got {elo0:g} and {elo1:g}")
    if elo0 >= elo1:
        fail(f"--elo0 must be below --elo1, got {elo0:g} >= {elo1:g}")
    for name, p in (("--alpha", alpha), ("--beta", beta)):
        if not 0.0 < p < 1.0:
            fail(f"{name} must be in (0, 1), got {p:g}")
    if alpha + beta >= 1.0:
        fail(f"--alpha + --beta must be below 1, got {alpha + beta:g}")
    if max_pairs < 1 or concurrency < 1:
        fail("--max-pairs and --concurrency must be >= 1")
    seed = seed_or_random(seed)
    settings = CompareSettings(seed, elo0, elo1, alpha, beta, max_pairs, pentanomial, concurrency)
    tls = ClientTls(tls_ca, plaintext)
    if server and not (is_local(a) or is_local(b)):
        secret = token_of(token)
        with ladder_for(server, tls=tls) as ladder:
            verdict = _print(
                ladder.compare(secret, a, b, replace(settings, batch=max(concurrency, 8)))
            )
    else:
        try:
            limits = Limits(move_ms=move_ms)
        except ValueError as e:
            fail(str(e))

        def bot(spec: str, unpacked: contextlib.ExitStack) -> BotSpec:
            if server and not is_local(spec):
                return server_bot(server, token, tls, spec, unpacked)
            return local_bot(spec, unpacked)

        with contextlib.ExitStack() as unpacked:
            try:
                specs = (bot(a, unpacked), bot(b, unpacked))
                backend = sandbox_for(sandbox)
            except (ValueError, SandboxError) as e:
                fail(str(e))
            try:  # a bot with a build step, built here as the ladder would (cached)
                specs = (built(specs[0], backend), built(specs[1], backend))
            except (ValueError, SandboxError) as e:
                backend.close()
                fail(str(e))
            try:
                verdict = _print(compare_locally(specs, backend, settings, limits))
            except SandboxError as e:
                fail(str(e))
            finally:
                backend.close()
    if verdict is None:
        raise typer.Exit(1)


def _print(lines: Iterator[CompareLine]) -> Verdict | None:
    """Each line as it comes; the verdict, once there is one."""
    verdict = None
    for line, verdict in lines:  # noqa: B007
        out.print(line, markup=False)
    return verdict


def is_local(spec: str) -> bool:
    """Whether a spec given with ``--server`` names code here (``./mybot``), not a bot
    submitted there: then the comparison is played here, the stored side fetched."""
    return "/" in spec or Path(spec).exists()


def server_bot(
    server: str, token: str | None, tls: ClientTls, spec: str, unpacked: contextlib.ExitStack
) -> BotSpec:
    """A version stored on the server (``NAME@N``; yours, or any to an operator), its code
    fetched and unpacked with a submission's checks for as long as ``unpacked``."""
    from arena.league.stored_files import export_archive

    secret = token_of(token)
    where = Path(unpacked.enter_context(tempfile.TemporaryDirectory(prefix="arena-code-")))
    with ladder_for(server, tls=tls) as ladder:
        export_archive(ladder.code(secret, spec).archive, where / "bot")
    return BotSpec(spec, where / "bot")


def local_bot(spec: str, unpacked: contextlib.ExitStack) -> BotSpec:
    """A bot spec as ``arena play`` takes it, or ``NAME@N``: a version in the local store."""
    if "@" not in spec or Path(spec).exists():
        return resolve_bot(spec, unpacked)
    with local_ladder() as ladder:
        return BotSpec(spec, ladder.code_dir(spec))
