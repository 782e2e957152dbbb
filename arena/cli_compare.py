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

The scores feed fishtest's generalized SPRT (``arena/ladder/sprt.py``), H0 ``A - B <= elo0``
against H1 ``A - B >= elo1`` in logistic Elo per pair, in seed order whatever
``--concurrency`` is, so a seeded run stops at the same pair every time. Output, one line
each, fields separated by `` · ``::

    compare: A = heuristic · B = random · seeds from 1 · elo0 0 · elo1 20 · alpha 0.05 · ...
    pair 1 · seed 1 · points A 1834 B -4606 · W/D/L 1/0/0 · score 1.000 · Elo +inf ± inf
        · LLR 0.06 in [-2.94, 2.94]        (one line, folded here)
    ...
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
from pathlib import Path
from typing import Annotated, Any

import typer

from .cli import SandboxOption, app, fail, out, sandbox_for, seed_or_random
from .cli_ladder import (
    PlaintextOption,
    TlsCaOption,
    data_dir,
    ladder_for,
    opened_store,
    token_of,
)
from .ladder import pair_score
from .ladder.sprt import (
    PAIR,
    PENTANOMIAL,
    Sprt,
    Verdict,
    closing_lines,
    opening_line,
    pair_line,
)
from .ladder.statistics import by_bot
from .league.compare import CompareSettings, resolve_version
from .league.files import export_archive
from .limits import Limits
from .play import (
    BotSpec,
    GameSettings,
    PlayedGame,
    game_replay,
    pair_difference,
    play_many,
    resolve_bot,
)
from .render import forfeit_where, statistics_lines
from .sandbox import Sandbox, SandboxError
from .service.tls import ClientTls


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
    server: Annotated[
        str | None,
        typer.Option(
            envvar="ARENA_SERVER",
            help="Compare two submitted bots (NAME or NAME@VERSION) on this server's workers;"
            " a path here against one of yours there, played here.",
            show_default=False,
        ),
    ] = None,
    token: Annotated[
        str | None, typer.Option(help="With --server: your token (default: $ARENA_TOKEN).")
    ] = None,
    tls_ca: TlsCaOption = None,
    plaintext: PlaintextOption = False,
) -> None:
    """Play duplicate pairs of A+A against B+B until an SPRT says whether A is stronger."""
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
    if server and not (is_local(a) or is_local(b)):
        settings = CompareSettings(
            seed, elo0, elo1, alpha, beta, max_pairs, pentanomial, batch=max(concurrency, 8)
        )
        secret = token_of(token)
        with ladder_for(server, tls=ClientTls(tls_ca, plaintext)) as ladder:
            last = None
            for line, last in ladder.compare(secret, a, b, settings):  # noqa: B007
                out.print(line, markup=False)
        if last is None:
            raise typer.Exit(1)
        return
    try:
        limits = Limits(move_ms=move_ms)
    except ValueError as e:
        fail(str(e))
    sprt = Sprt(elo0, elo1, alpha, beta, PENTANOMIAL if pentanomial else PAIR)
    tls = ClientTls(tls_ca, plaintext)

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
        try:
            verdict = _compare(specs, seed, sprt, max_pairs, concurrency, limits, backend)
        except SandboxError as e:
            fail(str(e))
        finally:
            backend.close()
    if verdict is None:
        raise typer.Exit(1)


def is_local(spec: str) -> bool:
    """Whether a spec given with ``--server`` names code here (``./mybot``), not a bot
    submitted there: then the comparison is played here, the stored side fetched."""
    return "/" in spec or Path(spec).exists()


def server_bot(
    server: str, token: str | None, tls: ClientTls, spec: str, unpacked: contextlib.ExitStack
) -> BotSpec:
    """A version stored on the server (``NAME@N``; yours, or any to an operator), its code
    fetched and unpacked with a submission's checks for as long as ``unpacked``."""
    secret = token_of(token)
    where = Path(unpacked.enter_context(tempfile.TemporaryDirectory(prefix="arena-code-")))
    with ladder_for(server, tls=tls) as ladder:
        export_archive(ladder.code(secret, spec).archive, where / "bot")
    return BotSpec(spec, where / "bot")


def local_bot(spec: str, unpacked: contextlib.ExitStack) -> BotSpec:
    """A bot spec as ``arena play`` takes it, or ``NAME@N``: a version in the local store."""
    if "@" not in spec or Path(spec).exists():
        return resolve_bot(spec, unpacked)
    with opened_store() as store:
        version = resolve_version(store, spec)
        return BotSpec(spec, data_dir(store).code_dir(version.archive_path))


def _compare(
    specs: tuple[BotSpec, BotSpec],
    seed: int,
    sprt: Sprt,
    max_pairs: int,
    concurrency: int,
    limits: Limits,
    sandbox: Sandbox,
) -> Verdict | None:
    a, b = specs
    out.print(opening_line(sprt, a.label, b.label, seed), markup=False)
    settings = GameSettings(limits=limits)
    pending: list[PlayedGame] = []
    counted: list[dict[str, Any]] = []  # the replays of the pairs the test counted

    def on_game(game: PlayedGame) -> None:
        """Games arrive in schedule order: each second one completes a pair."""
        pending.append(game)
        if len(pending) == 2 and sprt.verdict is None:  # a batch may run past the verdict
            first, second = pending
            sprt.update(pair_result(first, second, pentanomial=len(sprt.outcomes) == 5))
            out.print(_pair_line(sprt, first, second), markup=False)
            # Without think time: a seeded comparison prints the same lines every run.
            counted.extend(game_replay(g) for g in (first, second))
        if len(pending) == 2:
            pending.clear()

    next_seed = seed
    while sprt.verdict is None and sprt.pairs < max_pairs:
        batch = min(concurrency, max_pairs - sprt.pairs)
        seeds = range(next_seed, next_seed + batch)
        play_many(
            [a, b, a, b], seeds, sandbox, duplicate=True, concurrency=concurrency,
            settings=settings, on_game=on_game,
        )  # fmt: skip
        next_seed += batch
    out.print("statistics, per bot:", markup=False)
    for name, stats in by_bot(counted).items():
        for line in statistics_lines(name, stats):
            out.print(f"  {line}", markup=False)
    for line in closing_lines(sprt):
        out.print(line, markup=False)
    return sprt.verdict


def pair_result(first: PlayedGame, second: PlayedGame, *, pentanomial: bool = False) -> float:
    """A's score for a duplicate pair (A's team is 0 in the first game, 1 in the second).

    By points: 1, 1/2 or 0, and a forfeit loses the pair for the side that faulted first.
    Pentanomial: the mean of A's two game results (a forfeit loses that game).
    """
    games = ((first, 0), (second, 1))
    if pentanomial:
        results = [
            0.5 if (w := g.outcome.winner) is None else 1.0 if w == team else 0.0
            for g, team in games
        ]
        return sum(results) / 2
    for game, team in games:
        fault = game.outcome.forfeit
        if fault is not None:
            return 0.0 if fault.seat % 2 == team else 1.0
    return pair_score(pair_difference(first, second))


def _pair_line(sprt: Sprt, first: PlayedGame, second: PlayedGame) -> str:
    forfeits = [
        f"forfeit in game {number} by seat {f.seat}{forfeit_where(f)}"
        f" ({game.bots[f.seat].label}, {f.reason})"
        for number, game in ((1, first), (2, second))
        if (f := game.outcome.forfeit) is not None
    ]
    return pair_line(sprt, first.seed, pair_difference(first, second), forfeits)
