"""The web app: server-rendered pages and their JSON twins over one ``LocalLadder``.

``create_app`` wires the routers (``routes/``, one per area) to one ``Site`` (``site.py``):
each route parses its parameters, reads through the ladder (``LocalLadder`` and
``arena.league.browse``, never the store) and renders; an htmx request (``HX-Request``) gets
only the live fragment. Every page is public and read-only, but for a bot's logs: shown to
its owner and to operators once signed in (a session cookie, ``session.py``). Errors are
pages (and JSON under ``/api``) with one line that says what is wrong: 404 for an unknown
bot, match or game, 400 for a bad parameter, 403 with the sign-in form; never a traceback.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from arena.host.rate_limit import LimitReached, RateLimit
from arena.league.api import LocalLadder, NoResult
from arena.league.browse import Forbidden, NotFound, StandingsCache, StoreError

from .routes import accounts, bots, matches, status
from .routes import ladder as ladder_routes
from .session import Sessions, secret_from_env
from .site import HERE, InertJSON, Site, page_templates, site_of

# Every route, by area.
ROUTERS = tuple(area.router for area in (ladder_routes, bots, matches, accounts, status))
# Only the app's own files: no inline script, no other host.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# Exceptions of the ladder as HTTP statuses; each one's message is the page's error line.
STATUS_OF: dict[type[Exception], int] = {
    NotFound: 404,
    NoResult: 404,
    Forbidden: 403,
    LimitReached: 429,
    ValueError: 400,
    StoreError: 503,
}


def create_app(
    ladder: LocalLadder,
    poll_seconds: float = 5,
    secret: bytes | None = None,
    failed_sign_ins_per_hour: int = 30,
) -> FastAPI:
    """The app; sessions are signed with ``secret`` (default: ``secret_from_env()``). An
    address that fails to sign in ``failed_sign_ins_per_hour`` times is refused for the hour."""
    app = FastAPI(
        title="Back Alley Arena",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        default_response_class=InertJSON,
    )
    app.state.site = Site(
        ladder=ladder,
        standings=StandingsCache(ladder),
        sessions=Sessions(secret if secret is not None else secret_from_env()),
        failed_sign_ins=RateLimit(
            "failed sign-ins from your address",
            failed_sign_ins_per_hour,
            "failed_sign_ins_per_hour",
        ),
        templates=page_templates(),
        poll_seconds=poll_seconds,
    )
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    for router in ROUTERS:
        app.include_router(router)

    @app.middleware("http")
    async def no_nul(request: Request, call_next: Any) -> Response:
        # No database stores a NUL in text (PostgreSQL refuses it): no name or value has one.
        if "\x00" in request.url.path or any("\x00" in v for v in request.query_params.values()):
            message = "bad request: a NUL character in the address"
            return site_of(request).failure(request, 400, message)
        response: Response = await call_next(request)
        return response

    add_security_headers(app)  # added last: around every response, this one's too
    for kind, code in STATUS_OF.items():
        app.add_exception_handler(kind, _answer_with(code))
    app.add_exception_handler(RequestValidationError, _bad_request)
    app.add_exception_handler(HTTPException, _http_error)
    return app


def _answer_with(code: int) -> Any:
    async def handler(request: Request, e: Exception) -> Response:
        return site_of(request).failure(request, code, str(e))

    return handler


async def _bad_request(request: Request, e: Exception) -> Response:
    assert isinstance(e, RequestValidationError)
    problems = "; ".join(
        f"{'.'.join(str(p) for p in err['loc'][1:]) or 'request'}: {err['msg']}"
        for err in e.errors()
    )
    return site_of(request).failure(request, 400, f"bad request: {problems}")


async def _http_error(request: Request, e: Exception) -> Response:
    assert isinstance(e, HTTPException)
    message = "no such page" if e.status_code == 404 else str(e.detail)
    return site_of(request).failure(request, e.status_code, message)


def add_security_headers(app: FastAPI) -> None:
    """Every response of ``app`` carries the CSP and refuses sniffing and referrers."""

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response
