"""``bot.toml`` as a submission carries it: read, checked, refused with one line naming the
key, through what ``arena submit`` and ``arena play`` call (``submission.opened``,
``bot_specs.resolve_bot``)."""

from __future__ import annotations

import contextlib
import stat
import zipfile
from pathlib import Path

import pytest

from arena.bots import manifest
from arena.bots.submission import SubmissionError, content_hash, opened, pack, unpack
from arena.play.bot_specs import BotSpecError, resolve_bot

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"


def bot(tmp_path: Path, toml: str, files: dict[str, str] | None = None) -> Path:
    root = tmp_path / "mybot"
    root.mkdir()
    (root / "bot.toml").write_text(toml)
    for name, text in (files or {}).items():
        (root / name).write_text(text)
    return root


@pytest.mark.parametrize(
    ("toml", "files", "said"),
    [
        ('langauge = "cpp"', {}, "bot.toml: unknown key 'langauge' (known: language, run"),
        ('language = "cobol"', {}, "bot.toml: language: 'cobol' is not one of python, node"),
        ('run = ["java", "Bot"]', {}, "bot.toml: run: 'java' is not a runtime the sandbox has"),
        ('run = ["../bot"]', {}, "bot.toml: run: '../bot' is not a runtime"),
        ('run = "node bot.js"', {}, "bot.toml: run: not a non-empty list of strings"),
        ("run = []", {}, "bot.toml: run: not a non-empty list of strings"),
        ('run = ["node", "b.js"]\nprotocol = "http"', {}, "protocol: 'http' is not one of grpc"),
        ('run = ["./bot"]\nbuild = ["rustc", "x.rs"]', {}, "build: 'rustc' is not a tool of"),
        ('run = ["./bot"]', {}, "bot.toml: run: no file 'bot' in the bot, and no build"),
        ('protocol = "stdio"', {}, "bot.toml: needs language or run"),
        ('language = "python"', {}, "no bot.py at its root"),
        ("run = [", {}, "bot.toml: not TOML:"),
    ],
)
def test_a_wrong_manifest_is_refused_naming_what_is_wrong(
    tmp_path: Path, toml: str, files: dict[str, str], said: str
) -> None:
    root = bot(tmp_path, toml, files)
    with pytest.raises(SubmissionError) as refused, opened(root):
        pass
    assert said in str(refused.value)
    assert str(refused.value).startswith("mybot: ") and "\n" not in str(refused.value)
    with pytest.raises(BotSpecError, match=r"bot\.toml|bot\.py"), contextlib.ExitStack() as stack:
        resolve_bot(str(root), stack)  # arena play says the same


def test_each_language_has_its_defaults(tmp_path: Path) -> None:
    assert manifest.parse('language = "cpp"').build == (
        "g++", "-O2", "-std=c++17", "-o", "bot", "bot.cpp",
    )  # fmt: skip
    assert manifest.parse('language = "node"').command() == ("node", "bot.js")
    stdio = manifest.parse('language = "go"\nprotocol = "stdio"')
    assert stdio.command() == ("python3", "-m", "arena_sdk.stdio_bridge", "--", "./bot")
    assert manifest.read(SAMPLES / "random") == manifest.Manifest()  # no bot.toml: bot.py


def test_the_sample_bots_manifests_pass(tmp_path: Path) -> None:
    for name in ("random_cpp", "heuristic_go"):
        with opened(SAMPLES / name) as root:
            assert manifest.read(root).protocol == "stdio"
        with contextlib.ExitStack() as stack:
            assert resolve_bot(name, stack).directory == SAMPLES / name  # by name, as samples


def test_an_archive_with_a_manifest_and_no_bot_py_unpacks_with_its_exec_bits(
    tmp_path: Path,
) -> None:
    archive = tmp_path / "shipped.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("shipped/bot.toml", 'run = ["./bot"]\n')
        binary = zipfile.ZipInfo("shipped/bot")
        binary.external_attr = (stat.S_IFREG | 0o755) << 16
        zf.writestr(binary, "#!/bin/sh\nexec python3 -m arena_sdk.stdio_bridge\n")
    root = unpack(archive, tmp_path / "out")
    assert root.name == "shipped"
    assert (root / "bot").stat().st_mode & stat.S_IXUSR  # a shipped binary still runs
    assert content_hash(root)  # and it hashes and packs as any code does
    assert pack(root)


def test_a_directory_with_neither_bot_py_nor_manifest_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    (root / "main.go").write_text("package main\n")
    refused = pytest.raises(SubmissionError, match=r"^empty: no bot\.py or bot\.toml at its root$")
    with refused, opened(root):
        pass
