"""Play one scheduled match (a duplicate pair of games) and keep its record."""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from arena.bots.limits import Limits
from arena.competition.pairs import Pair, PairGame, by_team, second_seating
from arena.competition.statistics import seat_statistics
from arena.competition.tallies import PlayedPair, match_figures
from arena.engine import Rules
from arena.engine.replay import Replay
from arena.play.bot_specs import BotSpec
from arena.play.tables import (
    GameSettings,
    PlayedGame,
    TablePipeline,
    add_games,
    game_replay,
    pair_of,
    referee_table,
)
from arena.read_model import version_label
from arena.sandbox import Sandbox
from arena.store import ForfeitInfo, Match, MatchResult, Store

from .stored_files import StoredFiles


def lineup(store: Store, data: StoredFiles, match: Match) -> tuple[list[BotSpec], dict[int, int]]:
    """The first game's four bots, by seat, and the bot of each of its versions."""
    specs = []
    bot_of: dict[int, int] = {}
    for version_id in match.seats:
        version = store.version(version_id)
        bot = store.bot_by_id(version.bot_id)
        label = version_label(bot.name, version.number)
        specs.append(BotSpec(label, data.code_dir(version.archive_path)))
        bot_of[version_id] = version.bot_id
    return specs, bot_of


def stored_pair(match: Match) -> Pair:
    """A played match's pair, from its stored team totals."""
    games = []
    for game, team0, team1 in ((1, match.game1_team0, match.game1_team1),
                               (2, match.game2_team0, match.game2_team1)):  # fmt: skip
        assert team0 is not None and team1 is not None
        fault = match.forfeit_seat if match.forfeit_game == game else None
        games.append(PairGame(by_team(game, (team0, team1)), fault))
    return Pair(*games)


@dataclass(frozen=True)
class ScheduledMatch:
    """A claimed match whose two games are scheduled in a slot's ``TablePipeline``."""

    match: Match
    limits: Limits
    games: tuple[int, int]  # the two games' indices in the pipeline
    bot_of: Mapping[int, int]  # the bot of each version at its seats (for head-to-head)


def schedule_match(
    store: Store,
    data: StoredFiles,
    match: Match,
    sandbox: Sandbox,
    limits: Limits,
    tables: TablePipeline,
) -> ScheduledMatch:
    """Add the match's two games to ``tables``: the lineup, then the same bots rotated (the
    partnerships swap cards), four fresh bots each. Their bots start when due."""
    specs, bot_of = lineup(store, data, match)
    first = tuple(specs)
    games = add_games(tables, (first, second_seating(first)), sandbox, limits)
    return ScheduledMatch(match, limits, (games[0], games[1]), bot_of)


def play_match(
    data: StoredFiles,
    scheduled: ScheduledMatch,
    tables: TablePipeline,
    rules: Rules = Rules(),  # noqa: B008 (a frozen value)
    on_last_game: Callable[[], None] | None = None,
) -> MatchResult:
    """Both games of the pair; the replays and logs stored. ``on_last_game`` is called as the
    second game begins: when a worker claims its next match, so that its bots start while
    this game plays."""
    with tempfile.TemporaryDirectory(prefix="arena-match-") as tmp:
        settings = GameSettings(rules, scheduled.limits, logs_dir=Path(tmp))
        last = scheduled.games[-1]

        def begin(index: int) -> None:
            tables.begun(index)
            if index == last and on_last_game is not None:
                on_last_game()

        games = []
        try:
            for number, index in enumerate(scheduled.games, start=1):
                games.append(
                    referee_table(
                        tables.take(index), scheduled.match.seed, settings,
                        log_prefix=f"game{number}-", on_begin=functools.partial(begin, index),
                        tear_down=tables.later,
                    )
                )  # fmt: skip
        except BaseException:  # the platform failed: no bots of this match may linger
            for index in scheduled.games:
                tables.drop(index)
            raise
        return _result(data, scheduled, games)


def _result(data: StoredFiles, scheduled: ScheduledMatch, games: list[PlayedGame]) -> MatchResult:
    """The match's record: both games' totals by team, the winner, the first forfeit, the
    stored replays and logs, and the tallies it adds, from the replays in hand."""
    pair = pair_of(*games)
    forfeit: ForfeitInfo | None = None
    if (fault := pair.forfeit) is not None:  # the first fault decides the pair
        number, seat = fault
        f = games[number - 1].outcome.forfeit
        assert f is not None
        forfeit = ForfeitInfo(number, seat, f.reason, f.detail)
    replays = [game_replay(g, think=True) for g in games]
    logs = {
        f"game{number}": [data.store_blob(path.read_bytes(), ".log") for path in game.logs]
        for number, game in enumerate(games, start=1)
    }
    totals = (by_team(1, pair.first.totals), by_team(2, pair.second.totals))
    result = MatchResult(
        totals,
        pair.winner,
        forfeit,
        replay_path=data.store_replays(replays),
        logs_path=data.store_json(logs),
    )
    played = PlayedPair(scheduled.match.seats, result.points, result.winner)
    # Counted from the replays as stored (think times rounded to the microsecond), so the
    # tallies equal what anyone recomputes from them.
    by_seat = [seat_statistics(Replay.from_dict(replay.to_dict())) for replay in replays]
    return replace(result, tallies=match_figures(played, scheduled.bot_of, by_seat))
