"""A replay file in the viewer: ``arena replay view`` serves it, ``arena replay html`` writes
one self-contained HTML file, opened here from ``file://`` in Debian's chromium with every
request refused. Both verify the file first; a bad one is one ``error:`` line, exit 2."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.cli.runner import arena_executable, error_line, run_arena
from tests.web.browser import by_testid, scores


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real game's replay, as ``arena play --replay`` writes it."""
    path = tmp_path_factory.mktemp("replay-file") / "game.json"
    played = run_arena(*["play", "random", "random", "random", "random"], "--seed", 21,
                       "--sandbox", "process", "--replay", path)  # fmt: skip
    assert played.returncode == 0, played.stderr
    return path


def test_the_export_plays_from_a_file_with_no_network(
    browser_context: Any, replay_file: Path, tmp_path: Path, shots: Path
) -> None:
    html = tmp_path / "game.html"
    written = run_arena("replay", "html", replay_file, "-o", html)
    assert written.returncode == 0, written.stderr
    assert written.stdout == f"viewer written to {html}\n"
    text = html.read_text()
    assert not re.search(r"\s(src|href)=", text), "the export refers to another file"
    url = html.as_uri()
    asked: list[str] = []

    def route(r: Any) -> None:
        if r.request.url == url:
            r.continue_()
        else:
            asked.append(r.request.url)
            r.abort()

    errors: list[str] = []
    page = browser_context.new_page()
    try:
        page.route("**/*", route)
        page.on("pageerror", lambda e: errors.append(str(e)))
        # A CSP refusal (an inline part whose hash is wrong) is only said on the console.
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(url)
        page.wait_for_selector('#viewer[data-ready="true"]')
        assert scores(page) == [0, 0]
        page.keyboard.press("End")
        replay = json.loads(replay_file.read_text())
        assert scores(page) == replay["result"]["totals"]
        assert page.locator("#viewer").get_attribute("data-kind") == "final"
        page.keyboard.press("Home")
        assert by_testid(page, "step").inner_text().startswith("step 0 of ")
        page.screenshot(path=shots / "replay-export.png", full_page=True)
    finally:
        page.close()
    assert not asked, f"the export asked for {asked}"
    assert not errors, errors


def _broken(replay_file: Path, tmp_path: Path) -> Path:
    """The replay with its first card played swapped for one the seat does not hold."""
    data = json.loads(replay_file.read_text())
    trick = data["deals"][0]["tricks"][0]
    seat, _ = trick["plays"][0]
    held = set(data["deals"][0]["hands"][seat])
    other = next(c for hand in data["deals"][0]["hands"] for c in hand if c not in held)
    trick["plays"][0] = [seat, other]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("command", ["html", "view"])
def test_a_bad_file_is_one_error_line(command: str, replay_file: Path, tmp_path: Path) -> None:
    (tmp_path / "not.json").write_text("{deals")
    cases = {
        tmp_path / "missing.json": "cannot read: No such file or directory",
        tmp_path / "not.json": "not JSON: ",
        _broken(replay_file, tmp_path): "",  # the verifier's words
    }
    output = tmp_path / "out.html"
    for path, problem in cases.items():
        more = ["-o", output] if command == "html" else ["--listen", "127.0.0.1:0"]
        result = run_arena("replay", command, path, *more)
        assert result.returncode == 2, result.stdout
        assert error_line(result).startswith(f"error: {path}: {problem}")
        assert not output.exists()
        assert result.stdout == ""


def test_view_serves_the_same_viewer_and_the_file(replay_file: Path) -> None:
    proc = subprocess.Popen(
        [str(arena_executable()), "replay", "view", str(replay_file), "--listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.fullmatch(r"serving game\.json at (http://127\.0\.0\.1:\d+/)\n", line)
        assert found, line
        with urllib.request.urlopen(found.group(1), timeout=30) as r:
            assert "script-src 'self'" in r.headers["Content-Security-Policy"]
            page = r.read().decode()
        assert '<script type="module" src="/static/replay.js">' in page
        assert 'data-testid="download"' in page
        with urllib.request.urlopen(found.group(1) + "replay.json", timeout=30) as r:
            assert json.loads(r.read()) == json.loads(replay_file.read_text())
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
