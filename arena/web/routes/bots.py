"""The bots: the index (``/bots``, every bot whatever its versions' status), a bot's page,
a version's validation game and its logs, and their JSON twins."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from arena.host.inert import inert_tree
from arena.league.browse import NotFound, bot_index, bot_profile
from arena.read_model import LADDER, version_label

from ..charts import rating_chart
from ..site import JSON, Int, Site, json_bytes, private, site_of

router = APIRouter()
SiteDep = Annotated[Site, Depends(site_of)]
RECENT = 20  # the bot page's most recent played matches


@router.get("/bots", response_class=HTMLResponse)
def bots_page(request: Request, site: SiteDep, q: str = "") -> Response:
    """Every bot; ``?q=`` keeps those whose name or owner holds it, case aside."""
    wanted = q.strip().casefold()
    bots = [b for b in bot_index(site.ladder) if wanted in f"{b.name}\n{b.owner}".casefold()]
    return site.page(request, "bots.html", bots=bots, q=q)


@router.get("/api/bots")
def api_bots(site: SiteDep) -> list[dict[str, Any]]:
    return [asdict(b) for b in bot_index(site.ladder)]


# A version's validation game: before /bots/{name:path}, which would take these paths.
@router.get("/bots/{name}/versions/{number}/validation", response_class=HTMLResponse)
def validation_page(request: Request, site: SiteDep, name: str, number: Int) -> Response:
    user = site.signed_in(request)  # a bot's notes are its owner's
    replay = site.ladder.validation_replay_for(user, name, number).to_dict()
    return site.page(
        request,
        "replay.html",
        user=user,
        replay=inert_tree(replay),
        title=f"{version_label(name, number)} · validation game",
        back=f"/bots/{quote(name)}",
        back_label=f"the bot {name}",
        download=f"/api/bots/{quote(name)}/versions/{number}/validation/replay",
        download_name=f"{name}-v{number}-validation.json",
    )


@router.get("/bots/{name}/versions/{number}/validation/logs/{seat}", response_class=HTMLResponse)
def validation_log_page(
    request: Request, site: SiteDep, name: str, number: Int, seat: Int
) -> Response:
    user = site.reader_of_logs(request)
    logs = site.ladder.validation_logs_of(user, name, number)
    found = [log for log in logs if log.seat == seat]
    if not found:
        raise NotFound(f"{version_label(name, number)} played seats 0 and 2 of its validation game")
    back = f"/bots/{quote(name)}/versions/{number}/validation"
    what = f"{version_label(name, number)}'s validation game"
    return site.log_page(request, found[0], user, back, what)


# A replay downloads exactly as recorded (docs/replay.md), in ASCII: no raw control
# character in what a browser or a terminal shows of it.
@router.get("/api/bots/{name}/versions/{number}/validation/replay")
def api_validation_replay(request: Request, site: SiteDep, name: str, number: Int) -> Response:
    user = site.signed_in(request)
    replay = site.ladder.validation_replay_for(user, name, number).to_dict()
    return private(Response(json_bytes(replay), media_type=JSON), user)


@router.get("/bots/{name:path}", response_class=HTMLResponse)
def bot_page(request: Request, site: SiteDep, name: str, tournament: str = LADDER) -> Response:
    if not name:  # /bots/
        return RedirectResponse("/bots", status_code=308)
    profile = bot_profile(site.ladder, name, RECENT, tournament)
    user = site.signed_in(request)
    # Its entry on the ladder, as the ladder shows it (none until its version is active).
    standing = next((r for r in site.standings(LADDER) if r.bot == profile.name), None)
    return site.page(
        request,
        "bot.html",
        bot=profile,
        standing=standing,
        chart=rating_chart(profile.history, standing),
        owner=site.ladder.reads_bot(user, profile.name),
        user=user,
        recent=RECENT,
    )


@router.get("/api/bots/{name:path}")
def api_bot(site: SiteDep, name: str, tournament: str = LADDER) -> dict[str, Any]:
    return bot_profile(site.ladder, name, RECENT, tournament).as_json()
