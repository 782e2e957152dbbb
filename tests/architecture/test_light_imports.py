"""The thin remote client stays thin: importing it (or the read model, or the converters)
in a fresh interpreter loads neither the Docker SDK nor SQLAlchemy nor SQLModel (nor numpy).

A client of an ``arena server`` needs none of them; they are what makes the platform's own
imports take a second. Each module is imported alone, in a new process, so that nothing an
earlier test imported can hide what it pulls in.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("docker", "sqlalchemy", "sqlmodel", "numpy")

LIGHT = ("arena.read_model", "arena.service.client", "arena.service.convert")


def heavy_loaded_by(module: str) -> list[str]:
    """The heavy packages' modules in ``sys.modules`` once ``module`` alone is imported
    (from this checkout)."""
    probe = (
        f"import json, sys, {module} as m\n"
        f"heavy = sorted(n for n in sys.modules if n.split('.')[0] in {set(HEAVY)!r})\n"
        "print(json.dumps({'file': m.__file__, 'heavy': heavy}))"
    )
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "sdk")])}
    found = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert found.returncode == 0, found.stderr
    report = json.loads(found.stdout)
    assert Path(report["file"]).is_relative_to(ROOT)
    heavy: list[str] = report["heavy"]
    return heavy


@pytest.mark.parametrize("module", LIGHT)
def test_a_light_module_loads_nothing_heavy(module: str) -> None:
    assert heavy_loaded_by(module) == []


def test_the_probe_sees_a_heavy_import() -> None:
    """The check itself: the store does load SQLAlchemy and SQLModel."""
    loaded = heavy_loaded_by("arena.store")
    assert "sqlalchemy" in loaded and "sqlmodel" in loaded
