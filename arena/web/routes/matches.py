"""The matches: a tournament's, filtered and paged; one match's pair deal by deal; each
game's replay viewer and each seat's log; and their JSON twins."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response

from arena.host.inert import inert_tree
from arena.league.api import NoResult
from arena.league.browse import (
    Forbidden,
    MatchPage,
    NotFound,
    User,
    bot_named,
    bot_names,
    match_detail,
    match_page,
    tournament_names,
)
from arena.read_model import LADDER

from ..site import JSON, Int, PageQuery, Site, json_bytes, private, site_of

router = APIRouter()
SiteDep = Annotated[Site, Depends(site_of)]
STATUSES = ["", "queued", "running", "done", "error", "cancelled"]


def _filtered(site: Site, tournament: str, status: str, bot: str, page: int) -> MatchPage:
    """The page of matches; the bot by its name as a person types it (case aside)."""
    name = bot_named(site.ladder, bot) if bot.strip() else None
    return match_page(site.ladder, tournament=tournament, status=status, bot=name, page=page)


@router.get("/matches", response_class=HTMLResponse)
def matches_page(
    request: Request,
    site: SiteDep,
    tournament: str = LADDER,
    status: str = "",
    bot: str = "",
    page_number: PageQuery = 1,
) -> Response:
    """A bad filter is said above the form, which keeps what was asked."""
    context: dict[str, Any] = {
        "tournament": tournament,
        "status": status,
        "bot": bot,
        "statuses": STATUSES,
        "tournaments": tournament_names(site.ladder),
        "bots": bot_names(site.ladder),
    }
    try:
        found = _filtered(site, tournament, status, bot, page_number)
    except NotFound as e:
        return site.page(request, "matches.html", code=404, found=None, error=str(e), **context)
    except ValueError as e:
        return site.page(request, "matches.html", code=400, found=None, error=str(e), **context)
    if bot.strip():
        context["bot"] = bot_named(site.ladder, bot)
    return site.page(request, "matches.html", found=found, error=None, **context)


@router.get("/matches/{match_id}", response_class=HTMLResponse)
def match_page_(request: Request, site: SiteDep, match_id: Int) -> Response:
    detail = match_detail(site.ladder, match_id)
    user = site.signed_in(request)
    logs: dict[int, list[tuple[int, str]]] = {1: [], 2: []}
    if user is not None:
        try:
            for log in site.ladder.logs_of(user, match_id):
                logs[log.game].append((log.seat, log.label))
        except (Forbidden, NoResult):
            pass  # none of the user's bots, or not played: no links
    return site.page(request, "match.html", match=detail, logs=logs, user=user)


@router.get("/matches/{match_id}/games/{game}/logs/{seat}", response_class=HTMLResponse)
def log_page(request: Request, site: SiteDep, match_id: Int, game: Int, seat: Int) -> Response:
    user = site.reader_of_logs(request)
    if game not in (1, 2) or seat not in range(4):
        raise NotFound(f"match {match_id} has games 1 and 2 and seats 0 to 3")
    logs = site.ladder.logs_of(user, match_id)
    found = [log for log in logs if log.game == game and log.seat == seat]
    if not found:
        raise Forbidden(f"seat {seat} of game {game} is not your bot: its logs are its owner's")
    return site.log_page(request, found[0], user, f"/matches/{match_id}", f"match {match_id}")


@router.get("/matches/{match_id}/games/{game}", response_class=HTMLResponse)
def replay_page(request: Request, site: SiteDep, match_id: Int, game: Int) -> Response:
    user = site.signed_in(request)  # a bot's notes are its owner's
    replay = _replay(site, match_id, game, user)
    return site.page(
        request,
        "replay.html",
        user=user,
        replay=inert_tree(replay),
        title=f"match {match_id} · game {game}",
        back=f"/matches/{match_id}",
        download=f"/api/matches/{match_id}/games/{game}/replay",
        download_name=f"match-{match_id}-game-{game}.json",
    )


@router.get("/api/matches")
def api_matches(
    site: SiteDep,
    tournament: str = LADDER,
    status: str = "",
    bot: str = "",
    page_number: PageQuery = 1,
) -> dict[str, Any]:
    return _filtered(site, tournament, status, bot, page_number).as_json()


@router.get("/api/matches/{match_id}")
def api_match(site: SiteDep, match_id: Int) -> dict[str, Any]:
    return match_detail(site.ladder, match_id).as_json()


@router.get("/api/matches/{match_id}/games/{game}/replay")
def api_replay(request: Request, site: SiteDep, match_id: Int, game: Int) -> Response:
    user = site.signed_in(request)
    return private(Response(json_bytes(_replay(site, match_id, game, user)), media_type=JSON), user)


def _replay(site: Site, match_id: int, game: int, user: User | None) -> dict[str, Any]:
    """The game's replay with the notes of ``user``'s bots alone (``replay_for``)."""
    if game not in (1, 2):
        match_detail(site.ladder, match_id)  # an unknown match is said first
        raise NotFound(f"match {match_id} has games 1 and 2, not {game}")
    return site.ladder.replay_for(user, match_id, game).to_dict()
