"""What every route of the web shares: the ladder it reads, the templates, the sessions, and
how a page, a fragment or an error is answered. One ``Site`` per app (``app.state.site``);
a route reaches it through ``site_of``."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from fastapi import Path as PathParameter
from fastapi import Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.templating import Jinja2Templates
from markupsafe import Markup

from arena.host.inert import inert, inert_bytes, inert_tree
from arena.host.rate_limit import RateLimit
from arena.league.api import LocalLadder
from arena.league.browse import Forbidden, StandingsCache, StoreError, User, user_of_session
from arena.read_model import BotLog, plural

from .session import COOKIE, Sessions

HERE = Path(__file__).parent
JSON = "application/json"
# Ids, numbers, seats, games and pages: a value past any the store holds (PostgreSQL's
# integer) is refused with 400, not handed to the database to overflow there.
MAX_INT = 2**31 - 1
PageQuery = Annotated[int, Query(alias="page", ge=1, le=MAX_INT, description="From 1.")]
Int = Annotated[int, PathParameter(ge=0, le=MAX_INT)]


def page_templates() -> Jinja2Templates:
    templates = Jinja2Templates(directory=HERE / "templates")  # autoescapes .html
    # Every value a page shows is inert: no bot's or user's text puts an escape, a bell or
    # a bidi override on a page (markup is escaped after; what is already markup is ours).
    templates.env.finalize = _shown
    templates.env.filters["ago"] = ago
    templates.env.filters["plural"] = plural
    templates.env.filters["cards"] = cards
    return templates


def _shown(value: Any) -> Any:
    if isinstance(value, str) and not isinstance(value, Markup):
        return inert(value, keep_lines=True)
    return value


def ago(seconds: float) -> str:
    """How long ago, as a person says it: "12 s ago", "9 min ago", "3 h ago", "2 days ago"."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s ago"
    if s < 3600:
        return f"{s // 60} min ago"
    if s < 2 * 86400:
        return f"{s // 3600} h ago"
    return f"{s // 86400} days ago"


SUIT_SIGNS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_REPR = re.compile(r"Card\('([2-9TJQKA][SHDC]|BB|LB)'\)")  # the SDK's repr of a card
_NAME = re.compile(r"(?<![\w'])([2-9TJQKA])([SHDC])(?!\w)")  # 8H, TD, AS


def cards(text: str) -> str:
    """Cards in a reason as people write them: ``Card('8H')`` and ``8H`` as 8♥, ``TD`` as
    10♦ (jokers keep their names)."""
    text = _REPR.sub(r"\1", text)
    return _NAME.sub(lambda m: ("10" if m[1] == "T" else m[1]) + SUIT_SIGNS[m[2]], text)


def json_bytes(content: Any) -> bytes:
    return json.dumps(content, allow_nan=False, separators=(",", ":")).encode()


class InertJSON(JSONResponse):
    """JSON whose every string is inert (``inert_tree``), in ASCII."""

    def render(self, content: Any) -> bytes:
        return json_bytes(inert_tree(content))


@dataclass
class Site:
    ladder: LocalLadder
    standings: StandingsCache
    sessions: Sessions
    failed_sign_ins: RateLimit
    templates: Jinja2Templates
    poll_seconds: float

    def signed_in(self, request: Request) -> User | None:
        """The session's user, while its token is neither revoked nor expired."""
        digest = self.sessions.digest_of(request.cookies.get(COOKIE))
        return None if digest is None else user_of_session(self.ladder, digest)

    def reader_of_logs(self, request: Request) -> User:
        """The signed-in user, who alone may ask for logs (which are theirs is the ladder's
        rule); Forbidden when nobody is signed in."""
        user = self.signed_in(request)
        if user is None:
            raise Forbidden("a bot's logs are its owner's: sign in with your token first")
        return user

    def log_page(
        self, request: Request, log: BotLog, user: User, back: str, back_label: str
    ) -> HTMLResponse:
        """One seat's log, shown as inert text (``arena logs`` prints it so)."""
        return self.page(
            request,
            "log.html",
            log=log,
            text=inert_bytes(log.output),
            back=back,
            back_label=back_label,
            user=user,
        )

    def page(self, request: Request, name: str, *, code: int = 200, **context: Any) -> HTMLResponse:
        """``name`` rendered; ``user``, when the route has looked them up already."""
        user = context.pop("user", None) or self.signed_in(request)
        shown = {**context, "signed_in": user.name if user else None, "now": time.time()}
        response = self.templates.TemplateResponse(request, name, shown, status_code=code)
        if user is not None:  # what it shows may be this user's alone
            response.headers["Cache-Control"] = "private, no-store"
        return response

    def failure(self, request: Request, status: int, message: str) -> Response:
        """One ``error:`` line: JSON under /api, else a page (with the sign-in form for a
        403 to someone not signed in)."""
        if request.url.path.startswith("/api/"):
            return InertJSON({"error": message}, status_code=status)
        try:
            user = self.signed_in(request)
        except StoreError:
            user = None  # the store is what failed: say that, signed in or not
        context = {
            "status": status,
            "message": message,
            "signed_in": user and user.name,
            "next": request.url.path,
            "now": time.time(),
        }
        return self.templates.TemplateResponse(request, "error.html", context, status_code=status)


def site_of(request: Request) -> Site:
    site: Site = request.app.state.site
    return site


def private(response: Response, user: User | None) -> Response:
    """``response`` kept out of shared caches when it may hold ``user``'s own (notes)."""
    if user is not None:
        response.headers["Cache-Control"] = "private, no-store"
    return response
