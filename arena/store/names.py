"""What a stored name may be: a user's, a bot's, a tournament's, a token's."""

from __future__ import annotations

from .errors import StoreError


def check_name(what: str, name: str) -> None:
    if not name or len(name) > 64 or not name.isprintable() or name.strip() != name:
        raise StoreError(f"{what} name {name!r}: 1-64 printable characters, no outer spaces")
