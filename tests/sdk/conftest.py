"""Fixtures for the SDK tests: ``bots`` starts bot processes and stops them afterwards."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .botproc import RunningBot, start_bot

StartBot = Callable[..., RunningBot]


@pytest.fixture
def bots(tmp_path: Path) -> Iterator[StartBot]:
    """``bots(source, name="bot", port=None)``: write ``source`` as ``<tmp>/<name>/bot.py``,
    start it, and return the ``RunningBot`` once it listens. Every bot is stopped at the
    end of the test, whatever happened."""
    started: list[RunningBot] = []

    def start(source: str, name: str = "bot", **kwargs: object) -> RunningBot:
        bot = start_bot(tmp_path / name, source, **kwargs)  # type: ignore[arg-type]
        started.append(bot)
        return bot

    yield start
    for bot in started:
        bot.kill()
