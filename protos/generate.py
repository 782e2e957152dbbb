"""Regenerate the Python code for the protocol into the SDK (checked in; see README).

Run from the repository root: ``python protos/generate.py``. The output is committed so the
SDK installs with grpcio and protobuf alone; tests/protocol/test_generated.py fails if the
checked-in files differ from a fresh generation.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from grpc_tools import protoc

PROTOS = Path(__file__).resolve().parent
PROTO_FILES = ["backalley/v1/player.proto"]


def generate(out: Path) -> None:
    """Write ``*_pb2.py``, ``*_pb2_grpc.py`` and their typed stubs under ``out``."""
    args = [
        "protoc",
        f"-I{PROTOS}",
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        f"--mypy_out={out}",
        f"--mypy_grpc_out={out}",
        *PROTO_FILES,
    ]
    # protoc finds the mypy plugins (protoc-gen-mypy*) on PATH, beside this interpreter.
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    if protoc.main(args) != 0:
        raise SystemExit("error: protoc failed")


if __name__ == "__main__":
    generate(Path(sys.argv[1]) if len(sys.argv) > 1 else PROTOS.parent / "sdk")
