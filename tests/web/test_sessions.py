"""Private things stay private: a bot's logs on the web only for its owner and operators,
after signing in with a token once (a signed, HttpOnly, SameSite=Strict cookie); a revoked
token's session ends; the public pages show nothing of it. Over real HTTP, both stores."""

from __future__ import annotations

import http.client
import itertools
import re
from urllib.parse import urlencode, urlsplit

import pytest

from arena.league.opening import open_ladder
from tests.web.conftest import Site

_names = itertools.count()


def request(
    site: Site, method: str, path: str, form: dict[str, str] | None = None, cookie: str = ""
) -> tuple[int, dict[str, str], str]:
    """One request, redirects not followed: status, headers (lower-case names), body."""
    where = urlsplit(site.url)
    assert where.hostname is not None
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    headers = {"Cookie": cookie} if cookie else {}
    body = None
    if form is not None:
        body = urlencode(form)
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    try:
        conn.request(method, path, body=body, headers=headers)
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode()
    finally:
        conn.close()


def sign_in(site: Site, token: str, next_path: str = "/") -> str:
    """Sign in; the ``name=value`` of the session cookie."""
    status, headers, body = request(site, "POST", "/signin", {"token": token, "next": next_path})
    assert status == 303, body
    return headers["set-cookie"].split(";")[0]


def log_links(page: str) -> list[str]:
    return re.findall(r'data-testid="log-link" href="([^"]+)"', page)


def test_signing_in_sets_a_signed_strict_httponly_cookie(site: Site) -> None:
    where = f"/matches/{site.match_id}"
    status, headers, _ = request(site, "POST", "/signin", {"token": site.token, "next": where})
    assert status == 303
    assert headers["location"] == where
    attributes = [a.strip().lower() for a in headers["set-cookie"].split(";")]
    assert "httponly" in attributes
    assert "samesite=strict" in attributes
    assert "path=/" in attributes
    assert site.token not in headers["set-cookie"]  # the cookie holds the token's hash only
    cookie = headers["set-cookie"].split(";")[0]
    _, _, page = request(site, "GET", "/", cookie=cookie)
    assert 'data-testid="signed-in">signed in as alice<' in page
    # Going elsewhere after signing in is refused: only this site's paths.
    for elsewhere in ("//evil.example/", "https://evil.example/", "/\\evil.example"):
        _, headers, _ = request(site, "POST", "/signin", {"token": site.token, "next": elsewhere})
        assert headers["location"] == "/"


def test_the_owner_reads_her_bots_logs_and_nobody_else_does(site: Site) -> None:
    match = f"/matches/{site.match_id}"
    ladder = open_ladder(site.arena.url)
    try:
        logs = ladder.logs(site.token, site.match_id)
    finally:
        ladder.close()
    cookie = sign_in(site, site.token)
    status, headers, page = request(site, "GET", match, cookie=cookie)
    assert status == 200
    assert headers["cache-control"] == "private, no-store"
    links = log_links(page)
    assert links == [f"{match}/games/{log.game}/logs/{log.seat}" for log in logs]
    assert len(links) == 8  # alice owns every bot in it
    status, headers, page = request(site, "GET", links[0], cookie=cookie)
    assert status == 200, page
    assert headers["cache-control"] == "private, no-store"
    text = logs[0].output.decode()
    assert "serving on" in text  # the SDK's first line: a real log
    shown = re.search(r'<pre class="log" data-testid="log">(.*?)</pre>', page, re.S)
    assert shown is not None
    assert shown.group(1) == text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

    # Not signed in: no links, and the log is refused.
    status, headers, page = request(site, "GET", match)
    assert status == 200 and log_links(page) == [] and "serving on" not in page
    assert "cache-control" not in headers
    status, _, page = request(site, "GET", links[0])
    assert status == 403
    assert "error: a bot&#39;s logs are its owner&#39;s: sign in with your token first" in page

    # Another user: no links, refused; a forged or altered cookie counts for nothing.
    bob = sign_in(site, site.arena.user(f"bob{next(_names)}"))
    assert log_links(request(site, "GET", match, cookie=bob)[2]) == []
    status, _, page = request(site, "GET", links[0], cookie=bob)
    assert status == 403, page
    assert "has none of your bots" in page
    name, _, value = cookie.partition("=")
    digest, expires, mac = value.split(".")
    # The MAC altered at its first character: its last carries only four bits, so setting it
    # to "A" left it unchanged one time in sixteen (a run where this test passed the cookie).
    altered = ("B" if mac[0] == "A" else "A") + mac[1:]
    for forged in (f"{digest}.{int(expires) + 1}.{mac}", f"{digest}.{expires}.{altered}"):
        assert request(site, "GET", links[0], cookie=f"{name}={forged}")[0] == 403


@pytest.mark.parametrize("what", ["revoked", "signed out"])
def test_a_session_ends_with_its_token_or_on_signing_out(site: Site, what: str) -> None:
    label = f"web-{next(_names)}"
    with site.arena.store() as store:
        alice = store.authenticate(site.token)
        token = store.create_token(alice, label)
    cookie = sign_in(site, token)
    log = f"/matches/{site.match_id}/games/1/logs/0"
    assert request(site, "GET", log, cookie=cookie)[0] == 200
    if what == "revoked":
        with site.arena.store() as store:
            store.revoke_token(alice, label)
    else:
        status, headers, _ = request(site, "POST", "/signout", {}, cookie=cookie)
        assert status == 303 and headers["set-cookie"].startswith('arena_session="";')
        cookie = headers["set-cookie"].split(";")[0]
    status, _, page = request(site, "GET", log, cookie=cookie)
    assert status == 403
    assert "sign in with your token first" in page


@pytest.mark.parametrize(
    ("form", "status", "message"),
    [
        ({"token": "not-a-token"}, 403, "error: wrong token"),
        ({"token": ""}, 400, "error: give your token"),
        ({"token": "x" * 5000}, 400, "error: the sign-in form is too long"),
    ],
)
def test_a_bad_sign_in_says_why_and_sets_nothing(
    site: Site, form: dict[str, str], status: int, message: str
) -> None:
    got, headers, page = request(site, "POST", "/signin", form)
    assert got == status
    assert message in page
    assert "set-cookie" not in headers


def test_unknown_game_or_seat_and_the_sign_in_page(site: Site) -> None:
    cookie = sign_in(site, site.token)
    for bad in ("games/3/logs/0", "games/1/logs/4"):
        status, _, page = request(site, "GET", f"/matches/{site.match_id}/{bad}", cookie=cookie)
        assert status == 404, page
    status, headers, page = request(site, "GET", "/signin?next=/matches")
    assert status == 200
    assert 'name="next" value="/matches"' in page
    assert "script-src 'self'" in headers["content-security-policy"]


def test_a_validation_games_logs_are_its_owners(site: Site) -> None:
    at = "/bots/crasher/versions/1/validation/logs/0"
    cookie = sign_in(site, site.token)
    _, _, page = request(site, "GET", "/bots/crasher", cookie=cookie)
    assert f'data-testid="validation-log" href="{at}"' in page
    pages = []
    for seat in (0, 2):
        status, headers, page = request(site, "GET", at[:-1] + str(seat), cookie=cookie)
        assert status == 200, page
        assert headers["cache-control"] == "private, no-store"
        pages.append(page)
    # The seat that bid first crashed: its traceback, escaped.
    assert any("RuntimeError: &lt;b&gt;crashed&lt;/b&gt; on purpose" in page for page in pages)
    assert request(site, "GET", at)[0] == 403
    bob = sign_in(site, site.arena.user(f"bob{next(_names)}"))
    _, _, page = request(site, "GET", "/bots/crasher", cookie=bob)
    assert 'data-testid="validation-log"' not in page
    status, _, page = request(site, "GET", at, cookie=bob)
    assert status == 403 and "is not your bot" in page
    assert (
        request(site, "GET", "/bots/crasher/versions/1/validation/logs/1", cookie=cookie)[0] == 404
    )
