"""The suite's units of work when it runs in processes (``ARENA_TEST_WORKERS``): a file, but
one unit for each directory whose files share what is expensive to make (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SHARED_UNITS, xdist_unit

ROOT = Path(__file__).resolve().parents[2]


def test_each_shared_unit_is_a_directory_of_tests() -> None:
    for unit in SHARED_UNITS:
        assert unit.endswith("/") and sorted((ROOT / unit).glob("test_*.py")), unit


def test_a_shared_directory_s_tests_are_one_unit_and_other_files_one_each() -> None:
    web = [
        "tests/web/test_http.py::test_the_ladder_page[sqlite]",
        "tests/web/test_browser.py::test_a_replay_plays[postgres]",
        "tests/web/conftest.py::tests.web.conftest",  # a doctest, say
    ]
    assert {xdist_unit(nodeid) for nodeid in web} == {"tests/web/"}
    assert xdist_unit("tests/deploy/test_up.py::test_x") == "tests/deploy/"
    assert xdist_unit("tests/deploy/test_upgrade.py::test_y") == "tests/deploy/"
    assert xdist_unit("tests/referee/test_pace.py::test_z[1]") == "tests/referee/test_pace.py"
    assert xdist_unit("tests/webs/test_a.py::test_b") == "tests/webs/test_a.py"
    assert xdist_unit("arena/engine/state.py::arena.engine.state.GameState") == (
        "arena/engine/state.py"
    )
