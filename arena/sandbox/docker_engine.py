"""The one way to reach the Docker engine: fail with a one-line ``SandboxError`` if it is down."""

from __future__ import annotations

import docker
import docker.errors
import requests.exceptions

from .errors import SandboxError


def docker_client(timeout_s: float = 60.0) -> docker.DockerClient:
    """A client for the engine named by ``DOCKER_HOST`` (default: the local socket)."""
    try:
        client = docker.from_env(timeout=int(timeout_s))
        client.ping()
    except (docker.errors.DockerException, requests.exceptions.RequestException) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise SandboxError(f"the Docker engine does not answer: {first}") from None
    return client


def docker_available() -> bool:
    try:
        docker_client(timeout_s=5).close()
    except SandboxError:
        return False
    return True
