"""Web sessions: after signing in with a token once, a cookie signed with HMAC-SHA256 holds
that token's SHA-256 (never the token) and an expiry. Each request finds the user again
through the store, so a revoked or expired token's session ends at once. The standard
library's ``hmac`` is all this needs: one value, one key, no session storage."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import time

COOKIE = "arena_session"
SECRET_ENV = "ARENA_WEB_SECRET"
MAX_AGE = 7 * 24 * 3600  # seconds


def secret_from_env() -> bytes:
    """``$ARENA_WEB_SECRET`` (so sessions outlive a restart and work across replicas), else
    a fresh random key: sessions then end when the server stops."""
    configured = os.environ.get(SECRET_ENV, "")
    return configured.encode() if configured else secrets.token_bytes(32)


class Sessions:
    def __init__(self, secret: bytes) -> None:
        self._key = secret

    def _sign(self, value: str) -> str:
        mac = hmac.new(self._key, value.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")

    def cookie_for(self, digest: str, now: float | None = None) -> str:
        """The cookie's value for a session of the token whose SHA-256 is ``digest``, valid
        for MAX_AGE."""
        expires = int((time.time() if now is None else now) + MAX_AGE)
        value = f"{digest}.{expires}"
        return f"{value}.{self._sign(value)}"

    def digest_of(self, cookie: str | None) -> str | None:
        """The token hash a cookie holds, if we signed it and it has not expired."""
        if not cookie or len(cookie) > 200:
            return None
        value, _, mac = cookie.rpartition(".")
        digest, _, expires = value.partition(".")
        if not hmac.compare_digest(mac.encode(), self._sign(value).encode()):
            return None
        if not expires.isdigit() or int(expires) <= time.time():
            return None
        return digest
