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


__all__ = ["inert", "inert_bytes"]
