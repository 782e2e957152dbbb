"""Play one scheduled match (a duplicate pair of games) and keep its record."""

from __future__ import annotations

import tempfile
from pathlib import Path

from arena.engine import Rules
from arena.engine.replay import build_replay
from arena.limits import Limits
from arena.play import BotSpec, GameSettings, PlayedGame, play_many
from arena.sandbox import Sandbox
from arena.store import ForfeitInfo, Match, MatchResult, Store

from .files import DataDir


def lineup(store: Store, data: DataDir, match: Match) -> list[BotSpec]:
    """The first game's four bots, by seat."""
    specs = []
    for version_id in match.seats:
        version = store.version(version_id)
        bot = store.bot_by_id(version.bot_id)
        specs.append(BotSpec(f"{bot.name} v{version.number}", data.code_dir(version.archive_path)))
    return specs


def team_of(game: int, seat: int) -> int:
    """The match's team at ``seat`` of game 1 or 2 (the second game seats team 0 at 1+3)."""
    return seat % 2 if game == 1 else 1 - seat % 2


def play_match(
    store: Store,
    data: DataDir,
    match: Match,
    sandbox: Sandbox,
    limits: Limits,
    rules: Rules = Rules(),  # noqa: B008 (a frozen value)
) -> MatchResult:
    """Both games of the pair, each with four fresh bots; the replays and logs stored."""
    specs = lineup(store, data, match)
    with tempfile.TemporaryDirectory(prefix="arena-match-") as tmp:
        settings = GameSettings(rules, limits, logs_dir=Path(tmp))
        games = play_many(specs, [match.seed], sandbox, duplicate=True, settings=settings)
        return _result(data, games)


def _result(data: DataDir, games: list[PlayedGame]) -> MatchResult:
    first, second = games
    forfeit: ForfeitInfo | None = None
    winner = None
    for number, game in enumerate(games, start=1):
        f = game.outcome.forfeit
        if f is not None and forfeit is None:  # the first fault decides the pair
            forfeit = ForfeitInfo(number, f.seat, f.reason, f.detail)
            winner = 1 - team_of(number, f.seat)
    replays = [
        build_replay(g.outcome.state, [b.label for b in g.bots], forfeit=g.outcome.forfeit)
        for g in games
    ]
    logs = {
        f"game{number}": [data.store_blob(path.read_bytes(), ".log") for path in game.logs]
        for number, game in enumerate(games, start=1)
    }
    (a0, a1), (b0, b1) = first.outcome.state.totals, second.outcome.state.totals
    totals = ((a0, a1), (b1, b0))  # by team: the second game seats team 0 at 1+3
    if forfeit is None:
        points = (a0 + b1, a1 + b0)
        winner = None if points[0] == points[1] else (0 if points[0] > points[1] else 1)
    return MatchResult(
        totals,
        winner,
        forfeit,
        replay_path=data.store_json({"games": replays}),
        logs_path=data.store_json(logs),
    )
