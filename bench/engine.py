"""Random-playout throughput: our engine vs OpenSpiel's ``oh_hell``.

What is measured: decisions per second of random playouts driven from Python. The loop is the
same for both engines -- get the legal actions, pick one with ``rng.choice``, apply it -- which
is exactly how bots and self-play drive an engine, so Python/binding overhead is part of the
figure on purpose. Only player decisions (bids and card plays) are counted. OpenSpiel's chance
nodes (number of tricks, dealer, dealing, trump) are resolved inside the loop by sampling
``state.chance_outcomes()``; their time counts (our engine deals inside ``apply``) but they are
not counted as decisions.

Games/s is printed too, but it does not compare like with like: one of our games is a full
25-deal match, one OpenSpiel game is a single 12-trick deal. Compare decisions/s.

Why rounds: the machine is shared and noisy, so the engines are measured in interleaved rounds
(order swapped every round) and the median rate per engine is reported. The last line is
``ratio=<ours/openspiel>``.

Run from the repo root: ``python bench/engine.py [--seconds S] [--rounds N] [--seed K]``.
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, cast

from arguments import positive_float, positive_int

OH_HELL_PARAMS: dict[str, int] = {
    "players": 4,
    "num_suits": 4,
    "num_cards_per_suit": 13,
    "num_tricks_fixed": 12,
}


class OursState(Protocol):
    def is_terminal(self) -> bool: ...
    def legal_actions(self) -> list[int]: ...
    def apply(self, action: int) -> None: ...


class OursStateClass(Protocol):
    def new(self, *, seed: int) -> OursState: ...


class SpielState(Protocol):
    def is_terminal(self) -> bool: ...
    def is_chance_node(self) -> bool: ...
    def chance_outcomes(self) -> list[tuple[int, float]]: ...
    def legal_actions(self) -> list[int]: ...
    def apply_action(self, action: int) -> None: ...


class SpielGame(Protocol):
    def new_initial_state(self) -> SpielState: ...


class PySpiel(Protocol):
    def load_game(self, name: str, params: dict[str, int], /) -> SpielGame: ...


# Plays one complete game with the given RNG and returns the number of decisions made.
PlayGame = Callable[[random.Random], int]


@dataclass
class RoundResult:
    decisions: int
    games: int
    seconds: float

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds


def make_openspiel_player(pyspiel: PySpiel) -> PlayGame:
    game = pyspiel.load_game("oh_hell", OH_HELL_PARAMS)

    def play(rng: random.Random) -> int:
        choice = rng.choice
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                # Every oh_hell chance node (deal, dealer, trump) is uniform, so a plain
                # choice samples it exactly, as cheaply as our engine's own shuffle.
                state.apply_action(choice(state.chance_outcomes())[0])
            else:
                state.apply_action(choice(state.legal_actions()))
                decisions += 1
        return decisions

    return play


def make_ours_player(game_state_cls: OursStateClass) -> PlayGame:
    def play(rng: random.Random) -> int:
        choice = rng.choice
        state = game_state_cls.new(seed=rng.randrange(2**31))
        decisions = 0
        while not state.is_terminal():
            state.apply(choice(state.legal_actions()))
            decisions += 1
        return decisions

    return play


def run_round(play: PlayGame, seconds: float, seed: int) -> RoundResult:
    """Play whole games until ``seconds`` have elapsed (the last game is finished)."""
    rng = random.Random(seed)
    decisions = 0
    games = 0
    start = time.perf_counter()
    deadline = start + seconds
    now = start
    while now < deadline:
        decisions += play(rng)
        games += 1
        now = time.perf_counter()
    return RoundResult(decisions, games, now - start)


def _import_pyspiel() -> PySpiel:
    try:
        return cast(PySpiel, importlib.import_module("pyspiel"))
    except ImportError:
        print(
            "error: pyspiel is not importable; install the bench extras: pip install -e '.[bench]'",
            file=sys.stderr,
        )
        sys.exit(2)


def _import_game_state() -> OursStateClass:
    try:
        module = importlib.import_module("arena.engine")
    except ImportError:
        # Not installed (editable) in this interpreter: fall back to the repo root.
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        module = importlib.import_module("arena.engine")
    game_state = getattr(module, "GameState", None)
    if game_state is None:
        print("error: arena.engine has no GameState", file=sys.stderr)
        sys.exit(1)
    return cast(OursStateClass, game_state)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--seconds", type=positive_float, default=2.0, help="seconds per engine per round"
    )
    parser.add_argument("--rounds", type=positive_int, default=5, help="interleaved rounds")
    parser.add_argument("--seed", type=int, default=0, help="base RNG seed")
    args = parser.parse_args(argv)

    pyspiel = _import_pyspiel()
    engines: dict[str, PlayGame] = {
        "ours": make_ours_player(_import_game_state()),
        "openspiel": make_openspiel_player(pyspiel),
    }
    results: dict[str, list[RoundResult]] = {name: [] for name in engines}

    # Warm-up: one game each (imports, caches, allocator).
    for play in engines.values():
        play(random.Random(args.seed))

    names = list(engines)
    for rnd in range(args.rounds):
        order = names if rnd % 2 == 0 else names[::-1]
        for name in order:
            res = run_round(engines[name], args.seconds, args.seed + rnd)
            results[name].append(res)
            print(
                f"round {rnd + 1}/{args.rounds} {name:<9} "
                f"{res.decisions_per_s:>12,.0f} decisions/s {res.games_per_s:>10,.2f} games/s",
                flush=True,
            )

    medians: dict[str, float] = {}
    print()
    for name in names:
        rounds = results[name]
        medians[name] = statistics.median(r.decisions_per_s for r in rounds)
        games_per_s = statistics.median(r.games_per_s for r in rounds)
        per_game = sum(r.decisions for r in rounds) / sum(r.games for r in rounds)
        print(
            f"{name:<9} median {medians[name]:>12,.0f} decisions/s {games_per_s:>10,.2f} games/s "
            f"({per_game:,.1f} decisions/game)"
        )
    print(f"ratio={medians['ours'] / medians['openspiel']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
