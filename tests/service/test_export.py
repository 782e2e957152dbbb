"""``arena bots export NAME@V -o DIR --server ...``: a version's code to its owner and to
operators only, unpacked with a submission's checks, whole or not at all."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import grpc
import pytest

from arena.bots.submission import SubmissionError, content_hash
from arena.league.stored_files import export_archive
from arena.service.v1 import arena_pb2 as pb
from arena.service.v1 import arena_pb2_grpc as rpc
from tests.cli.runner import error_line

from .conftest import Service
from .test_internet import active_version, bearer
from .test_service import bot_copy

pytestmark = pytest.mark.postgres


def test_a_versions_code_to_its_owner_and_operators_only(service: Service, tmp_path: Path) -> None:
    with service.store() as store:
        ann, bob = (store.add_user(name) for name in ("ann", "bob"))
    boss = service.local("user", "add", "boss", "--operator").stdout.strip()
    code = bot_copy("heuristic", tmp_path / "hero")
    (code / "book.bin").write_bytes(os.urandom(600_000))  # more than two parts on the wire
    active_version(service, ann, "hero", code)

    mine = service.arena("bots", "export", "hero@1", "-o", tmp_path / "mine", "--token", ann)
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout == f"hero v1 -> {tmp_path / 'mine'}\n"
    assert content_hash(tmp_path / "mine") == content_hash(code)
    boss_copy = service.arena("bots", "export", "hero", "-o", tmp_path / "boss", "--token", boss)
    assert boss_copy.returncode == 0, boss_copy.stderr
    assert content_hash(tmp_path / "boss") == content_hash(code)

    refused = {
        ("hero@1", bob): "error: bot 'hero' is another user's: its code is its owner's",
        ("hero@7", ann): "error: bot 'hero' has no version 7",
        ("hero@1", "wrong"): "error: wrong token",
    }
    for (version, token), message in refused.items():
        result = service.arena("bots", "export", version, "-o", tmp_path / "no", "--token", token)
        assert result.returncode == 2 and error_line(result) == message, (version, token)
    no_token = service.arena("bots", "export", "hero@1", "-o", tmp_path / "no")
    assert error_line(no_token).startswith("error: no token: pass --token or set ARENA_TOKEN")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "mine.txt").write_text("keep")
    taken = service.arena("bots", "export", "hero@1", "-o", busy, "--token", ann)
    assert (
        error_line(taken) == f"error: {busy} exists and is not an empty directory: nothing written"
    )
    assert [p.name for p in busy.iterdir()] == ["mine.txt"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith((".", "no"))) == []

    with service.channel() as channel:
        stub = rpc.ArenaStub(channel)
        request = pb.GetCodeRequest(version="hero@1")
        for metadata, status in (
            ((), grpc.StatusCode.UNAUTHENTICATED),
            (bearer(bob), grpc.StatusCode.PERMISSION_DENIED),
        ):
            with pytest.raises(grpc.RpcError) as denied:
                list(stub.GetCode(request, metadata=metadata, timeout=30))
            assert denied.value.code() == status
        parts = list(stub.GetCode(request, metadata=bearer(ann), timeout=30))
        assert len(parts) >= 3 and max(part.ByteSize() for part in parts) < 300_000


def test_compare_a_directory_with_a_version_stored_on_the_server(
    service: Service, tmp_path: Path
) -> None:
    """The stored randy@1 is the random bot: a copy of it here draws its pair (the same
    bot on the same deals), as against the same version in a local store."""
    with service.store() as store:
        ann, bob = (store.add_user(name) for name in ("ann", "bob"))
    active_version(service, ann, "randy", bot_copy("random", tmp_path / "stored"))
    work = bot_copy("random", tmp_path / "work")
    quick = ("--seed", 7, "--sandbox", "process", "--max-pairs", 1)
    result = service.arena("compare", work, "randy@1", *quick, "--token", ann)
    assert result.returncode == 1, result.stderr  # one pair: no verdict yet
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"compare: A = {work} · B = randy@1 · seeds from 7")
    assert lines[1].startswith("pair 1 · seed 7 · ") and " · W/D/L 0/1/0 · " in lines[1]
    assert lines[-1].startswith("no verdict after 1 pairs")
    theirs = service.arena("compare", work, "randy@1", *quick, "--token", bob)
    assert theirs.returncode == 2
    assert error_line(theirs) == "error: bot 'randy' is another user's: its code is its owner's"


@pytest.mark.parametrize(
    "hostile",
    ["../outside.py", "bot/evil\x1b]0;owned\x07.py", "bot/two\nlines.py", "bot/Bot.py"],
)
def test_an_archive_that_escapes_is_refused_and_nothing_written(
    tmp_path: Path, hostile: str
) -> None:
    """What a server sends is checked as an upload is: a member outside the directory, or
    one whose name is a terminal escape, two lines, or a twin on a case-insensitive disk
    (issue 24: such names, stored before, are not written to the author's disk)."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        for name in ("bot/bot.py", hostile):
            info = tarfile.TarInfo(name)
            info.size = 1
            tar.addfile(info, io.BytesIO(b"#"))
    with pytest.raises(SubmissionError):
        export_archive(data.getvalue(), tmp_path / "out")
    assert list(tmp_path.iterdir()) == []
