"""Structured logs on stderr: one line per event, as text or as JSON.

``ARENA_LOG_FORMAT`` chooses: ``text`` (the default) writes
``2026-01-31T12:00:00.123Z INFO arena.worker: match 7 (index 3): done in 4.1 s event=match_done
match=7 ...``; ``json`` writes one object per line, ``{"ts", "level", "logger", "msg"}`` and
every field the call passed in ``extra`` (``"exc"``: the traceback, when there is one).
``ARENA_LOG_LEVEL`` sets the level (default ``INFO``; alembic's logs: ``WARNING`` and up).

Code logs events with the stdlib: ``log.info("match done", extra={"event": "match_done",
"match": 7})``. An ``extra`` key must not be a ``LogRecord`` attribute (``name``, ``msg``,
``process``, ``module``, ...): logging refuses those.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from datetime import UTC, datetime
from typing import Any, TextIO

FORMATS = ("text", "json")
FORMAT_VARIABLE = "ARENA_LOG_FORMAT"
LEVEL_VARIABLE = "ARENA_LOG_LEVEL"
QUIET = ("alembic",)  # libraries logged from WARNING up only (alembic: its context, each start)

# Everything a LogRecord carries of its own; whatever else it has came from ``extra``.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "taskName",
}


def extra_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The fields the logging call passed in ``extra``, in the order it gave them."""
    return {
        key: value
        for key, value in vars(record).items()
        if key not in _STANDARD and not key.startswith("_")
    }


def _timestamp(record: logging.LogRecord) -> str:
    when = datetime.fromtimestamp(record.created, UTC)
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class JsonFormatter(logging.Formatter):
    """One JSON object per record: ts, level, logger, msg, the ``extra`` fields, exc."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": _timestamp(record),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in extra_fields(record).items():
            entry.setdefault(key, value)  # never hide the four fields above
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exc"] = record.exc_text
        return json.dumps(entry, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """``ts LEVEL logger: message key=value ...``, the traceback on the lines after."""

    def format(self, record: logging.LogRecord) -> str:
        fields = " ".join(f"{k}={_text_value(v)}" for k, v in extra_fields(record).items())
        line = f"{_timestamp(record)} {record.levelname} {record.name}: {record.getMessage()}"
        if fields:
            line = f"{line} {fields}"
        if record.exc_info:
            line = f"{line}\n{self.formatException(record.exc_info)}"
        return line


def _text_value(value: object) -> str:
    """A value as is, or quoted (JSON) if it is a string with spaces or quotes, or empty."""
    text = str(value)
    if isinstance(value, str) and (not text or any(c.isspace() or c == '"' for c in text)):
        return json.dumps(text, ensure_ascii=False)
    return text


class _ArenaHandler(logging.StreamHandler[TextIO]):
    """The handler ``setup_logging`` installs (and replaces when called again)."""


def setup_logging(fmt: str | None = None, *, stream: TextIO | None = None) -> None:
    """Send every logger's records to ``stream`` (default stderr), formatted as ``fmt``
    (default ``$ARENA_LOG_FORMAT``, else text), at ``$ARENA_LOG_LEVEL`` (default INFO).
    Raises ``ValueError`` (one line) for an unknown format or level."""
    chosen = fmt if fmt is not None else os.environ.get(FORMAT_VARIABLE) or "text"
    if chosen not in FORMATS:
        raise ValueError(f"{FORMAT_VARIABLE}={chosen!r}: it is {' or '.join(FORMATS)}")
    given = os.environ.get(LEVEL_VARIABLE) or "INFO"
    level_name = given.upper()
    levels = logging.getLevelNamesMapping()
    if level_name not in levels or level_name == "NOTSET":
        allowed = ", ".join(n for n in levels if n not in ("NOTSET", "WARN", "FATAL"))
        raise ValueError(f"{LEVEL_VARIABLE}={given!r}: it is one of {allowed}")
    handler = _ArenaHandler(sys.stderr if stream is None else stream)
    handler.setFormatter(JsonFormatter() if chosen == "json" else TextFormatter())
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, _ArenaHandler)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(levels[level_name])
    for name in QUIET:  # what they say at INFO is noise here
        logging.getLogger(name).setLevel(max(levels[level_name], logging.WARNING))
