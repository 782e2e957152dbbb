"""Infrastructure failures: never a bot's fault, never a game result."""

from __future__ import annotations


class SandboxError(RuntimeError):
    """The platform could not run a bot (engine down, image missing, ...); not a bot fault."""
