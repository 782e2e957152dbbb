"""arena.bots.submission against real hostile archives and directories built in tmp_path."""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.bots.submission import (
    MAX_DEPTH,
    MAX_MEMBERS,
    MAX_PART_BYTES,
    MAX_PATH_BYTES,
    MAX_SUBMISSION_BYTES,
    SubmissionError,
    content_hash,
    opened,
    unpack,
)

BOT = b"from arena_sdk import run\nrun(lambda obs: obs.legal[0])\n"
CODE = {"bot.py": BOT, "lib/helpers.py": b"X = 1\n", "lib/data/table.txt": b"\x00\x01\xff"}

Tree = dict[str, bytes]


def make_dir(root: Path, files: Tree) -> Path:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def make_zip(path: Path, files: Tree, prefix: str = "") -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(prefix + name, data)
    return path


def make_tar(path: Path, files: Tree, prefix: str = "") -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for name, data in files.items():
            tf.addfile(_tar_info(prefix + name, size=len(data)), io.BytesIO(data))
    return path


def _tar_info(name: str, **attrs: object) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    for key, value in attrs.items():
        setattr(info, key, value)
    return info


def tar_with(path: Path, *extra: tarfile.TarInfo) -> Path:
    """A tar.gz holding bot.py and the given bodiless members (links, devices, ...)."""
    with tarfile.open(path, "w:gz") as tf:
        tf.addfile(_tar_info("bot.py", size=len(BOT)), io.BytesIO(BOT))
        for info in extra:
            tf.addfile(info)
    return path


def zip_symlink(path: Path, name: str, target: str) -> Path:
    make_zip(path, {"bot.py": BOT})
    with zipfile.ZipFile(path, "a") as zf:
        info = zipfile.ZipInfo(name)
        info.create_system = 3  # Unix, so external_attr's high half is a mode
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, target)
    return path


def refuse(tmp_path: Path, archive: Path, phrase: str) -> None:
    """unpack refuses with `phrase` in the message, and leaves nothing behind."""
    dest = tmp_path / "dest"
    with pytest.raises(SubmissionError) as caught:
        unpack(archive, dest)
    assert phrase in str(caught.value)
    assert str(caught.value).startswith(f"{archive.name}: ")
    assert "\n" not in str(caught.value)
    assert not dest.exists()
    # An existing empty dest is emptied again, not removed.
    dest.mkdir()
    with pytest.raises(SubmissionError):
        unpack(archive, dest)
    assert list(dest.iterdir()) == []
    dest.rmdir()


# --- good submissions -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("maker", "name"), [(make_zip, "bot.zip"), (make_tar, "bot.tar.gz"), (make_tar, "bot.TGZ")]
)
def test_good_archive_unpacks(
    tmp_path: Path, maker: Callable[[Path, Tree], Path], name: str
) -> None:
    root = unpack(maker(tmp_path / name, CODE), tmp_path / "dest")
    assert root == tmp_path / "dest"
    assert (root / "lib/data/table.txt").read_bytes() == CODE["lib/data/table.txt"]


@pytest.mark.parametrize("maker", [make_zip, make_tar])
def test_single_top_level_directory(tmp_path: Path, maker: Callable[..., Path]) -> None:
    archive = maker(tmp_path / ("b.zip" if maker is make_zip else "b.tar.gz"), CODE, "mybot/")
    root = unpack(archive, tmp_path / "dest")
    assert root == tmp_path / "dest" / "mybot"
    assert (root / "bot.py").read_bytes() == BOT


def test_tar_made_with_dot_prefix(tmp_path: Path) -> None:
    # `tar czf bot.tgz -C mybot .` names members ./bot.py and has a "." directory member.
    archive = tmp_path / "bot.tgz"
    with tarfile.open(archive, "w:gz") as tf:
        tf.add(make_dir(tmp_path / "src", CODE), arcname=".")
    assert unpack(archive, tmp_path / "dest") == tmp_path / "dest"


def test_macos_junk_beside_top_directory(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "bot.zip", {**{f"mybot/{k}": v for k, v in CODE.items()}})
    with zipfile.ZipFile(archive, "a") as zf:
        zf.writestr("__MACOSX/mybot/._bot.py", b"junk")
    assert unpack(archive, tmp_path / "dest") == tmp_path / "dest" / "mybot"


def test_links_inside_are_kept(tmp_path: Path) -> None:
    inner = _tar_info("lib", type=tarfile.DIRTYPE)
    link = _tar_info("lib/main.py", type=tarfile.SYMTYPE, linkname="../bot.py")
    root = unpack(tar_with(tmp_path / "bot.tar.gz", inner, link), tmp_path / "dest")
    assert (root / "lib/main.py").read_bytes() == BOT

    root = unpack(zip_symlink(tmp_path / "bot.zip", "main.py", "bot.py"), tmp_path / "dest2")
    assert os.readlink(root / "main.py") == "bot.py"


def test_directory_unpacks_as_a_copy(tmp_path: Path) -> None:
    src = make_dir(tmp_path / "mybot", CODE)
    os.symlink("lib/helpers.py", src / "helpers.py")
    root = unpack(src, tmp_path / "dest")
    assert root == tmp_path / "dest"
    assert (root / "lib/helpers.py").read_bytes() == b"X = 1\n"
    assert os.readlink(root / "helpers.py") == "lib/helpers.py"


def test_dest_must_be_empty(tmp_path: Path) -> None:
    (tmp_path / "dest").mkdir()
    (tmp_path / "dest" / "x").write_text("x")
    with pytest.raises(FileExistsError):
        unpack(make_zip(tmp_path / "bot.zip", CODE), tmp_path / "dest")


# --- refusals ---------------------------------------------------------------------------------


def test_no_bot_py(tmp_path: Path) -> None:
    refuse(
        tmp_path,
        make_zip(tmp_path / "bot.zip", {"main.py": BOT}),
        "no bot.py or bot.toml at its root",
    )
    two_tops = {"a/bot.py": BOT, "b/bot.py": BOT}
    refuse(
        tmp_path, make_tar(tmp_path / "bot.tar.gz", two_tops), "no bot.py or bot.toml at its root"
    )


@pytest.mark.parametrize("maker", [make_zip, make_tar])
def test_dotdot_escape(tmp_path: Path, maker: Callable[[Path, Tree], Path]) -> None:
    name = "bot.zip" if maker is make_zip else "bot.tgz"
    archive = maker(tmp_path / name, {"bot.py": BOT, "../evil.py": b"x"})
    refuse(tmp_path, archive, "member '../evil.py' escapes the archive's root")
    assert not (tmp_path / "evil.py").exists()


def test_absolute_path(tmp_path: Path) -> None:
    archive = make_tar(tmp_path / "bot.tar.gz", {"bot.py": BOT, "/tmp/evil.py": b"x"})
    refuse(tmp_path, archive, "member '/tmp/evil.py' has an absolute path")
    # zipfile's writer strips a leading slash, so write the name into the ZipInfo by hand.
    archive = make_zip(tmp_path / "bot.zip", {"bot.py": BOT})
    with zipfile.ZipFile(archive, "a") as zf:
        info = zipfile.ZipInfo("x")
        info.filename = "/tmp/evil.py"
        zf.writestr(info, b"x")
    refuse(tmp_path, archive, "member '/tmp/evil.py' has an absolute path")


@pytest.mark.parametrize("target", ["../../etc/passwd", "/etc/passwd", "a/../../x"])
def test_symlink_out_tar(tmp_path: Path, target: str) -> None:
    link = _tar_info("link", type=tarfile.SYMTYPE, linkname=target)
    archive = tar_with(tmp_path / "bot.tar.gz", link)
    refuse(tmp_path, archive, "member 'link' is a link pointing outside the archive")


@pytest.mark.parametrize("target", ["../../etc/passwd", "/etc/passwd"])
def test_symlink_out_zip(tmp_path: Path, target: str) -> None:
    archive = zip_symlink(tmp_path / "bot.zip", "link", target)
    refuse(tmp_path, archive, "member 'link' is a link pointing outside the archive")


def test_hardlink_out_tar(tmp_path: Path) -> None:
    link = _tar_info("link", type=tarfile.LNKTYPE, linkname="../outside.txt")
    refuse(tmp_path, tar_with(tmp_path / "bot.tar.gz", link), "is a link pointing outside")
    link = _tar_info("link", type=tarfile.LNKTYPE, linkname="/etc/passwd")
    refuse(tmp_path, tar_with(tmp_path / "bot.tar.gz", link), "is a link pointing outside")


@pytest.mark.parametrize(
    ("target", "problem"),
    [
        ("missing.py", "is a hard link to 'missing.py', no file before it"),
        ("link", "is a hard link to itself"),
        ("./link", "is a hard link to itself"),
        ("later.py", "is a hard link to 'later.py', no file before it"),
        ("sub", "is a hard link to 'sub', no file before it"),
    ],
)
def test_hardlink_to_no_file_before_it(tmp_path: Path, target: str, problem: str) -> None:
    # tarfile raised KeyError on these: an INTERNAL error on the server, not a refusal.
    sub = _tar_info("sub", type=tarfile.DIRTYPE)
    link = _tar_info("link", type=tarfile.LNKTYPE, linkname=target)
    later = _tar_info("later.py", size=0)
    archive = tar_with(tmp_path / "bot.tar.gz", sub, link, later)
    refuse(tmp_path, archive, f"member 'link' {problem}")


def test_hardlink_to_a_file_before_it(tmp_path: Path) -> None:
    link = _tar_info("copy.py", type=tarfile.LNKTYPE, linkname="bot.py")
    bot_dir = unpack(tar_with(tmp_path / "bot.tar.gz", link), tmp_path / "dest")
    assert (bot_dir / "copy.py").read_bytes() == (bot_dir / "bot.py").read_bytes()


def test_link_chains_cannot_escape(tmp_path: Path) -> None:
    # "s/.." reads as "." but, s being a link to ".", really is the root's parent.
    here = _tar_info("s", type=tarfile.SYMTYPE, linkname=".")
    up = _tar_info("t", type=tarfile.SYMTYPE, linkname="s/..")
    archive = tar_with(tmp_path / "bot.tar.gz", here, up)
    refuse(tmp_path, archive, "member 't' is a link through another link")
    # Writing through a link, even one pointing inside, is refused too.
    link = _tar_info("d", type=tarfile.SYMTYPE, linkname=".")
    below = _tar_info("d/x.py", size=0)
    refuse(tmp_path, tar_with(tmp_path / "bot.tar.gz", link, below), "'d/x.py' lies below a link")


def test_duplicate_member(tmp_path: Path) -> None:
    link = _tar_info("bot.py", type=tarfile.SYMTYPE, linkname="other.py")
    refuse(tmp_path, tar_with(tmp_path / "bot.tar.gz", link), "member 'bot.py' appears twice")


@pytest.mark.parametrize("kind", [tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE])
def test_device_or_fifo_tar(tmp_path: Path, kind: bytes) -> None:
    archive = tar_with(tmp_path / "bot.tar.gz", _tar_info("dev", type=kind))
    refuse(tmp_path, archive, "member 'dev' is a device file or fifo")


def test_device_zip(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "bot.zip", {"bot.py": BOT})
    with zipfile.ZipFile(archive, "a") as zf:
        info = zipfile.ZipInfo("fifo")
        info.create_system = 3
        info.external_attr = (stat.S_IFIFO | 0o644) << 16
        zf.writestr(info, b"")
    refuse(tmp_path, archive, "member 'fifo' is a device file or fifo")


def test_oversize_archive(tmp_path: Path) -> None:
    noise = os.urandom(MAX_SUBMISSION_BYTES + 300_000)  # random bytes don't compress
    archive = make_zip(tmp_path / "bot.zip", {"bot.py": BOT, "noise.bin": noise})
    refuse(tmp_path, archive, "bot.zip: 10.3 MiB is over the 10 MiB limit")


@pytest.mark.parametrize("maker", [make_zip, make_tar])
def test_zip_bomb(tmp_path: Path, maker: Callable[[Path, Tree], Path]) -> None:
    archive = tmp_path / ("bomb.zip" if maker is make_zip else "bomb.tar.gz")
    maker(archive, {"bot.py": BOT, "zeros.bin": bytes(60 << 20)})
    assert archive.stat().st_size < 1 << 20
    # A tar is read whole for its headers: the cap on its stream stops it first.
    tar_says = "its tar is over the 26 MiB limit"
    refuse(
        tmp_path,
        archive,
        "unpacks to 60.1 MiB, over the 10 MiB limit" if maker is make_zip else tar_says,
    )


@pytest.mark.parametrize("maker", [make_zip, make_tar])
def test_unpacks_just_past_the_limit(tmp_path: Path, maker: Callable[[Path, Tree], Path]) -> None:
    # Small as an archive, past what a bot's code may be once unpacked: refused before a game.
    archive = tmp_path / ("big.zip" if maker is make_zip else "big.tar.gz")
    maker(archive, {"bot.py": BOT, "zeros.bin": bytes(MAX_SUBMISSION_BYTES)})
    refuse(tmp_path, archive, "unpacks to 10.1 MiB, over the 10 MiB limit")


def test_tar_header_bomb(tmp_path: Path) -> None:
    # tarfile reads a PAX header whole into memory: one claiming 200 MiB of zeros (200 KiB
    # gzipped) must be stopped by the cap on the decompressed stream, not allocated.
    header = _tar_info("././@PaxHeader", type=tarfile.XHDTYPE, size=200 << 20)
    archive = tmp_path / "bomb.tar.gz"
    with gzip.open(archive, "wb") as out:
        out.write(header.tobuf(format=tarfile.USTAR_FORMAT))
        for _ in range(200):
            out.write(bytes(1 << 20))
    refuse(tmp_path, archive, "bomb.tar.gz: its tar is over the 26 MiB limit")


def test_too_many_members(tmp_path: Path) -> None:
    files = {"bot.py": BOT} | {f"f{i}.py": b"" for i in range(MAX_MEMBERS)}
    refuse(tmp_path, make_zip(tmp_path / "bot.zip", files), "more than 2000 members")
    refuse(tmp_path, make_tar(tmp_path / "bot.tar.gz", files), "more than 2000 members")


def test_unknown_extension(tmp_path: Path) -> None:
    archive = tmp_path / "x.rar"
    archive.write_bytes(b"Rar!")
    refuse(tmp_path, archive, "x.rar: not a directory, .zip, .tar.gz or .tgz")


def test_missing_and_corrupt(tmp_path: Path) -> None:
    refuse(tmp_path, tmp_path / "gone.zip", "gone.zip: no such file or directory")
    (tmp_path / "bad.zip").write_bytes(b"not a zip")
    refuse(tmp_path, tmp_path / "bad.zip", "bad.zip: cannot be unpacked")
    (tmp_path / "bad.tgz").write_bytes(b"not a gzip")
    refuse(tmp_path, tmp_path / "bad.tgz", "bad.tgz: cannot be unpacked")


def test_directory_with_symlink_out(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("s")
    src = make_dir(tmp_path / "mybot", CODE)
    os.symlink("../../secret.txt", src / "lib" / "link")
    refuse(tmp_path, src, "mybot: entry 'lib/link' is a link pointing outside the directory")
    with pytest.raises(SubmissionError, match="pointing outside"), opened(src):
        pass


def test_directory_without_bot_py_or_too_big(tmp_path: Path) -> None:
    refuse(
        tmp_path,
        make_dir(tmp_path / "mybot", {"main.py": BOT}),
        "mybot: no bot.py or bot.toml at its root",
    )
    big = make_dir(tmp_path / "big", {"bot.py": BOT, "x.bin": bytes(MAX_SUBMISSION_BYTES)})
    refuse(tmp_path, big, "big: 10.1 MiB is over the 10 MiB limit")


def test_directory_with_fifo(tmp_path: Path) -> None:
    src = make_dir(tmp_path / "mybot", CODE)
    os.mkfifo(src / "pipe")
    refuse(tmp_path, src, "mybot: entry 'pipe' is a device file, fifo or socket")


# --- opened -----------------------------------------------------------------------------------


def test_opened_directory_is_itself(tmp_path: Path) -> None:
    src = make_dir(tmp_path / "mybot", CODE)
    with opened(src) as root:
        assert root == src
    assert (src / "bot.py").exists()


def test_opened_archive_is_temporary(tmp_path: Path) -> None:
    with opened(make_tar(tmp_path / "bot.tgz", CODE, "mybot/")) as root:
        assert (root / "bot.py").read_bytes() == BOT
        assert root.name == "mybot"
    assert not root.exists()
    with (
        pytest.raises(SubmissionError, match="escapes"),
        opened(make_zip(tmp_path / "bad.zip", {"bot.py": BOT, "../x": b""})),
    ):
        pass


# --- content_hash -----------------------------------------------------------------------------


def test_same_code_same_hash(tmp_path: Path) -> None:
    as_dir = make_dir(tmp_path / "mybot", CODE)
    (as_dir / "__pycache__").mkdir()
    (as_dir / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"compiled")
    (as_dir / "lib" / "helpers.pyc").write_bytes(b"compiled")
    from_zip = unpack(make_zip(tmp_path / "bot.zip", CODE, "top/"), tmp_path / "z")
    from_tar = unpack(make_tar(tmp_path / "bot.tar.gz", CODE), tmp_path / "t")
    assert content_hash(as_dir) == content_hash(from_zip) == content_hash(from_tar)
    assert len(content_hash(as_dir)) == 64


def test_one_byte_changes_the_hash(tmp_path: Path) -> None:
    before = content_hash(make_dir(tmp_path / "a", CODE))
    changed = content_hash(make_dir(tmp_path / "b", CODE | {"lib/helpers.py": b"X = 2\n"}))
    renamed = content_hash(make_dir(tmp_path / "c", {"bot.py": BOT, "lib/helpers.py2": b""}))
    assert len({before, changed, renamed, content_hash(make_dir(tmp_path / "d", {}))}) == 4


def test_hash_is_not_fooled_by_moving_bytes_between_name_and_content(tmp_path: Path) -> None:
    a = content_hash(make_dir(tmp_path / "a", {"ab": b"c"}))
    b = content_hash(make_dir(tmp_path / "b", {"a": b"bc"}))
    assert a != b


names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_-", min_size=1, max_size=6)
trees = st.dictionaries(
    st.lists(names, min_size=1, max_size=3).map("/".join), st.binary(max_size=200), max_size=8
).filter(lambda t: not any(a.startswith(b + "/") for a in t for b in t))


@settings(max_examples=40, deadline=None)
@given(tree=trees)
def test_any_safe_tree_round_trips_with_one_hash(tree: Tree) -> None:
    files = tree | {"bot.py": BOT}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        expected = content_hash(make_dir(base / "src", files))
        for archive in (make_zip(base / "b.zip", files), make_tar(base / "b.tar.gz", files)):
            root = unpack(archive, base / archive.name.replace(".", "_"))
            assert content_hash(root) == expected
            for name, data in files.items():
                assert (root / name).read_bytes() == data


# --- names: depth, length, printable, twins (issue 24) ----------------------------------------


def _refused(archive: Path, dest: Path) -> str:
    with pytest.raises(SubmissionError) as refused:
        unpack(archive, dest)
    assert not dest.exists()
    message = str(refused.value)
    assert "\n" not in message and str(dest.parent) not in message
    return message


@pytest.mark.parametrize("maker", [make_zip, make_tar])
def test_a_member_thousands_of_levels_deep_is_refused_not_recursed(
    tmp_path: Path, maker: Callable[[Path, Tree], Path]
) -> None:
    archive = maker(tmp_path / ("b.zip" if maker is make_zip else "b.tar.gz"), {
        "bot.py": BOT, "a/" * 1900 + "x.py": b"",
    })  # fmt: skip
    message = _refused(archive, tmp_path / "dest")
    assert "member 'a/a/a/" in message and "...'" in message
    assert message.endswith(f"is 1901 levels deep, over the limit of {MAX_DEPTH}")


def test_depth_and_length_at_the_limits(tmp_path: Path) -> None:
    deepest = "d/" * (MAX_DEPTH - 1) + "x.py"
    assert unpack(make_zip(tmp_path / "ok.zip", {"bot.py": BOT, deepest: b"1"}), tmp_path / "ok")
    message = _refused(
        make_zip(tmp_path / "b.zip", {"bot.py": BOT, "d/" + deepest: b""}), tmp_path / "x"
    )
    assert message.endswith(f"is {MAX_DEPTH + 1} levels deep, over the limit of {MAX_DEPTH}")
    long = "n" * 256 + ".py"
    message = _refused(make_zip(tmp_path / "c.zip", {"bot.py": BOT, long: b""}), tmp_path / "y")
    assert message.endswith(f"has a name over {MAX_PART_BYTES} bytes")
    longest = "/".join(["p" * 200] * 3)
    message = _refused(make_zip(tmp_path / "e.zip", {"bot.py": BOT, longest: b""}), tmp_path / "z")
    assert message.endswith(f"has a 602-byte path, over the limit of {MAX_PATH_BYTES}")


@pytest.mark.parametrize(
    "name", ["evil\x1b[2J.py", "two\nlines.py", "bell\x07.py", "left\u202eyp.txt", "dir\r/x.py"]
)
@pytest.mark.parametrize("maker", [make_zip, make_tar])
def test_unprintable_member_names_are_refused(
    tmp_path: Path, maker: Callable[[Path, Tree], Path], name: str
) -> None:
    archive = maker(tmp_path / ("b.zip" if maker is make_zip else "b.tar.gz"), {
        "bot.py": BOT, name: b"",
    })  # fmt: skip
    message = _refused(archive, tmp_path / "dest")
    assert message == f"{archive.name}: member {name!r} has a character that is not printable" \
        " (control, newline, format or bidi)"  # fmt: skip
    assert message.isprintable()


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("bot.py", "Bot.py"),
        ("lib/x.py", "LIB/y.py"),  # a directory's twin
        ("caf\u00e9.py", "cafe\u0301.py"),  # NFC and NFD
        ("\ufb01le.py", "file.py"),  # a ligature, NFKC
    ],
)
@pytest.mark.parametrize("maker", [make_zip, make_tar])
def test_names_one_file_system_merges_are_refused(
    tmp_path: Path, maker: Callable[[Path, Tree], Path], first: str, second: str
) -> None:
    archive = maker(tmp_path / ("b.zip" if maker is make_zip else "b.tar.gz"), {
        "bot.py": BOT, first: b"1", second: b"2",
    })  # fmt: skip
    message = _refused(archive, tmp_path / "dest")
    assert "on a case-insensitive or normalising file system" in message
    assert f"member {second!r} is the same as {first.split('/')[0]!r}" in message


def test_a_directory_s_entries_are_checked_the_same(tmp_path: Path) -> None:
    root = make_dir(tmp_path / "mybot", {"bot.py": BOT, "bell\x07.py": b""})
    with pytest.raises(SubmissionError, match=r"^mybot: entry 'bell\\x07.py' has a character"):
        unpack(root, tmp_path / "dest")
    deep = make_dir(tmp_path / "deep", {"bot.py": BOT, "d/" * MAX_DEPTH + "x.py": b""})
    # One level fewer than an archive: the stored archive puts the code under bot/.
    with pytest.raises(SubmissionError, match=f"over the limit of {MAX_DEPTH - 1}$"):
        unpack(deep, tmp_path / "dest2")
