"""The replay viewer as a card table, in a real browser (``tests/web/browser.py``), over the
served ladder's match (heuristic, which notes its bids and leads, against random) and its
rejected version's validation game: the cards in front of the seats, the seat to act, the
last trick kept, the trick list, names, the winner, controls in sight at 1366x657, no page
wider than a 390x844 phone, out-of-range steps, opening at a fault, and the bots' notes
shown to their owner alone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser import by_testid
from tests.web.conftest import Site

playwright = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.parametrize("site", ["sqlite"], indirect=True)

LAPTOP = {"width": 1366, "height": 657}  # a 1366x768 screen's browser window
PHONE = {"width": 390, "height": 844}


def open_viewer(page: Any, path: str, query: str = "") -> None:
    page.goto(path + query)
    page.wait_for_selector('#viewer[data-ready="true"]')


def frame_starts(replay: dict[str, Any]) -> list[int]:
    """The viewer's step at which each dealing begins (a step per action: the deal, the
    joker swap, each bid, each card, the score or the redeal)."""
    starts, step = [], 0
    for deal in replay["deals"]:
        starts.append(step)
        step += 1 + bool(deal["joker_swap"]) + len(deal["bids"])
        step += sum(len(trick["plays"]) for trick in deal["tricks"])
        step += 1 if deal.get("redeal") or deal["totals"] is not None else 0
    return starts


def step_in_deal(replay: dict[str, Any], dealing: int, offset: int) -> tuple[int, int]:
    """``?deal=N&step=K`` for the step ``offset`` steps into the ``dealing``-th dealing."""
    starts = frame_starts(replay)
    number = replay["deals"][dealing]["number"]
    first = next(i for i, d in enumerate(replay["deals"]) if d["number"] == number)
    return number, starts[dealing] + offset - starts[first]


def plays_before(deal: dict[str, Any]) -> int:
    return 1 + bool(deal["joker_swap"]) + len(deal["bids"])


def played(page: Any) -> dict[int, str]:
    """The card in front of each seat, as shown."""
    shown = {}
    for seat in range(4):
        card = by_testid(page, f"played-{seat}").locator(".card")
        if card.count():
            shown[seat] = card.get_attribute("data-card")
    return shown


def to_act(page: Any) -> list[int]:
    marked = [page.locator(f".seat-{s}").get_attribute("data-to-act") for s in range(4)]
    return [seat for seat, mark in enumerate(marked) if mark == "true"]


@pytest.fixture
def laptop(page: Any) -> Any:
    page.set_viewport_size(LAPTOP)
    return page


def test_a_trick_is_laid_out_around_the_table(laptop: Any, site: Site, shots: Path) -> None:
    page = laptop
    replay = site.json(f"/api/matches/{site.match_id}/games/1/replay")
    names = [p["name"] for p in replay["players"]]
    dealing = next(i for i, d in enumerate(replay["deals"]) if len(d["tricks"]) >= 2)
    deal = replay["deals"][dealing]
    first, second = deal["tricks"][0], deal["tricks"][1]
    number, step = step_in_deal(replay, dealing, plays_before(deal) + 3)  # trick 1's 4th card
    open_viewer(page, f"{site.url}matches/{site.match_id}/games/1", f"?deal={number}&step={step}")
    assert played(page) == {seat: card for seat, card in first["plays"]}
    winner = first["winner"]
    assert page.locator(".slot.winner").get_attribute("data-testid") == f"played-{winner}"
    assert to_act(page) == [winner]  # who takes the trick leads the next
    assert f"{names[winner]} (seat {winner}) takes it" in by_testid(page, "trick").inner_text()
    page.screenshot(path=shots / "replay-laptop.png")
    # The bidding by name; the trick list links each trick to its last card.
    bidding = by_testid(page, "bidding").inner_text()
    assert all(f"{names[b['seat']]} (seat {b['seat']})" in bidding for b in deal["bids"])
    page.keyboard.press("ArrowRight")  # the next lead: the finished trick goes
    leader, card = second["plays"][0]
    assert played(page) == {leader: card}
    assert to_act(page) == [(leader + 1) % 4]
    links = by_testid(page, "trick-link")
    assert links.count() == 2
    links.first.click()
    assert played(page) == {seat: card for seat, card in first["plays"]}
    fourth = frame_starts(replay)[dealing] + plays_before(deal) + 3
    assert by_testid(page, "step").inner_text().startswith(f"step {fourth} ")
    # The deal's score keeps its last trick on the table.
    by_testid(page, "next-deal").click()
    page.keyboard.press("ArrowLeft")
    assert page.locator("#viewer").get_attribute("data-kind") in ("end", "redeal")
    if page.locator("#viewer").get_attribute("data-kind") == "end":
        assert played(page) == {seat: card for seat, card in deal["tricks"][-1]["plays"]}
        assert to_act(page) == []


def test_the_end_names_the_winner_and_the_controls_stay_in_sight(laptop: Any, site: Site) -> None:
    page = laptop
    replay = site.json(f"/api/matches/{site.match_id}/games/1/replay")
    names = [p["name"] for p in replay["players"]]
    open_viewer(page, f"{site.url}matches/{site.match_id}/games/1")
    controls = by_testid(page, "controls")
    for scroll in (0, 10_000):  # the top of the page, then its bottom
        page.evaluate(f"window.scrollTo(0, {scroll})")
        box = controls.bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= LAPTOP["height"], (scroll, box)
        assert by_testid(page, "next").is_visible() and by_testid(page, "slider").is_visible()
    page.keyboard.press("End")
    result = by_testid(page, "result")
    totals, winner = replay["result"]["totals"], replay["result"]["winner"]
    if winner is None:
        assert result.inner_text().startswith("final: a draw")
    else:
        pair = {names[winner], names[winner + 2]}
        team = names[winner] if len(pair) == 1 else f"{names[winner]} & {names[winner + 2]}"
        assert result.inner_text().startswith(
            f"final: {team} wins, {totals[winner]} to {totals[1 - winner]}"
        )
    assert by_testid(page, "team-0").inner_text() in (names[0], f"{names[0]} & {names[2]}")


def test_out_of_range_steps_land_on_the_nearest_with_a_note(laptop: Any, site: Site) -> None:
    page = laptop
    replay = site.json(f"/api/matches/{site.match_id}/games/1/replay")
    path = f"{site.url}matches/{site.match_id}/games/1"
    viewer, notice = page.locator("#viewer"), by_testid(page, "notice")
    open_viewer(page, path, "?deal=3&step=999")
    assert viewer.get_attribute("data-deal") == "3"
    third = [d for d in replay["deals"] if d["number"] == 3]
    assert viewer.get_attribute("data-kind") == ("end" if third[-1]["totals"] else "redeal")
    assert notice.is_visible() and "deal 3 has steps 0 to " in notice.inner_text()
    open_viewer(page, path, "?deal=99")
    assert viewer.get_attribute("data-deal") == str(replay["deals"][-1]["number"])
    assert "no deal 99" in notice.inner_text()
    open_viewer(page, path, "?step=99999")  # a step of the whole game
    assert viewer.get_attribute("data-kind") in ("final", "forfeit")
    assert "this game has steps 0 to " in notice.inner_text()
    open_viewer(page, path, "?deal=2&step=1")
    assert notice.is_hidden() and viewer.get_attribute("data-deal") == "2"
    # "1 card", not "1 cards"
    open_viewer(page, path, "?deal=13&step=0")
    assert "deal 13: 1 card," in by_testid(page, "where").inner_text()


def test_a_forfeited_game_opens_at_the_fault(laptop: Any, site: Site) -> None:
    page = laptop
    replay = site.json("/api/bots/crasher/versions/1/validation/replay")
    fault = replay["result"]["forfeit"]
    open_viewer(page, f"{site.url}bots/crasher/versions/1/validation")
    assert page.locator("#viewer").get_attribute("data-kind") == "forfeit"
    assert "(crash)" in by_testid(page, "forfeit").inner_text()
    assert to_act(page) == [fault["seat"]]


@pytest.mark.parametrize("path", ["matches/{match}/games/2", "bots/crasher/versions/1/validation"])
def test_no_page_wider_than_a_phone(page: Any, site: Site, path: str, shots: Path) -> None:
    page.set_viewport_size(PHONE)
    open_viewer(page, site.url + path.format(match=site.match_id), "?deal=1&step=8")
    if path.startswith("matches"):
        page.screenshot(path=shots / "replay-phone.png", full_page=True)
    for _ in range(3):  # a few steps: the cards in front of the seats too
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], width
        wide = page.evaluate(
            "[...document.querySelectorAll('#viewer *')].filter("
            "e => e.getBoundingClientRect().right > innerWidth + 1).length"
        )
        assert wide == 0
        page.keyboard.press("ArrowRight")


def notes_of(replay: dict[str, Any]) -> list[tuple[int, int, str]]:
    """Each note as (dealing, step within the dealing, text)."""
    found = []
    for i, deal in enumerate(replay["deals"]):
        offset = 1 + bool(deal["joker_swap"])
        found += [(i, offset + k, b["note"]) for k, b in enumerate(deal["bids"]) if "note" in b]
        offset += len(deal["bids"])
        for trick in deal["tricks"]:
            for k, note in enumerate(trick.get("notes") or [None] * len(trick["plays"])):
                if note is not None:
                    found.append((i, offset + k, note))
            offset += len(trick["plays"])
    return found


@pytest.fixture
def signed_in(page: Any, site: Site) -> Iterator[Any]:
    """``sign_in(token)`` in the shared browser; signed out again at the end."""

    def sign_in(token: str) -> None:
        page.goto(f"{site.url}signin")
        by_testid(page, "token").fill(token)
        by_testid(page, "sign-in-submit").click()
        page.wait_for_selector('[data-testid="signed-in"]')

    try:
        yield sign_in
    finally:
        page.goto(site.url)
        if by_testid(page, "sign-out").count():
            by_testid(page, "sign-out").click()
            page.wait_for_selector('[data-testid="sign-in-link"]')


def test_a_bot_s_notes_are_shown_to_its_owner_alone(page: Any, site: Site, signed_in: Any) -> None:
    path = f"{site.url}matches/{site.match_id}/games/1"
    public = site.json(f"/api/matches/{site.match_id}/games/1/replay")
    assert notes_of(public) == []  # the public replay carries none
    open_viewer(page, path)
    embedded = page.evaluate("JSON.parse(document.getElementById('replay-data').textContent)")
    assert notes_of(embedded) == []
    signed_in(site.token)  # alice owns both bots
    open_viewer(page, path)
    mine = page.evaluate("JSON.parse(document.getElementById('replay-data').textContent)")
    noted = notes_of(mine)
    assert noted, "the heuristic sample bot notes its bids"
    dealing, offset, text = noted[0]
    number, step = step_in_deal(mine, dealing, offset)
    open_viewer(page, path, f"?deal={number}&step={step}")
    assert by_testid(page, "note").inner_text() == f"✎ {text}"
    fetched = page.evaluate(
        f"fetch('/api/matches/{site.match_id}/games/1/replay').then(r => r.json())"
    )
    assert notes_of(fetched) == noted  # the download is hers too
    # Another user, signed in, sees none.
    page.goto(site.url)
    by_testid(page, "sign-out").click()
    signed_in(site.arena.user("dave"))
    open_viewer(page, path, f"?deal={number}&step={step}")
    assert by_testid(page, "note").count() == 0
    shown = page.evaluate("JSON.parse(document.getElementById('replay-data').textContent)")
    assert notes_of(shown) == []
