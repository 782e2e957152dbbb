"""``arena compare A B``: is A stronger than B? Duplicate pairs until a sequential test decides.

    arena compare A B [--seed S] [--elo0 0] [--elo1 20] [--alpha 0.05] [--beta 0.05]
                      [--max-pairs 1000] [--concurrency 1] [--move-ms 1000]
                      [--sandbox docker|process|none] [--pentanomial]

A and B are bot specs as ``arena play`` takes them: a sample bot's name, a bot directory,
its bot.py, or a .zip / .tar.gz of it. Each duplicate pair is two games on seed S, S+1, ...:
A+A at seats 0+2 against B+B at 1+3, then the same deals with the seats rotated, so each
partnership plays the other's cards. A's score for the pair is 1, 1/2 or 0 as its points over
both games beat, equal or trail B's (``--pentanomial``: the mean of A's two game results,
fishtest's model); a forfeit loses the pair for the side that faulted first.

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
from typing import Annotated

import typer

from .cli import app, fail, out, sandbox_for, seed_or_random
from .ladder import pair_score
from .ladder.sprt import PAIR, PENTANOMIAL, Sprt, Verdict
from .limits import Limits
from .play import BotSpec, GameSettings, PlayedGame, pair_difference, play_many, resolve_bot
from .sandbox import Sandbox, SandboxError


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
    sandbox: Annotated[
        str | None,
        typer.Option(help="docker, process or none (default: docker if an engine answers)."),
    ] = None,
    pentanomial: Annotated[
        bool,
        typer.Option("--pentanomial", help="Score a pair by its two game results, not points."),
    ] = False,
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
    try:
        limits = Limits(move_ms=move_ms)
    except ValueError as e:
        fail(str(e))
    sprt = Sprt(elo0, elo1, alpha, beta, PENTANOMIAL if pentanomial else PAIR)
    with contextlib.ExitStack() as unpacked:
        try:
            specs = (resolve_bot(a, unpacked), resolve_bot(b, unpacked))
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
    model = "game results (pentanomial)" if len(sprt.outcomes) == 5 else "points (W/D/L)"
    out.print(
        f"compare: A = {a.label} · B = {b.label} · seeds from {seed} · elo0 {sprt.elo0:g}"
        f" · elo1 {sprt.elo1:g} · alpha {sprt.alpha:g} · beta {sprt.beta:g}"
        f" · pairs scored by {model}",
        markup=False,
    )
    settings = GameSettings(limits=limits)
    pending: list[PlayedGame] = []

    def on_game(game: PlayedGame) -> None:
        """Games arrive in schedule order: each second one completes a pair."""
        pending.append(game)
        if len(pending) == 2 and sprt.verdict is None:  # a batch may run past the verdict
            first, second = pending
            sprt.update(pair_result(first, second, pentanomial=len(sprt.outcomes) == 5))
            out.print(_pair_line(sprt, first, second), markup=False)
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
    s = sprt.summary()
    out.print(
        f"result: {s.pairs} pairs · W/D/L {s.wins}/{s.draws}/{s.losses} · score {s.score:.3f}"
        f" · Elo {s.elo:+.1f} ± {s.elo_error:.1f} (95%)",
        markup=False,
    )
    bounds = f"LLR {s.llr:.2f} in [{s.bounds[0]:.2f}, {s.bounds[1]:.2f}]"
    e0, e1 = f"{sprt.elo0:g}", f"{sprt.elo1:g}"
    if s.verdict == "H1":
        out.print(
            f"verdict: H1 (A - B >= {e1} Elo, not <= {e0}) after {s.pairs} pairs · {bounds}",
            markup=False,
        )
    elif s.verdict == "H0":
        out.print(
            f"verdict: H0 (A - B <= {e0} Elo, not >= {e1}) after {s.pairs} pairs · {bounds}",
            markup=False,
        )
    else:
        out.print(f"no verdict after {s.pairs} pairs (--max-pairs) · {bounds}", markup=False)
    return s.verdict


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
    s = sprt.summary()
    points = pair_difference(first, second)
    line = (
        f"pair {s.pairs} · seed {first.seed} · points A {points[0]} B {points[1]}"
        f" · W/D/L {s.wins}/{s.draws}/{s.losses}"
    )
    if len(sprt.outcomes) == 5:
        line += f" · pentanomial {'/'.join(str(c) for c in s.counts)}"
    line += (
        f" · score {s.score:.3f} · Elo {s.elo:+.1f} ± {s.elo_error:.1f}"
        f" · LLR {s.llr:.2f} in [{s.bounds[0]:.2f}, {s.bounds[1]:.2f}]"
    )
    for number, game in ((1, first), (2, second)):
        f = game.outcome.forfeit
        if f is not None:
            label = game.bots[f.seat].label
            line += f" · forfeit in game {number} by seat {f.seat} ({label}, {f.reason})"
    return line
