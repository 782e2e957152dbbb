"""Sample-bot strength by duplicate games: heuristic vs random, montecarlo vs heuristic.

Each comparison plays seeds SEED, SEED+1, ... twice (the second time with the partnerships
swapped: same cards, other pair), through the same code as ``arena play --duplicate``: every
bot its own local process (the ``none`` sandbox: strength, not confinement, is measured here)
speaking gRPC. It prints, per comparison, the mean score difference per
duplicate pair (first bot's pair minus the other) and its standard error, and whether the
margin is at least four standard errors (the project's bar for "beats").

Run from the repository root: ``python bench/strength.py [--pairs N] [--concurrency K]``
(``--only heuristic-random``: that comparison alone).
"""

from __future__ import annotations

import argparse
import contextlib
import time

from arena.competition.pairs import summarize
from arena.play.bot_specs import resolve_bot
from arena.play.tables import GameSettings, play_many, played_pairs
from arena.sandbox import ProcessSandbox

COMPARISONS = [("heuristic", "random"), ("montecarlo", "heuristic")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pairs", type=int, default=40, help="duplicate pairs per comparison")
    parser.add_argument("--concurrency", type=int, default=2, help="games played at once")
    parser.add_argument("--seed", type=int, default=1000, help="first seed")
    parser.add_argument(
        "--only", choices=[f"{a}-{b}" for a, b in COMPARISONS], help="one comparison alone"
    )
    args = parser.parse_args(argv)
    for strong, weak in COMPARISONS:
        if args.only is not None and args.only != f"{strong}-{weak}":
            continue
        with contextlib.ExitStack() as unpacked:
            bots = [resolve_bot(b, unpacked) for b in (strong, weak, strong, weak)]
            seeds = range(args.seed, args.seed + args.pairs)
            start = time.monotonic()
            sandbox = ProcessSandbox(confined=False)
            try:
                games = play_many(
                    bots, seeds, sandbox, duplicate=True,
                    concurrency=args.concurrency, settings=GameSettings(),
                )  # fmt: skip
            finally:
                sandbox.close()
        forfeits = [g for g in games if g.outcome.forfeit is not None]
        s = summarize(played_pairs(games))
        verdict = "beats" if s.mean_diff >= 4 * s.stderr else "not shown to beat"
        print(
            f"{strong} vs {weak}: {s.pairs} pairs · margin {s.mean_diff:+.1f} ± {s.stderr:.1f}"
            f" per pair · {s.mean_diff / s.stderr if s.stderr else float('inf'):.1f} standard"
            f" errors · {verdict} · {len(forfeits)} forfeits · {time.monotonic() - start:.0f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
