"""A bot's build in a container of the build image: the compilers, no network, no
capabilities, a uid of its own, bounded in time, memory, processes and output; only the
bot's copy of its code (mounted at /bot) and a /tmp are writable."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Sequence
from pathlib import Path

import docker
import docker.errors
import docker.types
import requests.exceptions

from .base import describe_exit
from .build import BUILD_ENV, BuildLimits, BuildOutcome
from .errors import SandboxError
from .identity import claim_uid, release_uid

_ENGINE_ERRORS = (docker.errors.DockerException, requests.exceptions.RequestException)


def docker_build(
    client: docker.DockerClient,
    image: str,
    bot_dir: Path,
    command: Sequence[str],
    limits: BuildLimits,
    *,
    runtime: str,
    labels: dict[str, str],
) -> BuildOutcome:
    """Run ``command`` in ``bot_dir`` (on the engine's host) in a build container."""
    try:
        client.images.get(image)
    except docker.errors.ImageNotFound:
        raise SandboxError(
            f"the build image {image} does not exist: build it with `arena image build`"
        ) from None
    except _ENGINE_ERRORS as e:
        raise SandboxError(f"the Docker engine failed to look up {image}: {e}") from None
    uid = claim_uid()
    where = bot_dir.resolve()
    _own(where, uid)  # the build writes its product here, as its own uid
    api = client.api
    container = None
    try:
        host_config = api.create_host_config(
            network_mode="none",
            read_only=True,
            binds={str(where): {"bind": "/bot", "mode": "rw"}},
            tmpfs={"/tmp": f"rw,nosuid,nodev,size={limits.tmp_mb}m,mode=1777"},
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            mem_limit=f"{limits.memory_mb}m",
            memswap_limit=f"{limits.memory_mb}m",
            pids_limit=limits.pids,
            # The engine keeps the output in a file it bounds: its last part is the reason.
            log_config=docker.types.LogConfig(
                type="json-file", config={"max-size": str(limits.output_bytes), "max-file": "1"}
            ),
            runtime=runtime,
        )
        container = api.create_container(
            image, list(command), user=f"{uid}:{uid}", working_dir="/bot", labels=labels,
            environment=dict(BUILD_ENV), network_disabled=True, host_config=host_config,
        )["Id"]  # fmt: skip
        api.start(container)
        started = time.monotonic()
        try:
            code = api.wait(container, timeout=int(limits.seconds))["StatusCode"]
            failure = None if code == 0 else describe_exit(128 - code if code > 128 else code)
        except (requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError):  # timed out
            with contextlib.suppress(*_ENGINE_ERRORS):
                api.kill(container)
            failure = f"timed out after {time.monotonic() - started:.0f} s"
        if failure is not None and api.inspect_container(container)["State"].get("OOMKilled"):
            failure = f"out of memory (killed at its {limits.memory_mb} MiB limit)"
        output = api.logs(container, stdout=True, stderr=True)
        return BuildOutcome(failure, output[-limits.output_bytes :])
    except _ENGINE_ERRORS as e:
        raise SandboxError(f"the Docker engine failed to run a build: {e}") from None
    finally:
        if container is not None:
            with contextlib.suppress(*_ENGINE_ERRORS):
                api.remove_container(container, force=True, v=True)
        _own(where, os.geteuid())  # the product, back to the platform
        release_uid(uid)


def _own(top: Path, uid: int) -> None:
    if os.geteuid() != 0:
        return  # only root can give files away; a platform that is not root builds as itself
    for path in (top, *top.rglob("*")):
        os.chown(path, uid, uid, follow_symlinks=False)
