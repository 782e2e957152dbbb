"""The pages in a real browser (``tests/web/browser.py``: Debian's chromium, driven by
Playwright's Python package), against the app served on 127.0.0.1. Every test fails on a
request to any other host, a script error on the page, or a dialog (markup that ran)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser import Guard, by_testid, scores
from tests.web.conftest import HOSTILE_LOG_LINE, MARKUP_NAME, Site

playwright = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.parametrize("site", ["sqlite"], indirect=True)


def open_viewer(page: Any, site: Site, game: int, query: str = "") -> None:
    page.goto(f"{site.url}matches/{site.match_id}/games/{game}{query}")
    page.wait_for_selector('#viewer[data-ready="true"]')


def test_ladder_rows_are_the_cli_s_and_names_are_text(page: Any, site: Site, shots: Path) -> None:
    page.goto(site.url)
    rows = page.locator('[data-testid="ladder-row"]')
    cli = json.loads(site.arena.ok("ladder", "--json").stdout)
    assert [rows.nth(i).get_attribute("data-bot") for i in range(rows.count())] == [
        row["bot"] for row in cli
    ]
    # The markup name is a link's text, not a script element.
    assert page.get_by_role("link", name=MARKUP_NAME).count() == 1
    assert page.locator("main script").count() == 0
    page.screenshot(path=shots / "ladder.png", full_page=True)


def test_the_ladder_refreshes_itself(page: Any, site: Site) -> None:
    page.goto(site.url)
    with page.expect_response(lambda r: r.request.headers.get("hx-request") == "true"):
        pass  # polled every second in these tests; the fragment replaces the table
    page.wait_for_selector('[data-testid="ladder-row"]')
    assert page.locator("#ladder").count() == 1


def test_a_rejected_version_shows_its_reason(page: Any, site: Site, shots: Path) -> None:
    page.goto(f"{site.url}bots/crasher")
    row = page.locator('[data-testid="version-row"]')
    assert row.locator(".status-rejected").inner_text() == "rejected"
    reason = row.locator('[data-testid="reason"]').inner_text()
    assert "<b>crashed</b> on purpose" in reason  # as text: the tags are shown, not applied
    # Its escape, bell and right-to-left override as escapes: nothing reversed or rung.
    assert "on purpose\\x1b[2J\\x07\\u202edesrever" in reason
    assert not {"\x1b", "\x07", "\u202e"} & set(reason)
    assert page.locator("main b").count() == 0
    page.screenshot(path=shots / "bot-rejected.png", full_page=True)
    # Its validation game opens in the viewer, and ends at the crash.
    row.locator('[data-testid="validation-link"]').click()
    page.wait_for_selector('#viewer[data-ready="true"]')
    assert page.url == f"{site.url}bots/crasher/versions/1/validation"
    page.keyboard.press("End")
    assert "(crash)" in page.locator('[data-testid="forfeit"]').inner_text()


def test_bot_page_and_match_pages(page: Any, site: Site, shots: Path) -> None:
    """Their screenshots: test_browser_walk.py's."""
    page.goto(f"{site.url}bots/random")
    assert by_testid(page, "rating-chart").locator("polyline").count() == 1
    page.goto(f"{site.url}matches")
    assert by_testid(page, "match-row").count() == 1
    page.goto(f"{site.url}matches/{site.match_id}")
    by_testid(page, "replay-link").first.click()
    page.wait_for_selector('#viewer[data-ready="true"]')
    assert scores(page) == [0, 0]
    page.goto(f"{site.url}status")
    page.screenshot(path=shots / "status.png", full_page=True)


def deal_ends(replay: dict[str, Any]) -> dict[int, tuple[int, list[int]]]:
    """The viewer's step at the end of each scored deal, by the replay format alone (a step
    per action: the deal, the joker swap, each bid, each card, the score)."""
    ends = {}
    step = -1
    for deal in replay["deals"]:
        step += 1 + bool(deal["joker_swap"]) + len(deal["bids"])
        step += sum(len(trick["plays"]) for trick in deal["tricks"])
        if deal.get("redeal"):
            step += 1
        elif deal["totals"] is not None:
            step += 1
            ends[step] = (deal["number"], deal["totals"])
    return ends


def test_stepping_through_a_whole_game_shows_the_replay_s_totals(
    page: Any, site: Site, shots: Path
) -> None:
    game = 1  # the second is the same viewer over the same format
    replay = site.json(f"/api/matches/{site.match_id}/games/{game}/replay")
    ends = deal_ends(replay)
    assert len(ends) >= 25
    open_viewer(page, site, game)
    assert scores(page) == [0, 0]
    viewer = page.locator("#viewer")
    slider = by_testid(page, "slider")
    last = int(slider.get_attribute("max"))
    assert last == max(ends) + 1  # then the final step
    seen = []
    for step in range(1, last + 1):
        page.keyboard.press("ArrowRight")
        if step in ends:
            assert viewer.get_attribute("data-kind") == "end"
            seen.append((int(viewer.get_attribute("data-deal")), scores(page)))
        if step == last // 2:
            page.screenshot(path=shots / "replay.png", full_page=True)
    assert seen == list(ends.values())
    assert scores(page) == replay["result"]["totals"]
    assert viewer.get_attribute("data-kind") == "final"
    assert slider.input_value() == str(last)
    by_testid(page, "next").click()  # past the end: stays
    by_testid(page, "prev").click()
    assert by_testid(page, "step").inner_text() == f"step {last - 1} of {last}"


def test_the_keyboard_and_the_url(page: Any, site: Site) -> None:
    replay = site.json(f"/api/matches/{site.match_id}/games/1/replay")
    open_viewer(page, site, 1)
    page.keyboard.press("End")
    assert scores(page) == replay["result"]["totals"]
    page.keyboard.press("Home")
    assert scores(page) == [0, 0]
    assert by_testid(page, "step").inner_text().startswith("step 0 of ")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert by_testid(page, "step").inner_text().startswith("step 2 of ")
    page.keyboard.press("ArrowLeft")
    assert by_testid(page, "step").inner_text().startswith("step 1 of ")
    page.keyboard.press(" ")  # plays
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=step]').textContent.startsWith('step 1 ')"
    )
    page.keyboard.press(" ")  # pauses
    assert by_testid(page, "play").inner_text() == "▶ play"
    # A URL opens at a deal and a step within it; the deal's running totals are the last's.
    open_viewer(page, site, 1, "?deal=3&step=0")
    assert page.locator("#viewer").get_attribute("data-deal") == "3"
    scored = [d for d in replay["deals"] if d.get("totals") and d["number"] == 2]
    assert scores(page) == scored[-1]["totals"]


def test_a_seat_s_view_hides_the_other_hands(page: Any, site: Site) -> None:
    replay = site.json(f"/api/matches/{site.match_id}/games/1/replay")
    open_viewer(page, site, 1)
    hands = [by_testid(page, f"hand-{seat}") for seat in range(4)]
    assert all(hand.locator(".card").count() == 13 for hand in hands)
    by_testid(page, "view").select_option("1")
    for seat, hand in enumerate(hands):
        if seat == 1:
            shown = sorted(c.get_attribute("data-card") for c in hand.locator(".card").all())
            assert shown == sorted(replay["deals"][0]["hands"][1])
        else:
            assert hand.get_attribute("data-hidden") == "true"
            assert hand.locator(".card").count() == 0
            assert hand.inner_text() == "13 cards"


def test_a_request_elsewhere_is_caught(guarded: tuple[Any, Guard], site: Site) -> None:
    """The guard itself: a request to another host is stopped and reported."""
    page, guard = guarded
    with pytest.raises(playwright.Error):
        page.goto("http://example.invalid/")
    assert guard.foreign == ["http://example.invalid/"]
    guard.foreign.clear()


def test_an_owner_signs_in_and_reads_her_bot_s_log(
    guarded: tuple[Any, Guard], site: Site, shots: Path
) -> None:
    page, guard = guarded
    page.goto(f"{site.url}matches/{site.match_id}")
    assert by_testid(page, "log-link").count() == 0
    by_testid(page, "sign-in-link").click()
    by_testid(page, "token").fill(site.token)
    by_testid(page, "sign-in-submit").click()
    page.wait_for_selector('[data-testid="signed-in"]')
    assert by_testid(page, "signed-in").inner_text() == "signed in as alice"
    assert page.url == f"{site.url}matches/{site.match_id}"  # back where she was
    links = by_testid(page, "log-link")
    assert links.count() == 8
    href = links.first.get_attribute("href")
    links.first.click()
    assert "serving on" in by_testid(page, "log").inner_text()
    page.screenshot(path=shots / "log.png", full_page=True)
    # HttpOnly: the page's scripts can't see the session.
    assert page.evaluate("document.cookie") == ""
    by_testid(page, "sign-out").click()
    page.wait_for_selector('[data-testid="sign-in-link"]')
    # Another user signs in: no links, and the log itself is refused.
    page.goto(f"{site.url}signin")
    by_testid(page, "token").fill(site.arena.user("carol"))
    by_testid(page, "sign-in-submit").click()
    page.wait_for_selector('[data-testid="signed-in"]')
    page.goto(f"{site.url}matches/{site.match_id}")
    assert by_testid(page, "log-link").count() == 0
    guard.refused.add(site.url + href.lstrip("/"))
    refused = page.goto(site.url + href.lstrip("/"))
    assert refused is not None and refused.status == 403
    assert "has none of your bots" in by_testid(page, "error").inner_text()
    by_testid(page, "sign-out").click()


def test_a_log_line_with_markup_and_an_escape_is_shown_inert(
    page: Any, site: Site, shots: Path
) -> None:
    """The rejected crasher wrote ``HOSTILE_LOG_LINE`` to its log: its owner reads it, on its
    validation game's log page, as text; the terminal escape as the escape ``arena logs``
    prints, not the control character; and no script ran (the page's guard fails a dialog)."""
    page.goto(f"{site.url}signin")
    by_testid(page, "token").fill(site.token)
    by_testid(page, "sign-in-submit").click()
    page.wait_for_selector('[data-testid="signed-in"]')
    page.goto(f"{site.url}bots/crasher")
    by_testid(page, "validation-log").first.click()
    page.wait_for_selector('[data-testid="log"]')
    assert page.url == f"{site.url}bots/crasher/versions/1/validation/logs/0"
    shown = by_testid(page, "log").inner_text()
    assert "\\x1b[31m<script>alert(2)</script>\\x1b[0m ready" in shown.splitlines()
    assert "\x1b" not in shown and HOSTILE_LOG_LINE not in shown
    assert page.locator("main script").count() == 0
    assert by_testid(page, "log").locator("*").count() == 0  # text only, no element
    page.screenshot(path=shots / "log-inert.png", full_page=True)
    by_testid(page, "sign-out").click()
    page.wait_for_selector('[data-testid="sign-in-link"]')
