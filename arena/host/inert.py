"""Text from bots (their names, their logs, what their exceptions said) made inert for a
terminal: every control character shown as an escape, so no bot can move the cursor, retitle
the window, hide a line or hand the terminal an escape sequence.

>>> inert("evil\\x1b[2J\\x07name")
'evil\\\\x1b[2J\\\\x07name'
>>> inert("line one\\nline two\\ttab", keep_lines=True)
'line one\\nline two\\ttab'
>>> inert("left\\u202eright")
'left\\\\u202eright'
"""

from __future__ import annotations

import unicodedata
from typing import Any

_KEPT_IN_LINES = frozenset("\n\t")


def inert(text: str, *, keep_lines: bool = False) -> str:
    """``text`` with each control character (C0, DEL, C1, and the invisible format
    characters such as bidirectional overrides) replaced by its escape; with ``keep_lines``
    newlines and tabs stay as they are (a log's lines)."""
    return "".join(_shown(ch, keep_lines) for ch in text)


def _shown(ch: str, keep_lines: bool) -> str:
    if ch.isprintable() or ch == " " or (keep_lines and ch in _KEPT_IN_LINES):
        return ch
    if unicodedata.category(ch) == "Zs":  # a space of another width: harmless
        return ch
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def inert_bytes(data: bytes) -> str:
    """A log as text fit for a terminal: undecodable bytes and control characters escaped."""
    return inert(data.decode("utf-8", errors="backslashreplace"), keep_lines=True)


def inert_tree(value: Any) -> Any:
    """A JSON-like value (dicts, lists, strings, numbers) with every string inert, keys too:
    what a page or a JSON answer may show of text from bots and users."""
    if isinstance(value, str):
        return inert(value)
    if isinstance(value, dict):
        return {inert_tree(k): inert_tree(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [inert_tree(v) for v in value]
    return value


__all__ = ["inert", "inert_bytes", "inert_tree"]
