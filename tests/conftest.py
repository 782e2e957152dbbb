"""Tests marked ``docker`` need a Docker engine: skipped without one, except under CI
(``CI=true``), where a missing engine is a failure, never a silent skip."""

from __future__ import annotations

import functools
import os

import pytest
from hypothesis import settings

from arena.sandbox import docker_available

# The ladder's tables are paced (arena/limits.py): a game of fast bots then takes 45 s, not
# 2. Tests of anything else play their ladders unpaced; tests/referee/test_pace.py sets its own.
os.environ.setdefault("ARENA_LADDER_PACE_MS", "0")

# No deadline on property tests: an example's time is the shared machine's load, not a
# property of the code (timings belong in bench/, never in assertions).
settings.register_profile("arena", deadline=None)
settings.load_profile("arena")


@functools.cache
def _engine_answers() -> bool:
    return docker_available()


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("docker") is None or _engine_answers():
        return
    message = "no Docker engine answers (DOCKER_HOST or the local socket)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}, and CI=true: docker tests must run")
    pytest.skip(message)
