"""The store's errors: each is one line a person can act on (the CLI exits with status 2)."""

from __future__ import annotations


class StoreError(Exception):
    """Something the store refused, or a database that doesn't answer. One line."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))


class Unavailable(StoreError):
    """The database doesn't answer (or can't be opened)."""


class AuthError(StoreError):
    """A wrong token, or none."""


class Forbidden(StoreError):
    """A user asking for what is another user's (another's bot's logs)."""


class NameTaken(StoreError):
    """A user, bot or tournament name that someone else already has."""


class TooMany(StoreError):
    """A user at a cap the store keeps (live tokens)."""


class NotFound(StoreError):
    """An unknown id or name."""
