"""``arena compare A B``: is A stronger than B? Duplicate pairs until a sequential test decides.

    arena compare A B [--seed S] [--elo0 0] [--elo1 20] [--alpha 0.05] [--beta 0.05]
                      [--max-pairs 1000] [--concurrency 1] [--move-ms 1000]
                      [--sandbox docker|process|none] [--pentanomial]

With ``--server HOST:PORT`` (or ``$ARENA_SERVER``) and a token, A and B are submitted bots
(``NAME``: its active version, ``NAME@N``: version N) and the pairs are queued for the
server's workers, ahead of ladder matches (``arena/league/compare.py``); ``--concurrency``
is then how many pairs are kept queued (at least 8). The lines are the same. If one of them
is a path here (``arena compare ./mybot mybot@1 --server ...``), the pairs are played here
instead, the other side's code fetched from the server (your own versions; an operator's
any).

Without it, A and B are bot specs as ``arena play`` takes them: a sample bot's name, a bot
directory, its bot.py, or a .zip / .tar.gz of it; or ``NAME@N``, version N as stored in the
local ladder (``arena compare ./mybot mybot@1``: the work in progress against version 1).
Each duplicate pair is two games on seed S, S+1, ...: A+A at seats 0+2 against B+B at 1+3,
then the same deals with the seats rotated, so each partnership plays the other's cards. A's
score for the pair is 1, 1/2 or 0 as its points over both games beat, equal or trail B's
(``--pentanomial``: the mean of A's two game results, fishtest's model); a forfeit loses the
pair for the side that faulted first.

The scores feed fishtest's generalized SPRT (``arena/competition/sprt.py``), H0 ``A - B <= elo0``
against H1 ``A - B >= elo1`` in logistic Elo per pair, in seed order whatever
``--concurrency`` is, so a seeded run stops at the same pair every time. Output, one line
each, fields separated by `` · ``::

    compare: A = heuristic · B = random · seeds from 1 · elo0 0 · elo1 20 · alpha 0.05 · ...
    pair 1 · seed 1 · points A 1834 B -4606 · W/D/L 1/0/0 · score 1.000 · Elo +inf ± inf
        · LLR 0.06 in [-2.94, 2.94]        (one line, folded here)
    ...
    statistics, per bot:
      A: 106 seat-games · 1272 deals · +7.1 points per deal
         contracts made/bid, by own bid: pass 210/240 · 1 180/230 · ...
      B: ...                             (A's and B's, over the pairs counted; no think time)
    result: 53 pairs · W/D/L 53/0/0 · score 1.000 · Elo +inf ± inf (95%)
    verdict: H1 (A - B >= 20 Elo, not <= 0) after 53 pairs · LLR 2.96 in [-2.94, 2.94]

or ``verdict: H0 (A - B <= 0 Elo, not >= 20) ...``, or ``no verdict after 1000 pairs
(--max-pairs) · LLR ...``. Exit status 0 on a verdict, 1 without one, 2 on bad input (one
``error:`` line).
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
