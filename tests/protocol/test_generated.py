"""The checked-in protocol code is exactly what protos/generate.py makes of the .proto."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Each package's generated code, where it is checked in.
CHECKED_IN = {
    "backalley/v1": (ROOT / "sdk" / "backalley" / "v1", "player"),
    "arena/service/v1": (ROOT / "arena" / "service" / "v1", "arena"),
}


def test_regenerating_the_protocol_code_gives_the_checked_in_files(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "protos" / "generate.py"), str(tmp_path)],
        check=True,
        capture_output=True,
    )
    for package, (checked_in, stem) in CHECKED_IN.items():
        fresh = tmp_path / package
        generated = sorted(p.name for p in fresh.iterdir())
        assert generated == [
            f"{stem}_pb2.py",
            f"{stem}_pb2.pyi",
            f"{stem}_pb2_grpc.py",
            f"{stem}_pb2_grpc.pyi",
        ]
        for name in generated:
            assert (fresh / name).read_bytes() == (checked_in / name).read_bytes(), (
                f"{package}/{name} is stale: run python protos/generate.py"
            )
