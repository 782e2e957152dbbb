"""Users' tokens: each named by its user, kept only as its SHA-256, valid until it expires or
is revoked. Authenticating finds the token's hash and compares it in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

from sqlalchemy import func, or_
from sqlmodel import Session, col, select

from .base import StoreBase
from .errors import AuthError, Forbidden, NameTaken, NotFound, StoreError, TooMany
from .models import Token, User
from .names import check_name

# A user's live tokens (neither expired nor revoked) at most: enough for every machine and CI
# job a person has, few enough that a stolen token cannot mint a crowd of others.
MAX_LIVE_TOKENS = 20


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token(session: Session, user_id: int, name: str, expires_at: float | None) -> str:
    """Add a token for the user in ``session``; returns it (the only time it is seen)."""
    check_name("token", name)
    taken = select(Token).where(Token.user_id == user_id, Token.name == name)
    if session.exec(taken).first() is not None:
        raise NameTaken(f"you already have a token named {name!r}")
    token = secrets.token_urlsafe(32)
    now = time.time()
    if expires_at is not None and expires_at <= now:
        raise StoreError("a token's expiry must be in the future")
    # The user's row locked (PostgreSQL; SQLite's write transaction is already alone), so
    # two creations at once cannot both pass the count.
    session.exec(select(User.id).where(User.id == user_id).with_for_update()).first()
    live = session.exec(
        select(func.count())
        .select_from(Token)
        .where(Token.user_id == user_id)
        .where(or_(col(Token.expires_at).is_(None), col(Token.expires_at) > now))
    ).one()
    if live >= MAX_LIVE_TOKENS:
        raise TooMany(
            f"you have {live} live tokens, the most a user may have ({MAX_LIVE_TOKENS}):"
            " revoke one first (arena token list, arena token revoke NAME)"
        )
    session.add(
        Token(
            user_id=user_id,
            name=name,
            token_hash=token_hash(token),
            created_at=now,
            expires_at=expires_at,
        )
    )
    session.flush()
    return token


class Tokens(StoreBase):
    def authenticate(self, token: str) -> User:
        return self.authenticate_hash(token_hash(token))

    def authenticate_hash(self, digest: str) -> User:
        """The user of the token whose SHA-256 is ``digest`` (a web session holds only
        that), as long as it is neither revoked nor expired."""
        with self._session() as session:
            found = session.exec(
                select(Token, User)
                .join(User, col(User.id) == Token.user_id)
                .where(Token.token_hash == digest)
            ).first()
        if found is None or not hmac.compare_digest(found[0].token_hash, digest):
            raise AuthError("wrong token")
        if found[0].expires_at is not None and found[0].expires_at <= time.time():
            raise AuthError(
                f"token {found[0].name!r} has expired: make another (arena token create)"
            )
        return found[1]

    def create_token(self, user: User, name: str, expires_at: float | None = None) -> str:
        """A new token for ``user``; returns it, shown once and stored only hashed."""
        assert user.id is not None
        user_id = user.id
        return self._retrying(lambda session: new_token(session, user_id, name, expires_at))

    def tokens(self, user: User) -> list[Token]:
        """The user's tokens (their names and times; never the tokens), oldest first."""
        with self._session() as session:
            query = select(Token).where(Token.user_id == user.id).order_by(col(Token.id))
            return list(session.exec(query))

    def revoke_token(self, by: User, name: str, owner: str | None = None) -> Token:
        """Revoke the token ``name`` of ``owner`` (default: ``by`` themselves); only an
        operator revokes another user's."""
        with self._session(write=True) as session:
            if owner is None or owner == by.name:
                user_id = by.id
            elif not by.operator:
                raise Forbidden("only an operator revokes another user's tokens")
            else:
                user = session.exec(select(User).where(User.name == owner)).first()
                if user is None:
                    raise NotFound(f"unknown user {owner!r}")
                user_id = user.id
            token = session.exec(
                select(Token).where(Token.user_id == user_id, Token.name == name)
            ).first()
            if token is None:
                whose = "you have" if user_id == by.id else f"{owner} has"
                raise NotFound(f"{whose} no token named {name!r} (arena token list)")
            session.delete(token)
        return token
