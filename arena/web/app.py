"""The web app: server-rendered pages and their JSON twins over one ``LocalLadder``.

Each route parses its parameters, calls one function of the read model (``LocalLadder`` or
``arena.league.browse``) and renders it; an htmx request (``HX-Request``) gets only the live
fragment. Every page is public and read-only, but for a bot's logs: shown to its owner and
to operators once signed in (a session cookie, ``session.py``), by ``LocalLadder.logs_of``,
the rule the CLI and the service use. Errors are pages (and JSON under ``/api``) with
one line that says what is wrong: 404 for an unknown bot, match or game, 400 for a bad
parameter; never a traceback.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qs, quote, urlsplit

from fastapi import FastAPI, Query, Request
from fastapi import Path as PathParameter
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from markupsafe import Markup
from starlette.exceptions import HTTPException

from arena.inert import inert, inert_bytes, inert_tree
from arena.league.api import LocalLadder, NoResult
from arena.league.browse import StandingsCache, bot_profile, match_detail, match_page
from arena.league.standings import detail_keys
from arena.rate_limit import LimitReached, RateLimit
from arena.read_model import LADDER
from arena.store import AuthError, Forbidden, NotFound, StoreError, User

from .charts import interval_axis, rating_chart
from .session import COOKIE, MAX_AGE, Sessions, secret_from_env

HERE = Path(__file__).parent
# Only the app's own files: no inline script, no other host.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


def page_templates() -> Jinja2Templates:
    templates = Jinja2Templates(directory=HERE / "templates")  # autoescapes .html
    # Every value a page shows is inert: no bot's or user's text puts an escape, a bell or
    # a bidi override on a page (markup is escaped after; what is already markup is ours).
    templates.env.finalize = _shown
    return templates


def _shown(value: Any) -> Any:
    if isinstance(value, str) and not isinstance(value, Markup):
        return inert(value, keep_lines=True)
    return value


class InertJSON(JSONResponse):
    """JSON whose every string is inert (``inert_tree``), in ASCII."""

    def render(self, content: Any) -> bytes:
        return _json(inert_tree(content))


def _json(content: Any) -> bytes:
    return json.dumps(content, allow_nan=False, separators=(",", ":")).encode()


JSON = "application/json"
RECENT = 20  # the bot page's most recent played matches
# Ids, numbers, seats, games and pages: a value past any the store holds (PostgreSQL's
# integer) is refused with 400, not handed to the database to overflow there.
MAX_INT = 2**31 - 1
PageQuery = Annotated[int, Query(alias="page", ge=1, le=MAX_INT, description="From 1.")]
Int = Annotated[int, PathParameter(ge=0, le=MAX_INT)]


def create_app(
    ladder: LocalLadder,
    poll_seconds: float = 5,
    secret: bytes | None = None,
    failed_sign_ins_per_hour: int = 30,
) -> FastAPI:
    """The app; sessions are signed with ``secret`` (default: ``secret_from_env()``). An
    address that fails to sign in ``failed_sign_ins_per_hour`` times is refused for the hour."""
    standings = StandingsCache(ladder)
    failed_sign_ins = RateLimit(
        "failed sign-ins from your address", failed_sign_ins_per_hour, "failed_sign_ins_per_hour"
    )
    sessions = Sessions(secret if secret is not None else secret_from_env())
    app = FastAPI(
        title="Back Alley Arena",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        default_response_class=InertJSON,
    )
    templates = page_templates()
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    @app.middleware("http")
    async def no_nul(request: Request, call_next: Any) -> Response:
        # No database stores a NUL in text (PostgreSQL refuses it): no name or value has one.
        if "\x00" in request.url.path or any("\x00" in v for v in request.query_params.values()):
            return failure(request, 400, "bad request: a NUL character in the address")
        response: Response = await call_next(request)
        return response

    add_security_headers(app)  # added last: around every response, this one's too

    def signed_in(request: Request) -> User | None:
        """The session's user, while its token is neither revoked nor expired."""
        digest = sessions.digest_of(request.cookies.get(COOKIE))
        if digest is None:
            return None
        try:
            return ladder.store.authenticate_hash(digest)
        except AuthError:
            return None

    def page(request: Request, name: str, **context: Any) -> HTMLResponse:
        user = context.pop("user", None) or signed_in(request)
        response = templates.TemplateResponse(
            request, name, {**context, "signed_in": user.name if user else None}
        )
        if user is not None:  # what it shows may be this user's alone
            response.headers["Cache-Control"] = "private, no-store"
        return response

    def failure(request: Request, status: int, message: str) -> Response:
        if request.url.path.startswith("/api/"):
            return InertJSON({"error": message}, status_code=status)
        try:
            user = signed_in(request)
        except StoreError:
            user = None  # the store is what failed: say that, signed in or not
        context = {"status": status, "message": message, "signed_in": user and user.name}
        return templates.TemplateResponse(request, "error.html", context, status_code=status)

    @app.exception_handler(NotFound)
    async def not_found(request: Request, e: NotFound) -> Response:
        return failure(request, 404, str(e))

    @app.exception_handler(NoResult)
    async def no_result(request: Request, e: NoResult) -> Response:
        return failure(request, 404, str(e))

    @app.exception_handler(Forbidden)
    async def forbidden(request: Request, e: Forbidden) -> Response:
        return failure(request, 403, str(e))

    @app.exception_handler(LimitReached)
    async def limit_reached(request: Request, e: LimitReached) -> Response:
        return failure(request, 429, str(e))

    @app.exception_handler(ValueError)
    async def bad_value(request: Request, e: ValueError) -> Response:
        return failure(request, 400, str(e))

    @app.exception_handler(StoreError)
    async def store_error(request: Request, e: StoreError) -> Response:
        return failure(request, 503, str(e))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, e: RequestValidationError) -> Response:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'][1:]) or 'request'}: {err['msg']}"
            for err in e.errors()
        )
        return failure(request, 400, f"bad request: {problems}")

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, e: HTTPException) -> Response:
        message = "no such page" if e.status_code == 404 else str(e.detail)
        return failure(request, e.status_code, message)

    # ------------------------------------------------------------------ pages

    @app.get("/", response_class=HTMLResponse)
    def ladder_page(
        request: Request,
        tournament: str = LADDER,
        retired: bool = False,
        show_all: Annotated[bool, Query(alias="all")] = False,
    ) -> Response:
        """One rating column, as ``arena ladder``; ``?all=1`` as its ``--all``: retired
        versions too, with each one's status and the sequential Elo."""
        retired = retired or show_all
        rows = standings(tournament, retired=retired)
        context = {
            "rows": rows,
            "details": detail_keys(rows, show_all=show_all),
            "axis": interval_axis([r.ci95 for r in rows]),
            "tournament": tournament,
            "tournaments": [t.name for t in ladder.store.tournaments()],
            "retired": retired,
            "show_all": show_all,
            "poll": poll_seconds,
        }
        if request.headers.get("HX-Request"):
            return page(request, "_ladder_table.html", **context)
        return page(request, "ladder.html", **context)

    # A version's validation game: before /bots/{name:path}, which would take these paths.
    @app.get("/bots/{name}/versions/{number}/validation", response_class=HTMLResponse)
    def validation_page(request: Request, name: str, number: Int) -> Response:
        user = signed_in(request)  # a bot's notes are its owner's
        replay = ladder.validation_replay_for(user, name, number).to_dict()
        return page(
            request,
            "replay.html",
            user=user,
            replay=inert_tree(replay),
            title=f"{name} v{number} · validation game",
            back=f"/bots/{quote(name)}",
            back_label=f"the bot {name}",
            download=f"/api/bots/{quote(name)}/versions/{number}/validation/replay",
            download_name=f"{name}-v{number}-validation.json",
        )

    @app.get("/bots/{name}/versions/{number}/validation/logs/{seat}", response_class=HTMLResponse)
    def validation_log_page(request: Request, name: str, number: Int, seat: Int) -> Response:
        user = signed_in(request)
        if user is None:
            raise Forbidden("a bot's logs are its owner's: sign in with your token first")
        found = [log for log in ladder.validation_logs_of(user, name, number) if log.seat == seat]
        if not found:
            raise NotFound(f"{name} v{number} played seats 0 and 2 of its validation game")
        return page(
            request,
            "log.html",
            log=found[0],
            text=inert_bytes(found[0].output),
            back=f"/bots/{quote(name)}/versions/{number}/validation",
            back_label=f"{name} v{number}'s validation game",
            user=user,
        )

    # A replay downloads exactly as recorded (docs/replay.md), in ASCII: no raw control
    # character in what a browser or a terminal shows of it.
    @app.get("/api/bots/{name}/versions/{number}/validation/replay")
    def api_validation_replay(request: Request, name: str, number: Int) -> Response:
        user = signed_in(request)
        replay = ladder.validation_replay_for(user, name, number).to_dict()
        return _private(Response(_json(replay), media_type=JSON), user)

    @app.get("/bots/{name:path}", response_class=HTMLResponse)
    def bot_page(request: Request, name: str, tournament: str = LADDER) -> Response:
        profile = bot_profile(ladder, name, RECENT, tournament)
        user = signed_in(request)
        owner = user is not None and (user.operator or user.name == profile.owner)
        return page(
            request, "bot.html", bot=profile, chart=rating_chart(profile.history), owner=owner,
            user=user, recent=RECENT,
        )  # fmt: skip

    @app.get("/matches", response_class=HTMLResponse)
    def matches_page(
        request: Request,
        tournament: str = LADDER,
        status: str = "",
        bot: str = "",
        page_number: PageQuery = 1,
    ) -> Response:
        found = match_page(
            ladder, tournament=tournament, status=status, bot=bot or None, page=page_number
        )
        return page(
            request,
            "matches.html",
            found=found,
            status=status,
            bot=bot,
            statuses=["", "queued", "running", "done", "error", "cancelled"],
            tournaments=[t.name for t in ladder.store.tournaments()],
        )

    @app.get("/matches/{match_id}", response_class=HTMLResponse)
    def match_page_(request: Request, match_id: Int) -> Response:
        detail = match_detail(ladder, match_id)
        user = signed_in(request)
        logs: dict[int, list[tuple[int, str]]] = {1: [], 2: []}
        if user is not None:
            try:
                for log in ladder.logs_of(user, match_id):
                    logs[log.game].append((log.seat, log.label))
            except (Forbidden, NoResult):
                pass  # none of the user's bots, or not played: no links
        return page(request, "match.html", match=detail, logs=logs, user=user)

    @app.get("/matches/{match_id}/games/{game}/logs/{seat}", response_class=HTMLResponse)
    def log_page(request: Request, match_id: Int, game: Int, seat: Int) -> Response:
        user = signed_in(request)
        if user is None:
            raise Forbidden("a bot's logs are its owner's: sign in with your token first")
        if game not in (1, 2) or seat not in range(4):
            raise NotFound(f"match {match_id} has games 1 and 2 and seats 0 to 3")
        found = [
            log for log in ladder.logs_of(user, match_id) if log.game == game and log.seat == seat
        ]
        if not found:
            raise Forbidden(f"seat {seat} of game {game} is not your bot: its logs are its owner's")
        return page(
            request,
            "log.html",
            log=found[0],
            text=inert_bytes(found[0].output),
            back=f"/matches/{match_id}",
            back_label=f"match {match_id}",
            user=user,
        )

    @app.get("/signin", response_class=HTMLResponse)
    def signin_page(request: Request, next: str = "/") -> Response:
        return page(request, "signin.html", next=_local(next))

    @app.post("/signin")
    async def signin(request: Request) -> Response:
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
        failed_sign_ins.check(address)
        try:
            ladder.store.authenticate(token)
        except AuthError as e:
            failed_sign_ins.take(address)
            return failure(request, 403, str(e))
        response = RedirectResponse(_local((form.get("next") or ["/"])[0]), status_code=303)
        response.set_cookie(
            COOKIE,
            sessions.cookie_for(token),
            max_age=MAX_AGE,
            path="/",
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )
        return response

    @app.post("/signout")
    def signout(request: Request) -> Response:
        _same_site(request)
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
        return response

    @app.get("/matches/{match_id}/games/{game}", response_class=HTMLResponse)
    def replay_page(request: Request, match_id: Int, game: Int) -> Response:
        user = signed_in(request)
        replay = _replay(ladder, match_id, game, user)
        return page(
            request,
            "replay.html",
            user=user,
            replay=inert_tree(replay),
            title=f"match {match_id} · game {game}",
            back=f"/matches/{match_id}",
            download=f"/api/matches/{match_id}/games/{game}/replay",
            download_name=f"match-{match_id}-game-{game}.json",
        )

    @app.get("/status", response_class=HTMLResponse)
    def status_page(request: Request) -> Response:
        return page(request, "status.html", status=ladder.status(60.0))

    # ------------------------------------------------------------------ JSON

    @app.get("/api/ladder")
    def api_ladder(tournament: str = LADDER, retired: bool = False) -> Response:
        # Encoded once per standings (FastAPI's encoder walked every value of every row).
        return Response(standings.json(tournament, retired=retired), media_type=JSON)

    @app.get("/api/bots/{name:path}")
    def api_bot(name: str, tournament: str = LADDER) -> dict[str, Any]:
        return asdict(bot_profile(ladder, name, RECENT, tournament))

    @app.get("/api/status")
    def api_status() -> dict[str, Any]:
        return ladder.status(60.0).as_json()

    @app.get("/api/matches")
    def api_matches(
        tournament: str = LADDER, status: str = "", bot: str = "", page_number: PageQuery = 1
    ) -> dict[str, Any]:
        found = match_page(
            ladder, tournament=tournament, status=status, bot=bot or None, page=page_number
        )
        return asdict(found)

    @app.get("/api/matches/{match_id}")
    def api_match(match_id: Int) -> dict[str, Any]:
        return asdict(match_detail(ladder, match_id))

    @app.get("/api/matches/{match_id}/games/{game}/replay")
    def api_replay(request: Request, match_id: Int, game: Int) -> Response:
        user = signed_in(request)
        replay = _replay(ladder, match_id, game, user)
        return _private(Response(_json(replay), media_type=JSON), user)

    return app


def add_security_headers(app: FastAPI) -> None:
    """Every response of ``app`` carries the CSP and refuses sniffing and referrers."""

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
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


def _replay(ladder: LocalLadder, match_id: int, game: int, user: User | None) -> dict[str, Any]:
    """The game's replay with the notes of ``user``'s bots alone (``replay_for``)."""
    if game not in (1, 2):
        ladder.store.match(match_id)  # an unknown match is said first
        raise NotFound(f"match {match_id} has games 1 and 2, not {game}")
    return ladder.replay_for(user, match_id, game).to_dict()


def _private(response: Response, user: User | None) -> Response:
    if user is not None:  # it holds this user's bots' notes: no cache keeps it
        response.headers["Cache-Control"] = "private, no-store"
    return response
