"""``arena check-bot``: every sample bot passes it (random_js served as its author runs it,
until the platform starts node bots itself); a bot built to break each rule fails it, with
that rule named and nothing else failed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.bots import manifest
from arena.play.bot_specs import SAMPLE_BOTS, sample_bot_names
from arena.play.conformance import RULE_NAMES
from tests.cli.runner import run_arena
from tests.sdk_js.test_sdk_js import random_js  # noqa: F401 (a fixture)

BOTS = Path(__file__).resolve().parent / "bots"
# Each test bot and the one rule it breaks (tests/conformance/bots/NAME/bot.py says how).
BREAKS = {
    "no_start": "hello",
    "illegal_bid": "legal-bid",
    "illegal_play": "legal-play",
    "malformed": "well-formed",
    "slow": "in-time",
    "crash": "no-crash",
    "deaf": "notifications",
}
# The slow bot sleeps 3 s: far beyond these, and the check stays short.
TIGHT = ("--move-ms", 200, "--bank-ms", 300)


def verdicts(stdout: str) -> dict[str, str]:
    found = re.findall(r"^(ok|FAIL|not asked|not checked) +([a-z-]+) ", stdout, re.M)
    return {rule: verdict for verdict, rule in found}


def test_every_rule_is_broken_by_one_test_bot() -> None:
    assert sorted(BREAKS.values()) == sorted(RULE_NAMES)


@pytest.mark.parametrize("bot", sorted(BREAKS))
def test_a_bot_that_breaks_a_rule_fails_the_check_on_that_rule(bot: str, tmp_path: Path) -> None:
    result = run_arena("check-bot", BOTS / bot, "--sandbox", "none", *TIGHT, "--logs", tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    found = verdicts(result.stdout)
    assert sorted(found) == sorted(RULE_NAMES), result.stdout
    assert [rule for rule, verdict in found.items() if verdict == "FAIL"] == [BREAKS[bot]]
    assert result.stderr.endswith(f"fails the check: {BREAKS[bot]}\n"), result.stderr
    assert re.search(r"^ +where: ", result.stdout, re.M), result.stdout
    assert list(tmp_path.glob("start*.log")), "the bot's output is kept"
    if bot == "no_start":  # its last words, under the rule
        assert "| cannot start: a missing data file" in result.stdout, result.stdout


def built_in_containers(name: str) -> bool:
    """A sample with a build step: built and run in containers, whatever compilers the
    host has (the build image has them all)."""
    return manifest.read(SAMPLE_BOTS / name).build is not None


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=[pytest.mark.docker] if built_in_containers(name) else [])
        for name in sample_bot_names()
    ],
)
def test_every_sample_bot_passes(name: str) -> None:
    sandbox = "docker" if built_in_containers(name) else "none"
    result = run_arena("check-bot", name, "--sandbox", sandbox)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "FAIL" not in result.stdout and "not checked" not in result.stdout
    assert result.stdout.endswith(f"{name} passes the check\n")


def test_random_js_passes(random_js: str) -> None:  # noqa: F811
    result = run_arena("check-bot", random_js)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "(already running)" in result.stdout
    assert verdicts(result.stdout)["legal-play"] == "ok"


def test_bad_input_is_one_error_line() -> None:
    result = run_arena("check-bot", "no-such-bot")
    assert result.returncode == 2
    assert result.stderr.startswith("error: unknown bot 'no-such-bot'")
    assert result.stderr.count("\n") == 1
    negative = run_arena("check-bot", "random", "--move-ms", 0)
    assert negative.returncode == 2 and negative.stderr.startswith("error: limit move_ms")
    file = Path(__file__)
    not_a_dir = run_arena("check-bot", "random", "--logs", file)
    assert not_a_dir.returncode == 2
    assert not_a_dir.stderr == f"error: --logs {file}: not a directory\n"
