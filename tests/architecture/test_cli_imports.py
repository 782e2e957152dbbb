"""The ``arena`` command starts at once: its modules import only what parsing needs, and each
command the rest as it runs. ``arena --version`` and ``--help`` load neither the store nor
the sandbox nor gRPC (nor SQLAlchemy, the Docker SDK or numpy under them), and a read
through a server (``--server``) loads gRPC's client and neither SQLAlchemy nor Docker.

Each command runs in a fresh interpreter from this checkout, as the console script runs it
(``arena.__main__.main``); what it loaded is read from ``sys.modules`` as it exits: modules,
not seconds, so the machine's load cannot change the outcome.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli.options import SANDBOX_KINDS
from arena.sandbox import KINDS

ROOT = Path(__file__).resolve().parents[2]

# Never loaded to parse: the platform's heavy layers and the packages that make them heavy.
AT_START = ("arena.store", "arena.sandbox", "sqlalchemy", "sqlmodel", "docker", "grpc", "numpy")
# Never loaded by a remote read: the local store and sandbox, and what they stand on.
REMOTE = ("arena.store", "arena.sandbox", "sqlalchemy", "sqlmodel", "docker", "numpy")

PROBE = """\
import json, os, sys
import arena
from arena.__main__ import main
sys.argv = ["arena", *sys.argv[1:]]
try:
    main()
    code = 0
except SystemExit as e:
    code = e.code
with open(os.environ["PROBE_OUT"], "w") as f:
    json.dump({"code": code, "file": arena.__file__, "modules": sorted(sys.modules)}, f)
"""


def run(tmp_path: Path, *args: str) -> tuple[object, list[str]]:
    """``arena ARGS...`` in a new interpreter: its exit status and the modules it loaded."""
    found = tmp_path / "modules.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env |= {
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "sdk")]),
        "ARENA_HOME": str(tmp_path / "home"),
        "PROBE_OUT": str(found),
        "NO_COLOR": "1",
    }
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert found.is_file(), done.stderr
    report = json.loads(found.read_text())
    modules: list[str] = report["modules"]
    assert Path(report["file"]).is_relative_to(ROOT)
    return report["code"], modules


def of(packages: tuple[str, ...], modules: list[str]) -> list[str]:
    """The modules that are one of ``packages`` or inside one."""
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in packages)]


@pytest.mark.parametrize(
    "args", [["--version"], ["--help"], ["ladder", "--help"], ["play", "--help"]], ids=" ".join
)
def test_version_and_help_load_nothing_heavy(tmp_path: Path, args: list[str]) -> None:
    code, modules = run(tmp_path, *args)
    assert code == 0
    assert "arena.cli.main" in modules  # every command group was loaded, for the help
    assert of(AT_START, modules) == []


def test_a_remote_read_loads_grpc_and_no_store(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nothing listens on: the call fails, one error line
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, modules = run(tmp_path, "ladder", "--server", f"127.0.0.1:{port}", "--plaintext")
    assert code == 2
    assert "arena.service.client" in modules and "grpc" in modules  # it did call the server
    assert of(REMOTE, modules) == []


def test_the_probe_sees_a_heavy_import(tmp_path: Path) -> None:
    """The check itself: a command that needs the sandbox loads it, and the Docker SDK."""
    code, modules = run(tmp_path, "image", "tag")
    assert code == 0
    assert {"arena.sandbox", "docker"} <= set(modules)


def test_the_cli_names_the_sandbox_s_backends() -> None:
    """``--sandbox``'s choices are spelled out in ``arena.cli.options`` so that ``--help``
    loads no sandbox: they are the sandbox's own."""
    assert SANDBOX_KINDS == KINDS
