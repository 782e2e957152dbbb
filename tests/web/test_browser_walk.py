"""The pages as a person walks them (issue 26), in the browser: bots by name and linked, the
bots' index, forgiving filters, errors beside the form, the bot page's head, a match's deals
side by side, a phone's width, live parts that ask nothing from a hidden tab, the wording.
Every page checked here also fails its test on an error on the console (``browser.Guard``)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.web.browser import Guard, by_testid
from tests.web.conftest import MARKUP_NAME, Site

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.parametrize("site", ["sqlite"], indirect=True)

PHONE = {"width": 390, "height": 844}


def bot_links(page: Any) -> list[str]:
    """The bots named in ``main``, by the pages they link."""
    links = page.locator('main [data-testid="bot-link"]')
    return [links.nth(i).get_attribute("href") for i in range(links.count())]


def test_a_match_names_its_bots_and_lays_its_deals_side_by_side(
    page: Any, site: Site, shots: Path
) -> None:
    detail = site.json(f"/api/matches/{site.match_id}")
    row = detail["row"]
    a, b = row["seats"][0]["bot"], row["seats"][1]["bot"]
    page.goto(f"{site.url}matches/{site.match_id}")
    # Team A and B by name, each a link to its bot's page; the pair score and winner too.
    assert by_testid(page, "team-a").locator("a").get_attribute("href") == f"/bots/{quote(a)}"
    assert by_testid(page, "team-b").locator("a").get_attribute("href") == f"/bots/{quote(b)}"
    score = by_testid(page, "pair-score").inner_text().replace("\xa0", " ")
    assert score == f"{a} v1 {row['points'][0]} \u2013 {b} v1 {row['points'][1]}"
    winner = {"team A": f"{a} v1", "team B": f"{b} v1"}.get(row["winner"], "draw")
    assert by_testid(page, "winner").inner_text().replace("\xa0", " ") == winner
    assert "team 0" not in page.locator("main").inner_text()
    # Each column follows one team across both games: its sums are the games' totals.
    games = [g["totals"] for g in detail["games"]]
    rows = by_testid(page, "deal-row")
    assert rows.count() == len(detail["deals"]) >= 25
    cells = [
        [int(c) if c.strip() else 0 for c in rows.nth(i).locator("td").all_inner_texts()[1:]]
        for i in range(rows.count())
    ]
    sums = [sum(r[k] for r in cells) for k in range(5)]
    assert sums[:4] == [games[0][0], games[1][1], games[0][1], games[1][0]]
    assert sums[4] == row["points"][0] - row["points"][1]
    assert all(r[4] == r[0] + r[1] - r[2] - r[3] for r in cells)
    page.screenshot(path=shots / "match.png", full_page=True)
    # A deal opens the viewer at that deal.
    rows.nth(4).locator('[data-testid="deal-link"]').nth(1).click()
    page.wait_for_selector('#viewer[data-ready="true"]')
    assert page.url.endswith(f"/matches/{site.match_id}/games/2?deal=5")
    assert page.locator("#viewer").get_attribute("data-deal") == "5"
    # The matches list names and links them too.
    page.goto(f"{site.url}matches")
    assert sorted(set(bot_links(page))) == sorted({f"/bots/{quote(a)}", f"/bots/{quote(b)}"})
    page.screenshot(path=shots / "matches.png", full_page=True)


def test_every_bot_has_a_place_and_filters_forgive(
    guarded: tuple[Any, Guard], site: Site, shots: Path
) -> None:
    page, guard = guarded
    page.goto(f"{site.url}bots/")  # the old dead end
    assert page.url == f"{site.url}bots"
    rows = by_testid(page, "bot-row")
    names = [rows.nth(i).get_attribute("data-bot") for i in range(rows.count())]
    assert sorted(names) == sorted(["crasher", "random", MARKUP_NAME])
    crasher = page.locator('[data-testid="bot-row"][data-bot="crasher"]')
    assert "rejected" in crasher.inner_text()  # a bot with only rejected versions: here
    assert re.search(r"\d+ (s|min|h) ago|\d+ days ago", crasher.inner_text())
    page.screenshot(path=shots / "bots.png", full_page=True)
    by_testid(page, "bots-filter").fill("CRASH")
    by_testid(page, "bots-filter").press("Enter")
    page.wait_for_url("**/bots?q=CRASH")
    assert by_testid(page, "bot-row").count() == 1
    by_testid(page, "bot-link").click()
    assert page.url == f"{site.url}bots/crasher"
    # The matches' bot filter: a list to choose from, and a name as typed, case aside.
    page.goto(f"{site.url}matches")
    options = page.locator("#bot-names option")
    assert sorted(o.get_attribute("value") for o in options.all()) == sorted(names)
    by_testid(page, "bot-filter").fill("  RANDOM ")
    by_testid(page, "bot-filter").press("Enter")
    page.wait_for_selector('[data-testid="match-row"]')
    assert by_testid(page, "bot-filter").input_value() == "random"
    # An unknown one: the error above the form, which keeps what was typed.
    guard.refused.add(f"{site.url}matches?tournament=ladder&status=&bot=nobody")
    by_testid(page, "bot-filter").fill("nobody")
    by_testid(page, "bot-filter").press("Enter")
    page.wait_for_selector('[data-testid="error"]')
    assert by_testid(page, "error").inner_text() == "error: unknown bot 'nobody'"
    assert by_testid(page, "bot-filter").input_value() == "nobody"


def test_a_refusal_offers_sign_in_and_a_wrong_token_keeps_the_form(
    guarded: tuple[Any, Guard], site: Site
) -> None:
    page, guard = guarded
    log = f"{site.url}bots/crasher/versions/1/validation/logs/0"
    guard.refused.add(log)
    assert page.goto(log).status == 403
    assert "sign in with your token" in by_testid(page, "error").inner_text()
    guard.refused.add(f"{site.url}signin")
    by_testid(page, "token").fill("not-a-token")
    by_testid(page, "sign-in-submit").click()
    page.wait_for_selector('[data-testid="error"]')
    assert page.url == f"{site.url}signin" and by_testid(page, "token").count() == 1
    by_testid(page, "token").fill(site.token)
    by_testid(page, "sign-in-submit").click()
    page.wait_for_selector('[data-testid="log"]')
    assert page.url == log  # where the refusal was
    by_testid(page, "sign-out").click()
    page.wait_for_selector('[data-testid="sign-in-link"]')


def test_the_bot_page_heads_with_its_ladder_standing(page: Any, site: Site, shots: Path) -> None:
    [mine] = [
        r for r in json.loads(site.arena.ok("ladder", "--json").stdout) if r["bot"] == "random"
    ]
    page.goto(site.url)  # the interval as the ladder shows it
    entry = page.locator('[data-testid="ladder-row"][data-bot="random"]')
    low, high = entry.locator(".ci").inner_text().split("..")
    page.goto(f"{site.url}bots/random")
    assert by_testid(page, "rank").inner_text() == str(mine["rank"])
    assert by_testid(page, "standing-rating").inner_text() == f"{mine['rating']:.0f}"
    assert by_testid(page, "wdl").inner_text() == f"{mine['wins']}/{mine['draws']}/{mine['losses']}"
    # The chart: the ladder's rating with its interval as a band, labelled.
    assert by_testid(page, "rating-band").count() == 1
    legend = by_testid(page, "chart-legend").inner_text()
    assert f"ladder rating {mine['rating']:.0f} (95%: {low} to {high})" in legend
    assert "sequential Elo after each rated match" in legend
    # Its opponent by name, linked, in head-to-head and its recent matches.
    h2h = by_testid(page, "h2h-row").locator('[data-testid="bot-link"]')
    assert h2h.get_attribute("href") == f"/bots/{quote(MARKUP_NAME)}"
    assert set(bot_links(page)) == {f"/bots/{quote(MARKUP_NAME)}", "/bots/random"}
    page.screenshot(path=shots / "bot.png", full_page=True)


def test_a_phone_scrolls_no_page_sideways(page: Any, site: Site, shots: Path) -> None:
    """At 390x844 no element is wider than the screen but what scrolls in its own box."""
    page.set_viewport_size(PHONE)
    pages = {
        "": "phone-ladder.png",
        "bots": None,
        "bots/random": None,
        "bots/crasher": "phone-bot-rejected.png",
        "matches": None,
        f"matches/{site.match_id}": "phone-match.png",
        f"matches/{site.match_id}/games/1": None,
        "status": None,
    }
    wide = """() => [...document.querySelectorAll('body *')]
        .filter(e => !e.closest('.scroll') && e.getBoundingClientRect().right > innerWidth + 1)
        .map(e => e.tagName + '.' + e.className)"""
    try:
        for path, shot in pages.items():
            page.goto(site.url + path)
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], path
            assert page.evaluate(wide) == [], path
            if shot:
                page.screenshot(path=shots / shot, full_page=True)
    finally:
        page.set_viewport_size({"width": 1200, "height": 900})


def hx_requests(page: Any, seconds: float) -> int:
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.headers.get("hx-request") else None)
    page.wait_for_timeout(seconds * 1000)
    return len(asked)


def test_live_parts_ask_only_while_the_tab_is_visible(
    browser_context: Any, guarded: tuple[Any, Guard], site: Site
) -> None:
    """Polled every second here: a visible ladder asks again and again, without eval (no
    console error: the guard); a hidden one asks nothing."""
    page, _ = guarded
    page.goto(site.url)
    assert hx_requests(page, 3) >= 2
    hidden = browser_context.new_page()
    hidden_guard = Guard()
    hidden.on("console", hidden_guard.console)
    hidden.add_init_script(
        "Object.defineProperty(document, 'visibilityState', {get: () => 'hidden'});"
        "Object.defineProperty(document, 'hidden', {get: () => true});"
    )
    try:
        for path in ("", "status"):
            hidden.goto(site.url + path)
            started = time.monotonic()
            assert hx_requests(hidden, 3) == 0, path
            assert time.monotonic() - started >= 3
    finally:
        hidden.close()
    hidden_guard.check()


def test_the_favicon_the_status_twin_and_the_words(page: Any, site: Site) -> None:
    icon = page.request.get(f"{site.url}favicon.ico")  # where browsers look, whatever links
    assert icon.status == 200 and icon.headers["content-type"] == "image/svg+xml"
    page.goto(site.url)
    assert page.locator('link[rel="icon"]').get_attribute("href") == "/static/favicon.svg"
    status = json.loads(page.goto(f"{site.url}api/status").text())  # test_http: all of it
    assert status["queue_depth"] == 0 and len(status["workers"]) == 1
    page.goto(f"{site.url}status")
    heard = page.locator('[data-testid="worker-row"] td').nth(4).inner_text()
    assert re.fullmatch(r"\d+ (s|min|h) ago|\d+ days ago", heard), heard
    # Every column of the ladder and a match list says what it holds, on hover.
    for path in ("", "matches", "bots"):
        page.goto(site.url + path)
        heads = page.locator("main thead th")
        unexplained = [
            heads.nth(i).inner_text()
            for i in range(heads.count())
            if not heads.nth(i).get_attribute("title")
            and heads.nth(i).inner_text()
            not in ("bot", "owner", "version", "status", "winner", "match")
        ]
        assert unexplained == [], path
