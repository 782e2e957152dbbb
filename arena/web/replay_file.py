"""One replay file in the viewer: served over HTTP (``arena replay view``) or written as one
self-contained HTML file (``arena replay html``). Both render ``replay.html`` and
``static/replay.js``, the templates and the module a stored match is shown with."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from markupsafe import Markup

from arena.engine.replay import ReplayError, verify_replay

from .app import add_security_headers
from .site import HERE, page_templates


class ReplayFileError(ValueError):
    """A replay file that can't be shown: unreadable, not JSON, or breaking the rules."""


def read_replay(path: Path) -> dict[str, Any]:
    """The replay in ``path``, re-run by the engine's verifier first; ReplayFileError (one
    line naming the file and the problem) if it is not a valid replay."""
    try:
        data = json.loads(path.read_bytes())
    except OSError as e:
        raise ReplayFileError(f"{path}: cannot read: {e.strerror or e}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ReplayFileError(f"{path}: not JSON: {e}") from None
    try:
        verify_replay(data)
    except ReplayError as e:
        raise ReplayFileError(f"{path}: {e}") from None
    assert isinstance(data, dict)  # the verifier accepts only an object
    return data


def _context(path: Path, replay: dict[str, Any]) -> dict[str, Any]:
    return {"replay": replay, "title": path.name, "local": "a replay file", "back": None}


def create_file_app(path: Path, replay: dict[str, Any]) -> FastAPI:
    """An app that shows ``replay`` (read from ``path``) at ``/``, its JSON at
    ``/replay.json``, under the web app's CSP."""
    app = FastAPI(title="Back Alley Arena", docs_url=None, redoc_url=None, openapi_url=None)
    templates = page_templates()
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    add_security_headers(app)
    context = _context(path, replay)

    @app.get("/", response_class=HTMLResponse)
    def viewer(request: Request) -> HTMLResponse:
        return templates.TemplateResponse(
            request,
            "replay.html",
            {**context, "download": "/replay.json", "download_name": path.name},
        )

    @app.get("/replay.json")
    def replay_json() -> JSONResponse:
        return JSONResponse(replay)

    return app


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def standalone_html(path: Path, replay: dict[str, Any]) -> str:
    """The viewer of ``replay`` as one HTML page: the style, the module and the replay
    inlined, and a CSP that allows only those two by their hashes (so it asks no host for
    anything, even opened from a file)."""
    css = (HERE / "static" / "arena.css").read_text()
    js = (HERE / "static" / "replay.js").read_text()
    # Ours, but inlined raw: neither may close its element early.
    assert "</style" not in css.lower() and "</script" not in js.lower()
    csp = (
        f"default-src 'none'; script-src {_sha256(js)}; style-src {_sha256(css)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    standalone = {"css": Markup(css), "js": Markup(js), "csp": csp}
    template = page_templates().get_template("replay.html")
    return template.render(**_context(path, replay), download=None, standalone=standalone)
