"""compose.yaml, as Compose reads it: valid, with PostgreSQL, the server and the worker; the
worker, which starts bots, able to do so through the host's engine, to freeze them and to
give them lxcfs's files; the server and the web, which play no game, mounting nothing.

Checked with Debian's ``docker-compose`` (1.29; ``./run test`` installs it), which parses,
interpolates and validates the file without building or starting anything. Skipped when it
is missing, except under CI (``CI=true``), where that is a failure, never a silent skip.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path, PurePosixPath

import pytest

from arena.sandbox.freezer import HOST_CGROUP_ROOT
from arena.sandbox.procview import LXCFS_DIR

ROOT = Path(__file__).resolve().parents[2]
SOCKET = "/var/run/docker.sock"
CGROUP = "/sys/fs/cgroup"


def compose(*args: str) -> str:
    """``docker-compose -f compose.yaml ARGS`` from the repository's root: its stdout."""
    exe = shutil.which("docker-compose")
    if exe is None:
        message = "docker-compose is not installed (apt-get install docker-compose)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{message}, and CI=true: the compose tests must run")
        pytest.skip(message)
    done = subprocess.run(
        [exe, "-f", "compose.yaml", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, f"docker-compose {' '.join(args)}: {done.stderr}"
    return done.stdout


def test_the_file_is_valid() -> None:
    compose("config", "--quiet")


def test_the_services_and_the_database_volume() -> None:
    services = {"postgres", "server", "web", "worker"}
    assert set(compose("config", "--services").split()) == services
    assert "postgres" in compose("config", "--volumes").split()


def test_bots_can_be_started_through_the_hosts_engine() -> None:
    service = "worker"
    block = service_block(compose("config"), service)
    mounts = volumes(block)
    assert (SOCKET, SOCKET) in mounts, f"{service} does not mount the Docker socket: {mounts}"
    # The engine resolves a bind mount's source on the host: the directory the sandbox makes
    # bots' mounts in must be in a host directory mounted at the very same path.
    shared = PurePosixPath(setting(block, "ARENA_SANDBOX_DIR"))
    same_path = [PurePosixPath(s) for s, t in mounts if s == t and s != SOCKET]
    assert any(shared.is_relative_to(d) for d in same_path), (shared, mounts)
    assert setting(block, "ARENA_SANDBOX") == "docker"
    assert setting(block, "ARENA_DATABASE_URL").startswith("postgresql")
    assert re.search(r"^\s+postgres:\s*$", block, re.MULTILINE), f"{service}: no depends_on"


def test_the_worker_can_freeze_its_bots_and_give_them_lxcfs() -> None:
    mounts = volumes(service_block(compose("config"), "worker"))
    # The host's cgroup tree where the freezer looks for a bot's cgroup by its id; lxcfs's
    # files at the host's path, which the engine resolves when it binds them into a bot.
    assert (CGROUP, str(HOST_CGROUP_ROOT)) in mounts, mounts
    assert (str(LXCFS_DIR), str(LXCFS_DIR)) in mounts, mounts


@pytest.mark.parametrize("service", ["server", "web"])
def test_the_services_that_play_no_game_mount_nothing(service: str) -> None:
    block = service_block(compose("config"), service)
    assert SOCKET not in block  # no power over the host's engine
    assert not re.search(r"^\s+volumes:", block, re.MULTILINE), block


def test_the_web_is_read_only_and_on_this_host_by_default() -> None:
    block = service_block(compose("config"), "web")
    assert SOCKET not in block  # it starts no bot: no power over the host's engine
    assert re.search(r"host_ip: 127\.0\.0\.1|127\.0\.0\.1:8000:8000", block), block
    assert setting(block, "ARENA_DATABASE_URL").startswith("postgresql")


# --- reading `docker-compose config` without a YAML library ---------------------------------
# Its output is YAML in a fixed shape (block style, two-space indents, sorted keys): a
# service's block is the lines under "  NAME:"; a list is the "- " items under its key.


def service_block(config: str, name: str) -> str:
    lines = config.splitlines()
    start = lines.index(f"  {name}:") + 1
    end = next((i for i in range(start, len(lines)) if _indent(lines[i]) <= 2), len(lines))
    return "\n".join(lines[start:end])


def volumes(block: str) -> list[tuple[str, str]]:
    """(source, target) of each mount: ``- SRC:DST[:MODE]``, or ``source:`` / ``target:``."""
    lines = block.splitlines()
    key = next(i for i, line in enumerate(lines) if line.strip() == "volumes:")
    depth = _indent(lines[key])
    items: list[dict[str, str]] = []
    for line in lines[key + 1 :]:
        text = line.strip()
        if _indent(line) < depth or (_indent(line) == depth and not text.startswith("- ")):
            break
        if text.startswith("- "):
            items.append({})
            text = text[2:]
        field = re.fullmatch(r"([\w-]+):(?: (.*))?", text)
        if field:  # the long form's "source: SRC", "target: DST", "type: bind", ...
            items[-1][field.group(1)] = (field.group(2) or "").strip("'\"")
        else:  # the short form: SRC:DST[:MODE]
            source, target = text.split(":")[:2]
            items[-1].update(source=source, target=target)
    return [(i["source"], i["target"]) for i in items if "source" in i and "target" in i]


def setting(block: str, variable: str) -> str:
    found = re.search(rf"^\s+{variable}: ['\"]?(.*?)['\"]?$", block, re.MULTILINE)
    assert found, f"{variable} is not set"
    return found.group(1)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))
