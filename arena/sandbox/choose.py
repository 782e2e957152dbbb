"""Which backend runs the bots: asked for by name, else docker wherever an engine answers."""

from __future__ import annotations

import os
from collections.abc import Callable

from .base import Sandbox
from .docker_engine import docker_available, docker_client
from .errors import SandboxError
from .process import ProcessSandbox

KINDS = ("docker", "process", "none")


def default_kind(warn: Callable[[str], None], *, fallback: bool = True) -> str:
    """``$ARENA_SANDBOX`` if set; else docker if an engine answers; else process, said aloud
    -- or, without ``fallback`` (the ladder's commands: they run strangers' bots), a
    ``SandboxError``: a weaker sandbox is only ever the operator's explicit choice."""
    kind = os.environ.get("ARENA_SANDBOX")
    if kind:
        return kind
    if docker_available():
        return "docker"
    if not fallback:
        raise SandboxError(
            "no Docker engine answers, and the ladder runs bots only in containers unless "
            "told otherwise: start the engine, or pass --sandbox process (weaker) explicitly"
        )
    warn("no Docker engine answers: bots run as local processes, a weaker sandbox")
    return "process"


def open_sandbox(kind: str, *, python: str | None = None, image: str | None = None) -> Sandbox:
    """A ready backend; ``SandboxError`` names what is missing (engine, image, tool)."""
    if kind not in KINDS:
        raise SandboxError(f"unknown sandbox {kind!r}: expected one of {', '.join(KINDS)}")
    if kind == "docker":
        if python is not None:
            raise SandboxError("a bot's Python is the image's in the docker sandbox")
        from arena.images.bot_images import image_tag

        from .docker import DockerSandbox  # the docker SDK loads only when it is used

        return DockerSandbox(image or image_tag(), docker_client())
    return ProcessSandbox(confined=kind == "process", python=python)
