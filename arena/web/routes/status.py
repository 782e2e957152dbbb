"""The platform's status (``/status``, live, and ``/api/status``, as ``arena status --json``)
and the site's icon."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from arena.read_model import SILENT_AFTER_S

from ..site import Site, site_of

router = APIRouter()
SiteDep = Annotated[Site, Depends(site_of)]


@router.get("/status", response_class=HTMLResponse)
def status_page(request: Request, site: SiteDep) -> Response:
    status = site.ladder.status(SILENT_AFTER_S)
    return site.page(request, "status.html", status=status, poll=site.poll_seconds)


@router.get("/api/status")
def api_status(site: SiteDep) -> dict[str, Any]:
    return site.ladder.status(SILENT_AFTER_S).as_json()


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> Response:
    # Browsers ask here whatever the page links; the icon is the page's.
    return RedirectResponse("/static/favicon.svg", status_code=301)
