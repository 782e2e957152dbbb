"""The browser the web's tests drive: Debian's chromium through Playwright's Python package
(never a downloaded browser), and a page that fails its test on a request to any other host,
a script error, or a dialog (markup that ran). Its fixtures are the web's conftest's.

Screenshots of each page go to ``$ARENA_WEB_SCREENSHOTS`` (the README's are made so), else
to the test's temporary directory.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if not CHROMIUM.is_file():
        message = f"no {CHROMIUM} (apt-get install chromium; ./run test does)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            tmp_path_factory.mktemp("chromium-profile"),
            executable_path=str(CHROMIUM),
            args=ARGS,
            headless=True,
            viewport={"width": 1200, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


class Guard:
    """What a page did that it must not: requests elsewhere, script errors and errors on the
    console (a missing favicon, a refused eval), dialogs."""

    def __init__(self) -> None:
        self.foreign: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.refused: set[str] = set()  # pages a test opens expecting an error status

    def console(self, message: Any) -> None:
        if message.type != "error":
            return
        at = message.location.get("url", "")
        if at in self.refused and message.text.startswith("Failed to load resource"):
            return  # the refusal the test asked for, not the page's fault
        self.errors.append(f"{message.text} (at {at})")

    def route(self, route: Any) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            self.foreign.append(route.request.url)
            route.abort()

    def check(self) -> None:
        assert not self.foreign, f"requests to other hosts: {self.foreign}"
        assert not self.errors, f"script errors: {self.errors}"
        assert not self.dialogs, f"dialogs (markup that ran?): {self.dialogs}"


@pytest.fixture
def guarded(browser_context: Any) -> Iterator[tuple[Any, Guard]]:
    guard = Guard()
    page = browser_context.new_page()
    page.route("**/*", guard.route)
    page.on("pageerror", lambda e: guard.errors.append(str(e)))
    page.on("console", guard.console)

    def dialog(d: Any) -> None:
        guard.dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", dialog)
    try:
        yield page, guard
    finally:
        # A routed request still in flight (htmx's polling, say) can make close() wait for
        # its handler for ever: let the handlers go first.
        page.unroute_all(behavior="ignoreErrors")
        page.close()
    guard.check()


@pytest.fixture
def page(guarded: tuple[Any, Guard]) -> Any:
    return guarded[0]


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    wanted = os.environ.get("ARENA_WEB_SCREENSHOTS")
    where = Path(wanted) if wanted else tmp_path_factory.mktemp("screenshots")
    where.mkdir(parents=True, exist_ok=True)
    return where


def by_testid(page: Any, name: str) -> Any:
    return page.locator(f'[data-testid="{name}"]')


def scores(page: Any) -> list[int]:
    return [int(by_testid(page, f"score-{team}").inner_text()) for team in (0, 1)]
