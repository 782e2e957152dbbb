"""A bot in C++ and one in JavaScript, each as an archive with a ``bot.toml``: submitted
(the C++ one built once in the build image), validated and rated on the ladder in
containers; a compile error rejects its version with the compiler's last lines. (The
docker sandbox's limits and protections are the same for every bot, whatever starts it:
tests/sandbox.)"""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

import pytest

from arena.bots.submission import content_hash
from arena.images.bot_images import ensure_build_image, ensure_image
from arena.league.stored_files import built_key, code_key
from arena.sandbox.docker_engine import docker_client
from arena.store import VersionStatus

from .conftest import SAMPLE_BOTS, Arena


def archive_of(bot_dir: Path, dest: Path) -> Path:
    with tarfile.open(dest, "w:gz") as tar:
        tar.add(bot_dir, arcname=bot_dir.name)
    return dest


@pytest.mark.docker
def test_a_cpp_bot_is_built_validated_and_rated_in_containers(
    sqlite_arena: Arena, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_LADDER_PACE_MS", "0")  # unpaced: the pace is not the subject
    client = docker_client()
    try:  # built here if CI has not built them already (a few minutes)
        ensure_image(client)
        ensure_build_image(client)
    finally:
        client.close()
    arena = sqlite_arena
    token = arena.user("alice")
    archive = archive_of(SAMPLE_BOTS / "random_cpp", tmp_path / "random_cpp.tar.gz")

    submitted = arena.submit(archive, "cpp", token, "--sandbox", "docker")
    assert submitted.returncode == 0, submitted.stderr
    assert submitted.stdout == "cpp v1: active · 0 ladder matches scheduled\n"
    digest = content_hash(SAMPLE_BOTS / "random_cpp")
    blobs = {row[0] for row in arena.rows()["blobs"]}
    assert {code_key(digest), built_key(code_key(digest))} <= blobs  # the product, kept
    logs = json.loads(arena.ok("logs", "--validation", "cpp@1", "--token", token, "--json").stdout)
    assert "random_cpp: seat" in logs[0]["output"]  # its stderr, through the bridge

    # JavaScript through the JavaScript SDK the image carries (require("backalley-sdk")).
    js = archive_of(SAMPLE_BOTS / "random_js", tmp_path / "random_js.tar.gz")
    submitted = arena.submit(js, "js", token, "--sandbox", "docker")
    assert submitted.returncode == 0, submitted.stderr
    assert submitted.stdout == "js v1: active · 1 ladder match scheduled\n"

    arena.seed(token, "random", SAMPLE_BOTS / "random")  # a Python opponent, its match queued
    arena.ok("worker", "--until-idle", "--sandbox", "docker")
    rows = {r["bot"]: r for r in json.loads(arena.ok("ladder", "--json").stdout)}
    assert {bot: rows[bot]["pairs"] for bot in ("cpp", "js", "random")} == {
        "cpp": 2, "js": 2, "random": 2,
    }  # fmt: skip

    broken = tmp_path / "broken"
    shutil.copytree(SAMPLE_BOTS / "random_cpp", broken)
    (broken / "bot.cpp").write_text("int main() { return missing_function(); }\n")
    rejected = arena.submit(broken, "broken", token, "--sandbox", "docker")
    assert rejected.returncode == 2
    assert "broken v1 rejected: validation: build failed (exit status 1): " in rejected.stderr
    assert "'missing_function' was not declared in this scope" in rejected.stderr  # g++'s
    with arena.store() as store:
        assert store.versions("broken")[0].status == VersionStatus.REJECTED
    compiler = arena.ok("logs", "--validation", "broken@1", "--token", token, "--json").stdout
    assert "missing_function" in json.loads(compiler)[0]["output"]
    assert arena.leftovers() == []
