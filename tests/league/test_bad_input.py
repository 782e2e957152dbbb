"""Bad input to the ladder's commands: each is one ``error:`` line, exit status 2, and nothing
half-written: every row of the store and every file under ARENA_HOME as they were, and
nothing left in the commands' TMPDIR. A bot that faults in its validation game is the one
exception, as the issue says: it is kept as a *rejected* version, with the fault."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.store import VersionStatus
from tests.cli.runner import error_line

from .conftest import Arena, bot_copy, make_arena, table_rows

CRASH_ON_FIRST_PLAY = """\
import os
from arena_sdk import Bot, run

class Crashy(Bot):
    def bid(self, obs):
        return obs.legal_bids[0]

    def play(self, obs):
        os._exit(3)

if __name__ == "__main__":
    run(Crashy())
"""


class Seeded:
    """A ladder with two users' bots and a queued match: alice's random, bob's heuristic."""

    def __init__(self, arena: Arena, tmp_path: Path) -> None:
        with arena.store() as store:
            self.alice = store.add_user("alice")
            self.bob = store.add_user("bob")
        self.random = bot_copy("random", tmp_path / "random")
        arena.seed(self.alice, "random", self.random)
        arena.seed(self.bob, "heuristic", bot_copy("heuristic", tmp_path / "heuristic"))
        self.arena = arena
        self.rows = arena.rows()
        self.files = arena.files()
        assert len(self.rows["matches"]) == 1 and len(self.rows["blobs"]) == 2  # two bots' code

    def refused(self, result: subprocess.CompletedProcess[str]) -> str:
        """The one error line; and nothing written."""
        assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
        line = error_line(result)
        assert result.stdout == ""
        assert self.arena.rows() == self.rows
        assert self.arena.files() == self.files
        assert self.arena.leftovers() == []
        return line


@pytest.fixture
def seeded(arena: Arena, tmp_path: Path) -> Seeded:
    return Seeded(arena, tmp_path)


def test_a_wrong_token(seeded: Seeded, tmp_path: Path) -> None:
    arena = seeded.arena
    new = bot_copy("random", tmp_path / "new", "new")
    assert seeded.refused(arena.submit(new, "new", "not-a-token")) == "error: wrong token"
    from_env = arena.run("submit", new, "--name", "new", env={"ARENA_TOKEN": "nope"})
    assert seeded.refused(from_env) == "error: wrong token"
    assert seeded.refused(arena.run("submit", new, "--name", "new")) == (
        "error: no token: pass --token or set ARENA_TOKEN (the arena's operator makes your"
        " first one: arena user add NAME; then arena token create makes more)"
    )


def test_a_name_taken_by_another_user(seeded: Seeded, tmp_path: Path) -> None:
    arena = seeded.arena
    for code in (seeded.random, bot_copy("random", tmp_path / "mine", "bob's")):
        line = seeded.refused(arena.submit(code, "random", seeded.bob))
        assert line == "error: bot name 'random' belongs to another user"
    assert seeded.refused(arena.run("user", "add", "alice")) == "error: user name 'alice' is taken"


def test_a_look_alike_of_a_bot_s_name(seeded: Seeded, tmp_path: Path) -> None:
    """Issue 24: a name that reads as another bot's (case, a Cyrillic i, full-width letters)
    is refused, another user's or one's own; the bot itself takes new versions."""
    arena = seeded.arena
    code = bot_copy("random", tmp_path / "mine", "bob's")
    for name in (
        "Heuristic",
        "heurist\u0456c",
        "\uff48\uff45\uff55\uff52\uff49\uff53\uff54\uff49\uff43",
        "HEURISTIC",
    ):
        line = seeded.refused(arena.submit(code, name, seeded.alice))
        assert line == (
            f"error: bot name {name!r} looks like another user's bot 'heuristic': choose another"
        )
    line = seeded.refused(arena.submit(code, "Random", seeded.alice))
    assert line == "error: bot name 'Random' looks like your bot 'random': choose another"
    long = "\ufdfa" * 20  # one character NFKC makes eighteen
    line = seeded.refused(arena.submit(code, long, seeded.alice))
    assert line == f"error: bot name {long!r}: too long once normalised (NFKC)"


def test_an_oversized_submission(seeded: Seeded, tmp_path: Path) -> None:
    big = bot_copy("random", tmp_path / "big", "big")
    (big / "weights.bin").write_bytes(os.urandom(10 * (1 << 20) + 300_000))
    archive = tmp_path / "big.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as zf:
        for path in sorted(big.iterdir()):
            zf.write(path, path.name)
    assert archive.stat().st_size > 10 * (1 << 20)
    for submitted in (archive, big):
        line = seeded.refused(seeded.arena.submit(submitted, "big", seeded.alice))
        assert re.fullmatch(
            rf"error: {submitted.name}: 10\.[0-9] MiB is over the 10 MiB limit", line
        ), line


def test_an_unsafe_archive(seeded: Seeded, tmp_path: Path) -> None:
    bot = (seeded.random / "bot.py").read_bytes()
    escape = b"print('out of the box')\n"
    evil_tar = tmp_path / "evil.tar.gz"
    with tarfile.open(evil_tar, "w:gz") as tf:
        for name, data in (("bot.py", bot), ("../escape.py", escape)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    evil_zip = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil_zip, "w") as zf:
        zf.writestr("bot.py", bot)
        zf.writestr("../escape.py", escape)
    for archive in (evil_tar, evil_zip):
        line = seeded.refused(seeded.arena.submit(archive, "evil", seeded.alice))
        assert line == f"error: {archive.name}: member '../escape.py' escapes the archive's root"
    assert not [p for p in tmp_path.rglob("escape.py")]


@pytest.mark.parametrize(
    ("member", "problem"),
    [
        ("a/" * 1900 + "x.py", "is 1901 levels deep, over the limit of 32"),
        ("n" * 300 + ".py", "has a name over 255 bytes"),
        ("evil\x1b]0;owned\x07\n.py", "has a character that is not printable"),
        ("Bot.py", "is the same as 'bot.py' on a case-insensitive or normalising file system"),
        ("cafe\u0301.py", "is the same as 'caf\u00e9.py' on a case-insensitive or normalising"),
    ],
)
def test_hostile_member_names(seeded: Seeded, tmp_path: Path, member: str, problem: str) -> None:
    """Issue 24: one line naming the member (cut, escaped), never a path of this machine."""
    bot = (seeded.random / "bot.py").read_bytes()
    archive = tmp_path / "hostile.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("bot.py", bot)
        zf.writestr("caf\u00e9.py", b"")
        zf.writestr(member, b"")
    line = seeded.refused(seeded.arena.submit(archive, "hostile", seeded.alice))
    assert line.startswith("error: hostile.zip: member '") and problem in line, line
    assert len(line) < 250 and line.isprintable()
    assert str(seeded.arena.tmp) not in line and "/tmp" not in line


def test_a_bot_that_fails_validation(seeded: Seeded, tmp_path: Path) -> None:
    arena = seeded.arena
    crashy = tmp_path / "crashy"
    crashy.mkdir()
    (crashy / "bot.py").write_text(CRASH_ON_FIRST_PLAY)
    result = arena.submit(crashy, "crashy", seeded.alice)
    assert result.returncode == 2 and result.stdout == ""
    line = error_line(result)
    assert line.startswith(
        "error: crashy v1 rejected: validation game: crash in deal 1, trick 1: exit status 3"
    ), line

    # Kept, as a rejected version with its fault and its validation game: one bot, one
    # version, its code, its game's replay and logs; no more.
    rows, files = arena.rows(), arena.files()
    with arena.store() as store:
        (version,) = store.versions("crashy")
        entries = [e.bot.name for e in store.active_entries()]
        assert version.id is not None
        validation = store.validation(version.id)
        log_keys = {key for key in json.loads(store.blob(validation.logs_path or ""))["game1"]}
    assert version.status == VersionStatus.REJECTED
    assert version.reason is not None and line.endswith(version.reason)
    assert version.reason.startswith("validation game: crash in deal 1, trick 1: exit status 3")
    assert {t: len(r) for t, r in rows.items()} == {
        t: len(r) + (t in ("bots", "bot_versions", "validations")) for t, r in seeded.rows.items()
    } | {"blobs": len(seeded.rows["blobs"]) + 3 + len(log_keys)}
    assert version.archive_path == f"code/{version.content_hash}"
    assert {r[0] for r in rows["blobs"]} - {r[0] for r in seeded.rows["blobs"]} == {
        version.archive_path,
        validation.replay_path,
        validation.logs_path,
        *log_keys,
    }
    # The game was played from the stored code, as a worker plays it: unpacked in the cache.
    cached = f"cache/{version.archive_path}"
    assert files - seeded.files == {"cache", "cache/code", cached, f"{cached}/bot.py"}
    assert arena.leftovers() == []
    # ... shown by `arena bots`, with how to read its game, and never on the ladder.
    listed = arena.ok("bots").stdout
    assert ["crashy", "1", "rejected", version.reason] in [row[:4] for row in table_rows(listed)]
    assert (
        "crashy v1's validation game: arena replay --validation crashy@1"
        " · arena logs --validation crashy@1"
    ) in listed
    assert entries == ["heuristic", "random"]
    assert rows["matches"] == seeded.rows["matches"]

    # The same code again: refused again, with the fault, and still nothing new.
    again = arena.submit(crashy, "crashy", seeded.alice)
    reason = version.reason
    assert again.returncode == 2
    assert error_line(again) == f"error: crashy v1: already submitted and rejected: {reason}"
    assert arena.rows() == rows and arena.files() == files


def test_an_unknown_match(seeded: Seeded) -> None:
    arena = seeded.arena
    for command in (("replay", 999), ("logs", 999, "random", "--token", seeded.alice)):
        assert seeded.refused(arena.run(*command)) == "error: unknown match 999"
    with arena.store() as store:
        (queued,) = store.matches(store.tournament("ladder").id)  # type: ignore[arg-type]
    line = seeded.refused(arena.run("replay", queued.id))
    assert line == f"error: match {queued.id} has no result yet (it is queued)"
    assert seeded.refused(arena.run("matches", "--tournament", "cup")) == (
        "error: unknown tournament 'cup'"
    )


def test_an_unknown_schedule_or_tournament_to_schedule(seeded: Seeded) -> None:
    arena = seeded.arena
    create = ("tournament", "create", "cup", "--bots", "random,heuristic")
    assert seeded.refused(arena.run(*create, "--schedule", "swiss")) == (
        "error: unknown schedule 'swiss': round-robin or adaptive"
    )
    assert seeded.refused(arena.run("tournament", "schedule", "ladder", "swiss")) == (
        "error: unknown schedule 'swiss': round-robin or adaptive"
    )
    assert seeded.refused(arena.run("tournament", "schedule", "cup", "adaptive")) == (
        "error: unknown tournament 'cup'"
    )


def test_a_database_that_does_not_answer(tmp_path: Path) -> None:
    arena = make_arena(tmp_path, "postgresql://arena:secret@127.0.0.1:1/x")
    bot = bot_copy("random", tmp_path / "random")
    for command in (
        ("bots",),
        ("user", "add", "alice"),
        ("submit", bot, "--name", "random", "--token", "t0ken"),
    ):
        result = arena.run(*command)
        assert result.returncode == 2, (command, result.stderr)
        line = error_line(result)
        assert line.startswith(
            "error: database postgresql://arena:***@127.0.0.1:1/x does not answer: "
        ), line
        assert "secret" not in result.stderr + result.stdout
    assert arena.files() == set() and arena.leftovers() == []
