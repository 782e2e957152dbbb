"""Signing in with a token (``/signin``) and out: a session cookie (``session.py``). A
wrong token is said above the form, kept for another try."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import parse_qs, urlsplit

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from arena.league.browse import AuthError, Forbidden, sign_in

from ..session import COOKIE, MAX_AGE
from ..site import Site, site_of

router = APIRouter()
SiteDep = Annotated[Site, Depends(site_of)]


@router.get("/signin", response_class=HTMLResponse)
def signin_page(request: Request, site: SiteDep, next: str = "/") -> Response:
    return site.page(request, "signin.html", next=_local(next), error=None)


@router.post("/signin")
async def signin(request: Request, site: SiteDep) -> Response:
    _same_site(request)
    body = await request.body()
    if len(body) > 4096:
        raise ValueError("the sign-in form is too long")
    form = parse_qs(body.decode("utf-8", errors="replace"))
    token = (form.get("token") or [""])[0].strip()
    if not token.isprintable():
        raise ValueError("a token is printable characters, as arena token create prints it")
    if not token:
        raise ValueError("give your token (arena user add and arena token create print one)")
    address = request.client.host if request.client else ""
    site.failed_sign_ins.check(address)
    next_path = _local((form.get("next") or ["/"])[0])
    try:
        _, digest = sign_in(site.ladder, token)
    except AuthError as e:
        site.failed_sign_ins.take(address)
        return site.page(request, "signin.html", code=403, next=next_path, error=str(e))
    response = RedirectResponse(next_path, status_code=303)
    response.set_cookie(
        COOKIE,
        site.sessions.cookie_for(digest),
        max_age=MAX_AGE,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


@router.post("/signout")
def signout(request: Request) -> Response:
    _same_site(request)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response


def _same_site(request: Request) -> None:
    """Refuse a form posted from another site (login CSRF: signing the visitor in as the
    attacker; a forged sign-out). Browsers say where a POST comes from: ``Sec-Fetch-Site``,
    and ``Origin`` (older ones); a client that sends neither is no browser a page can drive."""
    site = request.headers.get("sec-fetch-site")
    origin = request.headers.get("origin")
    if site is not None:  # decides where sent: it needs no Host a proxy may have rewritten
        same = site in ("same-origin", "none")
    else:
        same = origin is None or urlsplit(origin).netloc == request.headers.get("host")
    if not same:
        raise Forbidden("a form from another site cannot sign you in or out")


def _local(path: str) -> str:
    """A path on this site to go to after signing in: never another host's."""
    ok = path.startswith("/") and not path.startswith("//") and "\\" not in path
    ok = ok and path.isprintable()
    return path if ok else "/"
