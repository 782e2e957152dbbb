"""Hostile input to the web (issue 24), over HTTP against the real app and a real store: text
from bots shown inert, integers past any the store holds refused with 400, sign-in and
sign-out refused from another site, and every route walked with hostile values: never a 500."""

from __future__ import annotations

import http.client
import json
import re
import threading
from dataclasses import replace
from urllib.parse import quote, urlencode, urlsplit

import pytest
from fastapi.routing import APIRoute

from arena.league.opening import open_ladder
from arena.web import bound_socket, create_app
from arena.web.app import ROUTERS
from arena.web.server import make_server, url_of
from tests.web.conftest import HOSTILE_REASON, Site

RAW = ("\x1b", "\x07", "\u202e")  # what must never reach a page or a JSON answer as it is


def request(
    site: Site,
    method: str,
    path: str,
    *,
    body: str | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], str]:
    """One request as sent (``path`` not re-encoded), redirects not followed."""
    where = urlsplit(site.url)
    assert where.hostname is not None
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=60)
    sent = dict(headers or {})
    if body is not None:
        sent["Content-Type"] = "application/x-www-form-urlencoded"
    try:
        conn.request(method, path, body=body, headers=sent)
        r = conn.getresponse()
        data = r.read().decode("utf-8", errors="replace")
        return r.status, {k.lower(): v for k, v in r.getheaders()}, data
    finally:
        conn.close()


def sign_in(site: Site) -> str:
    form = urlencode({"token": site.token, "next": "/"})
    status, headers, body = request(site, "POST", "/signin", body=form)
    assert status == 303, body
    return headers["set-cookie"].split(";")[0]


def test_a_rejection_reason_is_inert_on_the_page_and_in_json(site: Site) -> None:
    status, _, page = request(site, "GET", "/bots/crasher")
    assert status == 200
    [reason] = re.findall(r'data-testid="reason">([^<]*)<', page)
    assert "on purpose\\x1b[2J\\x07\\u202edesrever" in reason
    status, _, raw = request(site, "GET", "/api/bots/crasher")
    assert status == 200
    assert not any(ch in page or ch in raw for ch in RAW)
    [version] = json.loads(raw)["versions"]
    assert version["reason"].endswith("on purpose\\x1b[2J\\x07\\u202edesrever")
    assert HOSTILE_REASON not in version["reason"]


def test_the_replay_page_shows_names_inert_and_the_download_is_exact(site: Site) -> None:
    _, _, page = request(site, "GET", "/bots/crasher/versions/1/validation")
    _, _, download = request(site, "GET", "/api/bots/crasher/versions/1/validation/replay")
    assert not any(ch in page or ch in download for ch in RAW)
    assert download.isascii()
    ladder = open_ladder(site.arena.url)
    try:  # as recorded, to the character
        assert json.loads(download) == ladder.validation_replay("crasher", 1).to_dict()
    finally:
        ladder.close()


@pytest.mark.parametrize(
    "path",
    [
        "/matches?page=99999999999999999999",
        "/api/matches?page=99999999999999999999",
        "/matches/99999999999999999999",
        "/api/matches/99999999999999999999",
        "/matches/2147483648",
        "/matches/1/games/99999999999999999999",
        "/api/matches/1/games/9223372036854775808/replay",
        "/matches/1/games/1/logs/99999999999999999999",
        "/bots/crasher/versions/99999999999999999999/validation",
        "/api/bots/crasher/versions/-1/validation/replay",
        "/matches/-99999999999999999999",
    ],
)
def test_integers_past_the_store_s_are_a_bad_request(site: Site, path: str) -> None:
    status, _, body = request(site, "GET", path)
    assert status == 400, body
    assert "Traceback" not in body
    if path.startswith("/api/"):
        assert json.loads(body)["error"].startswith("bad request: ")
    else:
        assert "error: bad request: " in body


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example"},
        {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
        {"Sec-Fetch-Site": "same-site"},
        {"Origin": "null"},
    ],
)
def test_sign_in_and_out_from_another_site_are_refused(site: Site, headers: dict[str, str]) -> None:
    form = urlencode({"token": site.token, "next": "/"})
    status, got, page = request(site, "POST", "/signin", body=form, headers=headers)
    assert status == 403, page
    assert "error: a form from another site cannot sign you in or out" in page
    assert "set-cookie" not in got
    cookie = sign_in(site)
    status, got, page = request(site, "POST", "/signout", headers={**headers, "Cookie": cookie})
    assert status == 403 and "set-cookie" not in got, page
    _, _, home = request(site, "GET", "/", headers={"Cookie": cookie})
    assert 'data-testid="signed-in">signed in as alice<' in home  # still signed in


def test_sign_in_and_out_from_this_site_work(site: Site) -> None:
    host = urlsplit(site.url).netloc
    form = urlencode({"token": site.token, "next": "/"})
    for headers in (
        {"Origin": f"http://{host}"},
        {"Sec-Fetch-Site": "same-origin", "Origin": f"http://{host}"},
        {},  # no browser: nothing a page of another site can drive
    ):
        status, got, _ = request(site, "POST", "/signin", body=form, headers=headers)
        assert status == 303 and "set-cookie" in got
        status, got, _ = request(site, "POST", "/signout", headers=headers)
        assert status == 303 and got["set-cookie"].startswith("arena_session=")


def test_wrong_tokens_are_limited_per_address(site: Site) -> None:
    """A server of its own on the same store, allowing three failed sign-ins an hour."""
    ladder = open_ladder(site.arena.url)
    sock = bound_socket("127.0.0.1:0")
    server = make_server(create_app(ladder, failed_sign_ins_per_hour=3))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    strict = replace(site, url=url_of(sock))
    try:
        for n in range(3):
            form = urlencode({"token": f"wrong{n}"})
            status, _, page = request(strict, "POST", "/signin", body=form)
            assert status == 403 and "error: wrong token" in page
        for token in ("wrong", site.token):  # past the limit, not even looked up
            form = urlencode({"token": token})
            status, headers, page = request(strict, "POST", "/signin", body=form)
            assert status == 429 and "set-cookie" not in headers
            assert re.search(
                r"error: at most 3 failed sign-ins from your address per hour"
                r" \(failed_sign_ins_per_hour\): try again in \d+ s",
                page,
            ), page
        assert request(strict, "GET", "/")[0] == 200  # the pages still answer
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
        ladder.close()


# --- every route, hostile values ---------------------------------------------------------------

HOSTILE = [
    "99999999999999999999",
    "9223372036854775808",
    "2147483648",
    "-1",
    "-99999999999999999999",
    "0",
    "1e9",
    "1.5",
    "NaN",
    "x",
    "%00",
    "%ff%fe",
    "%C3%A9",  # é
    "%E2%80%AE",  # a right-to-left override
    "%1B%5B2J",
    "..%2F..%2Fetc%2Fpasswd",
    "A" * 5000,
    quote("名前\U0001f600"),
]


def routes(site: Site) -> list[APIRoute]:
    """Every route of the app: its routers' (``create_app`` includes each of them)."""
    return [r for router in ROUTERS for r in router.routes if isinstance(r, APIRoute)]


def test_every_route_with_hostile_values_answers_without_a_500(site: Site) -> None:
    """Each path parameter and each query parameter of every route, one hostile value at a
    time (the others valid), signed out and signed in: a 2xx, 3xx or 4xx each time."""
    valid = {"name": "crasher", "match_id": str(site.match_id), "number": "1", "game": "1"}
    valid |= {"seat": "0"}
    cookie = sign_in(site)
    found = routes(site)
    assert len(found) >= 18  # every page, fragment and JSON route
    tried = 0
    for route in found:
        path_names = [p.name for p in route.dependant.path_params]
        query_names = [p.alias for p in route.dependant.query_params]
        for method in sorted(route.methods or ()):
            for where, value in [(n, v) for n in path_names + query_names for v in HOSTILE]:
                values = {n: value if n == where else valid[n] for n in path_names}
                path = route.path_format.format(**values)
                if where in query_names:
                    path += f"?{where}={value}"
                for headers in ({}, {"Cookie": cookie}):
                    status, got, body = request(site, method, path, headers=headers)
                    tried += 1
                    assert status < 500, (method, path[:200], status, body[:500])
                    assert "content-security-policy" in got, path[:200]
                    assert not any(ch in body for ch in RAW), (path[:200], body[:500])
    assert tried > 1000
    # The sign-in form itself: hostile tokens and next paths.
    for value in HOSTILE:
        for form in (f"token={value}", f"token={value}&next={value}", value):
            status, _, body = request(site, "POST", "/signin", body=form)
            assert status in (303, 400, 403, 429), (form[:200], status, body[:500])
