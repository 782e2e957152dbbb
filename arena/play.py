"""Local play: resolve bot specs, start each bot as a process, referee games between them.

A bot spec is a sample bot's name (``random``, ``heuristic``, ``montecarlo``: a directory
under ``sample_bots/``) or a path to a bot directory or its ``bot.py``.
"""

from __future__ import annotations

import math
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import grpc

from arena.engine import DealRecord, GameState, Rules
from arena.engine.replay import Forfeit
from arena.limits import Limits
from arena.referee import BotFault, GameOutcome, RemotePlayer, run_game
from arena.sandbox import BotProcess, start_process

SAMPLE_BOTS = Path(
    os.environ.get("ARENA_SAMPLE_BOTS", Path(__file__).resolve().parent.parent / "sample_bots")
)


class BotSpecError(ValueError):
    """A bot spec that names no sample bot and no bot directory."""


@dataclass(frozen=True)
class BotSpec:
    label: str  # as given on the command line
    directory: Path  # holds bot.py


def sample_bot_names() -> list[str]:
    if not SAMPLE_BOTS.is_dir():
        return []
    return sorted(p.name for p in SAMPLE_BOTS.iterdir() if (p / "bot.py").is_file())


def resolve_bot(spec: str) -> BotSpec:
    path = Path(spec)
    if "/" not in spec and not path.exists():
        if (SAMPLE_BOTS / spec / "bot.py").is_file():
            return BotSpec(spec, SAMPLE_BOTS / spec)
        known = ", ".join(sample_bot_names())
        raise BotSpecError(f"unknown bot {spec!r}: not a sample bot ({known}) nor a path")
    if path.is_file() and path.name == "bot.py":
        return BotSpec(spec, path.resolve().parent)
    if path.is_dir():
        if not (path / "bot.py").is_file():
            raise BotSpecError(f"bot directory {spec} has no bot.py at its root")
        return BotSpec(spec, path.resolve())
    raise BotSpecError(f"no bot at {spec}: expected a directory with bot.py, or a bot.py")


@dataclass(frozen=True)
class GameSettings:
    rules: Rules = Rules()  # noqa: RUF009 (frozen values: sharing the default is safe)
    limits: Limits = Limits()  # noqa: RUF009
    record_legal: bool = False
    python: str | None = None  # the interpreter that runs bot.py (default: this one)
    logs_dir: Path | None = None  # keep each bot's log here


@dataclass
class PlayedGame:
    seed: int
    bots: tuple[BotSpec, ...]  # by seat
    outcome: GameOutcome
    players: list[RemotePlayer]
    logs: list[Path]


def play_game(
    bots: Sequence[BotSpec],
    seed: int,
    settings: GameSettings = GameSettings(),
    on_deal: Callable[[DealRecord], None] | None = None,
) -> PlayedGame:
    """Start the four bots, referee one game, stop them whatever happened."""
    rules, limits = settings.rules, settings.limits
    with tempfile.TemporaryDirectory(prefix="arena-") as tmp:
        processes: list[BotProcess] = []
        channels: list[grpc.Channel] = []
        try:
            for seat, bot in enumerate(bots):
                workdir = Path(tmp) / f"seat{seat}"
                processes.append(start_process(bot.directory, workdir, settings.python))
            players = []
            for seat, (bot, process) in enumerate(zip(bots, processes, strict=True)):
                channel = grpc.insecure_channel(f"unix:{process.socket_path}")
                channels.append(channel)
                players.append(RemotePlayer(seat, channel, limits, bot.label, _death(process)))
            deadline = time.monotonic() + limits.startup_ms / 1000
            outcome = None
            for seat, player in enumerate(players):
                try:
                    player.hello(seed * 4 + seat, rules, deadline)
                except BotFault as fault:
                    forfeit = Forfeit(fault.seat, fault.reason, fault.detail)
                    outcome = GameOutcome(GameState.new(seed, rules), forfeit)
                    break
            if outcome is None:
                outcome = run_game(
                    players, seed, rules, record_legal=settings.record_legal, on_deal=on_deal
                )
        finally:
            for channel in channels:
                channel.close()
            for process in processes:
                process.stop()
        logs = _keep_logs(processes, settings.logs_dir, seed)
    return PlayedGame(seed, tuple(bots), outcome, players, logs)


def _death(process: BotProcess) -> Callable[[], str | None]:
    return lambda: process.exit_description() if process.exited() else None


def _keep_logs(processes: list[BotProcess], logs_dir: Path | None, seed: int) -> list[Path]:
    if logs_dir is None:
        return []
    logs_dir.mkdir(parents=True, exist_ok=True)
    kept = []
    for seat, process in enumerate(processes):
        target = logs_dir / f"game-{seed}-seat{seat}.log"
        target.write_bytes(process.log_path.read_bytes())
        kept.append(target)
    return kept


# ---------------------------------------------------------------------- duplicate


def rotated(bots: Sequence[BotSpec]) -> tuple[BotSpec, ...]:
    """The same bots one seat further clockwise: the partnerships swap cards."""
    return (bots[3], bots[0], bots[1], bots[2])


@dataclass(frozen=True)
class DuplicateSummary:
    pairs: int
    totals: tuple[int, int]  # over all games, for the pair seated 0+2 first and 1+3 first
    mean_diff: float  # per duplicate pair: first pair's points minus the second's
    stderr: float


def pair_difference(first: PlayedGame, second: PlayedGame) -> tuple[int, int]:
    """Points of the (seats 0+2 first) pair and the other pair over a duplicate pair of games."""
    a, b = first.outcome.state.totals, second.outcome.state.totals
    return a[0] + b[1], a[1] + b[0]


def summarize(pairs: Sequence[tuple[int, int]]) -> DuplicateSummary:
    diffs = [x - y for x, y in pairs]
    stderr = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else math.inf
    totals = (sum(x for x, _ in pairs), sum(y for _, y in pairs))
    return DuplicateSummary(len(pairs), totals, statistics.fmean(diffs), stderr)


def play_many(
    bots: Sequence[BotSpec],
    seeds: Sequence[int],
    *,
    duplicate: bool,
    concurrency: int = 1,
    settings: GameSettings = GameSettings(),
    on_game: Callable[[PlayedGame], None] | None = None,
) -> list[PlayedGame]:
    """Play a game per seed (two with ``duplicate``: seats as given, then rotated).

    Games run ``concurrency`` at a time; results come back in schedule order whatever
    order they finish in.
    """
    schedule = [(tuple(bots), s) for s in seeds]
    if duplicate:
        schedule = [g for s in seeds for g in ((tuple(bots), s), (rotated(bots), s))]

    def one(item: tuple[tuple[BotSpec, ...], int]) -> PlayedGame:
        return play_game(item[0], item[1], settings)

    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        games = []
        for game in pool.map(one, schedule):
            if on_game is not None:
                on_game(game)
            games.append(game)
    return games
