"""The checked-in protocol code is exactly what protos/generate.py makes of the .proto."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKED_IN = ROOT / "sdk" / "backalley" / "v1"


def test_regenerating_the_protocol_code_gives_the_checked_in_files(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "protos" / "generate.py"), str(tmp_path)],
        check=True,
        capture_output=True,
    )
    fresh = tmp_path / "backalley" / "v1"
    generated = sorted(p.name for p in fresh.iterdir())
    assert generated == [
        "player_pb2.py",
        "player_pb2.pyi",
        "player_pb2_grpc.py",
        "player_pb2_grpc.pyi",
    ]
    for name in generated:
        assert (fresh / name).read_bytes() == (CHECKED_IN / name).read_bytes(), (
            f"sdk/backalley/v1/{name} is stale: run python protos/generate.py"
        )
