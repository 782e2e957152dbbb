"""Regenerate the Python code for the protos (checked in; see README).

Run from the repository root: ``python protos/generate.py``. The player protocol goes into
the SDK (so it installs with grpcio and protobuf alone), the arena service's into the
platform package; the JavaScript SDK loads the player protocol's .proto itself at run time
(@grpc/proto-loader), so it gets a copy of the file. tests/protocol/test_generated.py fails
if the checked-in files differ from a fresh generation. ``python protos/generate.py DIR``
writes both under DIR instead.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from grpc_tools import protoc

PROTOS = Path(__file__).resolve().parent
ROOT = PROTOS.parent
# Each .proto and the directory its package's code goes under.
TARGETS = {"backalley/v1/player.proto": ROOT / "sdk", "arena/service/v1/arena.proto": ROOT}
JS_PROTO = "backalley/v1/player.proto"  # copied under sdk-js/proto/ (tests/sdk_js checks it)


def generate(proto: str, out: Path) -> None:
    """Write ``*_pb2.py``, ``*_pb2_grpc.py`` and their typed stubs under ``out``."""
    args = [
        "protoc",
        f"-I{PROTOS}",
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        f"--mypy_out={out}",
        f"--mypy_grpc_out={out}",
        proto,
    ]
    # protoc finds the mypy plugins (protoc-gen-mypy*) on PATH, beside this interpreter.
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    if protoc.main(args) != 0:
        raise SystemExit("error: protoc failed")


if __name__ == "__main__":
    for proto, out in TARGETS.items():
        generate(proto, Path(sys.argv[1]) if len(sys.argv) > 1 else out)
    if len(sys.argv) == 1:
        shutil.copyfile(PROTOS / JS_PROTO, ROOT / "sdk-js" / "proto" / JS_PROTO)
