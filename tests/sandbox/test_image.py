"""The bot runtime image: its tag follows its content, and a bot's Python works in it."""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import docker
import pytest

from arena.images.bot_images import (
    LABEL_HASH,
    REQUIREMENTS,
    build_image_tag,
    content_hash,
    default_mirror,
    default_sdk_dir,
    ensure_image,
    image_tag,
    sdk_files,
)
from arena.sandbox.docker_engine import docker_available, docker_client
from arena.sandbox.errors import SandboxError
from tests.cli.runner import error_line, run_arena


@pytest.fixture
def sdk_copy(tmp_path: Path) -> Path:
    """A copy of the SDK's hashed files: the tests may change it freely."""
    src = default_sdk_dir()
    dst = tmp_path / "sdk"
    for rel in sdk_files(src):
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / rel, dst / rel)
    return dst


def test_tag_names_the_repository_and_12_hex_digits() -> None:
    tag = image_tag()
    assert re.fullmatch(r"backalley-bot:[0-9a-f]{12}", tag), tag
    assert tag == image_tag()
    assert tag.endswith(content_hash()[:12])


def test_tag_follows_the_sdk_content(sdk_copy: Path) -> None:
    original = image_tag()
    assert image_tag(sdk_copy) == original  # the hash covers names and bytes, not where

    client_py = sdk_copy / "arena_sdk" / "__init__.py"
    client_py.write_bytes(client_py.read_bytes() + b"\n# changed\n")
    changed = image_tag(sdk_copy)
    assert changed != original

    (sdk_copy / "arena_sdk" / "extra.py").write_text("X = 1\n")
    assert image_tag(sdk_copy) not in (original, changed)


def test_build_leftovers_do_not_change_the_tag(sdk_copy: Path) -> None:
    before = image_tag(sdk_copy)
    (sdk_copy / "arena_sdk" / "__pycache__").mkdir()
    (sdk_copy / "arena_sdk" / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0")
    (sdk_copy / "backalley_sdk.egg-info").mkdir()
    (sdk_copy / "backalley_sdk.egg-info" / "PKG-INFO").write_text("x")
    (sdk_copy / "build").mkdir()  # not one of the SDK's parts
    (sdk_copy / "build" / "junk.py").write_text("x")
    assert image_tag(sdk_copy) == before


def test_a_missing_sdk_is_a_sandbox_error(tmp_path: Path) -> None:
    with pytest.raises(SandboxError, match="no SDK source"):
        image_tag(tmp_path)


def test_the_mirror_is_the_debian_main_archive_of_the_apt_sources(tmp_path: Path) -> None:
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list").write_text(
        "# deb http://old.example/debian bookworm main\n"
        "deb [arch=amd64] http://sec.example/debian-security bookworm-security main\n"
    )
    (tmp_path / "sources.list.d" / "other.list").write_text(
        "deb http://vendor.example/apt stable main\n"
    )
    (tmp_path / "sources.list.d" / "debian.sources").write_text(
        "Types: deb\nURIs: http://sec.example/debian-security\nSuites: bookworm-security\n"
        "Components: main\n\n"
        "Types: deb\n# a comment\nURIs: http://mirror.example/debian/\n"
        "Suites: bookworm bookworm-updates\nComponents: main\n"
    )
    assert default_mirror(tmp_path) == "http://mirror.example/debian/"

    (tmp_path / "sources.list.d" / "debian.sources").unlink()
    with pytest.raises(SandboxError, match="--mirror"):
        default_mirror(tmp_path)


def test_the_registry_dockerfile_pins_what_the_offline_build_pins() -> None:
    dockerfile = (default_sdk_dir().parent / "Dockerfile.bot").read_text()
    pins = set(re.findall(r"[\w.-]+==[\w.]+", dockerfile))
    assert pins == set(REQUIREMENTS)
    for line in ("USER 65534:65534", "WORKDIR /bot", 'CMD ["python3", "bot.py"]'):
        assert line in dockerfile.splitlines()


def test_image_tag_command_prints_the_tag() -> None:
    result = run_arena("image", "tag")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == image_tag()


def test_build_with_no_engine_is_one_error_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent")
    result = run_arena("image", "build")
    assert result.returncode == 2
    assert "the Docker engine does not answer" in error_line(result)


# --- with a Docker engine --------------------------------------------------------------


@pytest.fixture(scope="module")
def client() -> Iterator[docker.DockerClient]:
    if not docker_available():
        pytest.skip("no Docker engine answers")
    c = docker_client()
    yield c
    c.close()


@pytest.fixture(scope="module")
def tag(client: docker.DockerClient) -> str:
    """The real image: built here if CI has not built it already (about 1-3 minutes)."""
    return ensure_image(client)


VERSIONS = """
import importlib.metadata as m, json, os, sys
import arena_sdk, grpc, google.protobuf, numpy
assert numpy.arange(4).sum() == 6
try:
    open("/bot/x", "w")
except OSError:
    pass
else:
    raise SystemExit("the root file system is writable")
open("/tmp/x", "w").write("ok")
print(json.dumps({"uid": os.getuid(), "cwd": os.getcwd(), "python": sys.version.split()[0],
    **{name: m.version(name) for name in
       ("grpcio", "protobuf", "numpy", "typing_extensions", "backalley-sdk")}}))
"""


@pytest.mark.docker
def test_a_bot_python_imports_the_sdk_grpc_and_numpy(client: docker.DockerClient, tag: str) -> None:
    output = client.containers.run(
        tag, ["python3", "-c", VERSIONS], network_mode="none",
        user="65534:65534", read_only=True, tmpfs={"/tmp": ""}, remove=True,
    )  # fmt: skip
    facts = json.loads(output)
    assert facts["uid"] == 65534
    assert facts["cwd"] == "/bot"
    assert facts["python"].startswith("3.11.")
    pins = dict(r.split("==") for r in REQUIREMENTS)
    assert facts["grpcio"] == pins["grpcio"]
    assert facts["protobuf"] == pins["protobuf"]
    assert facts["numpy"] == pins["numpy"]
    assert facts["backalley-sdk"]


@pytest.mark.docker
def test_the_image_carries_its_content_hash(client: docker.DockerClient, tag: str) -> None:
    config = client.images.get(tag).attrs["Config"]
    assert config["Labels"][LABEL_HASH] == content_hash()
    assert config["User"] == "65534:65534"
    assert config["WorkingDir"] == "/bot"
    assert config["Cmd"] == ["python3", "bot.py"]


@pytest.mark.docker
def test_a_second_ensure_is_a_no_op(client: docker.DockerClient, tag: str) -> None:
    before = client.images.get(tag).id
    steps: list[str] = []
    start = time.monotonic()
    assert ensure_image(client, progress=steps.append) == tag
    assert time.monotonic() - start < 20  # a look-up, not a build (generous: CI is busy)
    assert steps == [f"image {tag}: already present"]
    assert client.images.get(tag).id == before


@pytest.mark.docker
def test_build_command_when_present_says_so(tag: str) -> None:
    result = run_arena("image", "build")
    assert result.returncode == 0, result.stderr
    build_tag = build_image_tag()
    assert result.stdout.splitlines() == [
        f"{tag}: already present",
        f"{build_tag}: already present",
    ]


@pytest.mark.docker
def test_a_failed_debootstrap_leaves_no_cache_file_and_no_tag(
    client: docker.DockerClient, sdk_copy: Path, tmp_path: Path
) -> None:
    if shutil.which("debootstrap") is None and not Path("/usr/sbin/debootstrap").exists():
        pytest.skip("debootstrap is not installed")
    (sdk_copy / "arena_sdk" / "extra.py").write_text("X = 1\n")  # a tag nobody has built
    cache = tmp_path / "cache"
    with pytest.raises(SandboxError, match=r"^debootstrap (failed|needs root)"):
        ensure_image(client, mirror="http://127.0.0.1:9/debian", cache_dir=cache, sdk_dir=sdk_copy)
    assert [p.name for p in cache.iterdir()] == [".build.lock"]  # no half-written base
    with pytest.raises(docker.errors.ImageNotFound):
        client.images.get(image_tag(sdk_copy))
