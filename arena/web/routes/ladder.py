"""The ladder: ``/`` (the whole page, or only its table when htmx polls) and ``/api/ladder``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, Response

from arena.league.browse import NotFound, tournament_names
from arena.league.standings import detail_keys
from arena.read_model import LADDER

from ..charts import interval_axis
from ..site import JSON, Site, site_of

router = APIRouter()
SiteDep = Annotated[Site, Depends(site_of)]


@router.get("/", response_class=HTMLResponse)
def ladder_page(
    request: Request,
    site: SiteDep,
    tournament: str = LADDER,
    retired: bool = False,
    show_all: Annotated[bool, Query(alias="all")] = False,
) -> Response:
    """One rating column, as ``arena ladder``; ``?all=1`` as its ``--all``: retired
    versions too, with each one's status and the sequential Elo."""
    retired = retired or show_all
    try:
        rows, error = site.standings(tournament, retired=retired), None
    except NotFound as e:  # said above the form, which keeps the choice
        rows, error = [], str(e)
    context: dict[str, Any] = {
        "error": error,
        "rows": rows,
        "details": detail_keys(rows, show_all=show_all),
        "axis": interval_axis([r.ci95 for r in rows]),
        "tournament": tournament,
        "tournaments": tournament_names(site.ladder),
        "retired": retired,
        "show_all": show_all,
        "poll": site.poll_seconds,
    }
    code = 404 if error else 200
    if request.headers.get("HX-Request"):
        return site.page(request, "_ladder_table.html", code=code, **context)
    return site.page(request, "ladder.html", code=code, **context)


@router.get("/api/ladder")
def api_ladder(site: SiteDep, tournament: str = LADDER, retired: bool = False) -> Response:
    # Encoded once per standings (FastAPI's encoder walked every value of every row).
    return Response(site.standings.json(tournament, retired=retired), media_type=JSON)
