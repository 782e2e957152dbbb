"""``TablePipeline``: a game's bots start once the game before has begun (never while that
game's own bots are still starting), a game added late starts at once when it is due, and
the bots of a game that will not be played are stopped; a start put off (``spread_s``)
ends when its game wants its table, and never happens once cancelled; a played table is
torn down in the background, its logs kept first, and closing waits for it. Real bots,
process sandbox."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.bots.limits import Limits
from arena.play.bot_specs import SAMPLE_BOTS, BotSpec
from arena.play.tables import (
    GameSettings,
    Table,
    TablePipeline,
    add_games,
    referee_table,
    start_table,
)
from arena.sandbox import Sandbox, open_sandbox

BOTS = tuple(BotSpec("random", SAMPLE_BOTS / "random") for _ in range(4))


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    opened = open_sandbox("process")
    try:
        yield opened
    finally:
        opened.close()


class Starts:
    """Starts real tables, and keeps each one it started, in order."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.tables: list[Table] = []

    def start(self) -> Table:
        table = start_table(BOTS, self.sandbox, Limits())
        self.tables.append(table)
        return table

    def until(self, count: int) -> None:
        deadline = time.monotonic() + 30
        while len(self.tables) < count:
            assert time.monotonic() < deadline, f"{len(self.tables)} tables started, not {count}"
            time.sleep(0.01)


def playing(pipeline: TablePipeline, index: int, starts: Starts) -> Callable[[], None]:
    table = pipeline.take(index)
    assert table is starts.tables[-1]
    return table.stop


def test_the_next_table_starts_once_the_game_before_has_begun(sandbox: Sandbox) -> None:
    starts = Starts(sandbox)
    pipeline = TablePipeline(ahead=1)
    try:
        first, second = pipeline.add(starts.start), pipeline.add(starts.start)
        assert (first, second) == (0, 1)
        stop_first = playing(pipeline, first, starts)
        time.sleep(0.5)
        assert len(starts.tables) == 1  # its bots starting, game 1 not begun: nothing ahead
        pipeline.begun(first)
        starts.until(2)
        ahead = starts.tables[1]
        stop_first()
        assert pipeline.take(second) is ahead  # started ahead, not again
        assert len(starts.tables) == 2
        ahead.stop()
    finally:
        pipeline.close()


def test_a_game_added_late_starts_at_once_and_a_dropped_one_is_stopped(sandbox: Sandbox) -> None:
    starts = Starts(sandbox)
    pipeline = TablePipeline(ahead=1)
    try:
        stop_first = playing(pipeline, pipeline.add(starts.start), starts)
        pipeline.begun(0)
        late = pipeline.add(starts.start)  # a worker's next match, claimed as game 1 plays
        starts.until(2)
        dropped = starts.tables[1]
        pipeline.drop(late)  # the match in hand failed: its next game will not be played
        assert all(bot.died() is not None for bot in dropped.running)
        assert not Path(dropped.scratch.name).exists()
        stop_first()
        pipeline.begun(late)  # a dropped game is never started again
        time.sleep(0.5)
        assert len(starts.tables) == 2
    finally:
        pipeline.close()


def test_a_table_put_off_starts_when_its_game_wants_it_and_never_once_cancelled(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "arena.play.tables.random.uniform", lambda low, high: high
    )  # the longest wait
    starts = Starts(sandbox)
    pipeline = TablePipeline(ahead=1, spread_s=120)
    try:
        first, second, third = (pipeline.add(starts.start) for _ in range(3))
        stop_first = playing(pipeline, first, starts)
        pipeline.begun(first)  # the second table is due, and waits its two minutes
        time.sleep(0.5)
        assert len(starts.tables) == 1
        stop_first()
        waited = time.monotonic()
        stop_second = playing(pipeline, second, starts)  # its game wants it: it starts now
        assert time.monotonic() - waited < 60
        pipeline.begun(second)  # the third is due and waits, but its match fails
        pipeline.drop(third)
        stop_second()
        pipeline.begun(third)
        time.sleep(0.5)
        assert len(starts.tables) == 2
    finally:
        pipeline.close()


def test_closing_cancels_a_table_put_off(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("arena.play.tables.random.uniform", lambda low, high: high)
    starts = Starts(sandbox)
    pipeline = TablePipeline(ahead=1, spread_s=120)
    first, _ = pipeline.add(starts.start), pipeline.add(starts.start)
    stop_first = playing(pipeline, first, starts)
    pipeline.begun(first)
    stop_first()
    closing = time.monotonic()
    pipeline.close()  # the run ends: the table waiting its two minutes never starts
    assert time.monotonic() - closing < 60
    assert len(starts.tables) == 1


TALKER = """
from arena_sdk import Bot, run


class Talker(Bot):
    name = "talker"

    def bid(self, obs):
        return obs.legal_bids[0]

    def play(self, obs):
        print("played", obs.legal_plays[0])
        return obs.legal_plays[0]


run(Talker())
"""


def test_a_played_table_is_torn_down_in_the_background(sandbox: Sandbox, tmp_path: Path) -> None:
    (tmp_path / "talker").mkdir()
    (tmp_path / "talker" / "bot.py").write_text(TALKER)
    bots = tuple(BotSpec("talker", tmp_path / "talker") for _ in range(4))
    pipeline = TablePipeline(ahead=1)
    busy = threading.Event()

    def hold() -> None:  # the stopper is busy: this game's tear-down waits its turn
        busy.wait(60)

    try:
        pipeline.later(hold)
        (index,) = add_games(pipeline, [bots], sandbox, Limits())
        table = pipeline.take(index)
        settings = GameSettings(logs_dir=tmp_path / "logs")
        game = referee_table(table, 7, settings, tear_down=pipeline.later)
        assert game.outcome.forfeit is None
        assert all(bot.died() is None for bot in table.running)  # not stopped yet
        assert all("played" in log.read_text() for log in game.logs)  # kept as the game left them
    finally:
        busy.set()
        pipeline.close()
    assert all(bot.died() is not None for bot in table.running)
    assert not Path(table.scratch.name).exists()


def test_a_tear_down_that_fails_is_logged_and_closing_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def fails() -> None:
        raise OSError("scratch directory busy")

    pipeline = TablePipeline(ahead=1)
    pipeline.later(fails)
    with caplog.at_level(logging.WARNING, logger="arena.play.tables"):
        pipeline.close()
    assert "not torn down cleanly: OSError: scratch directory busy" in caplog.text
