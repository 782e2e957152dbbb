"""Tests marked ``docker`` need a Docker engine: skipped without one, except under CI
(``CI=true``), where a missing engine is a failure, never a silent skip.

Every test is marked with what it needs (the markers are registered in pyproject.toml), from
the fixtures it uses, what it calls and where it is, so that a test file need not say:
``./run test fast`` runs those that need none of them (``-m "not (docker or ...)"``)."""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from pathlib import Path
from types import CodeType
from typing import Any

import pytest
from hypothesis import settings

from arena.sandbox import docker_available

# The ladder's tables are paced (arena/bots/limits.py): a game of fast bots then takes 45 s, not
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


TESTS = Path(__file__).resolve().parent

# Fixtures that start processes (the arena command, bots, a server) or a browser.
FIXTURE_NEEDS = {
    "arena": "subprocess",  # tests/league: runs the real arena command
    "sqlite_arena": "subprocess",
    "site": "subprocess",  # tests/web: a ladder made with the arena command
    "bots": "subprocess",  # tests/sdk: bot processes
    "service": "subprocess",  # tests/service: arena server
    "browser_context": "browser",
}
# Names whose call starts a process: the arena command, an interpreter, a bot, a table of bots.
SPAWNS = {
    "run_arena", "arena_executable", "subprocess", "Popen", "start_bot",
    "open_sandbox", "ProcessSandbox", "TablePipeline", "play_game", "play_many",
}  # fmt: skip
# Where a directory or file needs one whatever it calls.
PATH_NEEDS = {
    "deploy": "deploy",  # compose files, the service's images
    "sdk/test_fresh_venv.py": "network",  # installs the SDK into a new venv
    "replay/test_many.py": "slow",  # 300 games
    "protocol/test_generated.py": "slow",  # runs protoc
}


def _codes(code: CodeType) -> list[CodeType]:
    """A function's code and the code nested in it (closures, comprehensions, lambdas)."""
    nested = [c for const in code.co_consts if isinstance(const, CodeType) for c in _codes(const)]
    return [code, *nested]


_spawning: dict[Callable[..., object], bool] = {}


def _spawns(function: Callable[..., object]) -> bool:
    """Whether ``function`` calls one of ``SPAWNS``, itself or through the tests' own helpers
    (functions and classes of ``tests``) that it names."""
    if function in _spawning:
        return _spawning[function]  # known, or being looked at: a cycle adds nothing
    _spawning[function] = False
    code = getattr(function, "__code__", None)
    names = {name for c in _codes(code) for name in c.co_names} if code else set()
    found = [getattr(function, "__globals__", {}).get(name) for name in names]
    helpers = [
        helper
        for f in found
        if getattr(f, "__module__", "").startswith("tests.")
        for helper in (
            [m for _, m in inspect.getmembers(f, inspect.isfunction)] if inspect.isclass(f) else [f]
        )
    ]
    _spawning[function] = bool(names & SPAWNS) or any(_spawns(h) for h in helpers)
    return _spawning[function]


def _needs(item: pytest.Item) -> set[str]:
    needs = {FIXTURE_NEEDS[f] for f in getattr(item, "fixturenames", ()) if f in FIXTURE_NEEDS}
    where = Path(str(item.path)).resolve()
    if where.is_relative_to(TESTS):
        relative = where.relative_to(TESTS).as_posix()
        needs |= {need for path, need in PATH_NEEDS.items() if relative.startswith(path)}
    # The test's function and its fixtures' (those the tests define), by what they call.
    fixtures = getattr(item, "_fixtureinfo", None)
    defined = fixtures.name2fixturedefs.values() if fixtures is not None else []
    functions = [d.func for defs in defined for d in defs if d.func.__module__.startswith("tests")]
    function = inspect.unwrap(item.function) if isinstance(item, pytest.Function) else None
    if any(_spawns(f) for f in [*functions, *([function] if function else [])]):
        needs.add("subprocess")
    return needs


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for need in sorted(_needs(item)):
            item.add_marker(need)


# ``ARENA_TEST_WORKERS=N ./run test`` runs the suite in N processes (pytest-xdist's ``-n N
# --dist loadfile``): a file is the unit, so its module fixtures are built once. These
# directories are one unit each, all on one worker, one file after another: their files
# share what is expensive to make. tests/web: one served ladder and one browser (session
# fixtures, made once per worker that runs any of it). tests/deploy: each file brings up a
# compose stack (PostgreSQL, a server, the web, workers) of the platform's images; two at once
# would compete for the memory and the minutes their waits allow for.
SHARED_UNITS = ("tests/web/", "tests/deploy/")


def xdist_unit(nodeid: str) -> str:
    """The unit of work a test is in: its file's path, or the one of ``SHARED_UNITS`` it is
    under (node ids are relative to the repository's root)."""
    shared = next((unit for unit in SHARED_UNITS if nodeid.startswith(unit)), None)
    return shared or nodeid.split("::", 1)[0]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile``, with each of ``SHARED_UNITS`` one unit. (xdist's ``loadgroup``
    cannot do it under this pytest: the node ids it sees lack their ``@group``.) Any other
    ``--dist``: None, xdist's own."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling  # only ever called with xdist running

    class SharedUnits(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_unit(nodeid)

    return SharedUnits(config, log)
