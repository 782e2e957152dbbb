"""A bot submission on disk: check it, unpack it safely, hash its code.

A submission is a directory, or a .zip / .tar.gz / .tgz of one, with ``bot.py`` or a
``bot.toml`` (``manifest``) at its root (for an archive: at the archive's root or inside a
single top-level directory). Submissions
are hostile: every member is checked before anything is written, and every refusal is a
``SubmissionError`` whose one-line message names the file and what is wrong.

Links are allowed only as relative symlinks (and, in a tar, hardlinks) whose target stays
inside the root without passing through another link; no member may sit below a link either.
That stricter-than-needed rule makes the lexical check equal to the real one, so a chain of
links cannot lead out of the root.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import lzma
import math
import os
import shutil
import stat
import tarfile
import tempfile
import unicodedata
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from arena.bots import manifest

MiB = 1 << 20
MAX_SUBMISSION_BYTES = 10 * MiB  # the archive's size, or a directory's total file size
# An archive's total unpacked file size, from its headers before anything is extracted: what
# a directory may hold, so an archive past it is refused before any game is played.
MAX_UNPACKED_BYTES = MAX_SUBMISSION_BYTES
MAX_MEMBERS = 2000  # files, directories and links
MAX_LINK_TARGET = 4096  # a zip symlink's target is the member's content: read it only if small
# A tar's own headers (PAX ones too) are read whole into memory, so the decompressed stream is
# capped as well; the slack covers the headers and 512-byte padding of MAX_MEMBERS members.
MAX_TAR_STREAM_BYTES = MAX_UNPACKED_BYTES + 16 * MiB
# A member's path: levels (directories and the file) and UTF-8 bytes, each name within a
# file system's 255. An archive's names count its top directory; a directory's entries leave
# room for the "bot/" its stored archive puts them under, so every stored archive unpacks.
MAX_DEPTH = 32
MAX_PATH_BYTES = 512
MAX_PART_BYTES = 255
_SHOWN_NAME = 80  # a refused name is cut to this many characters in its message

BOT_FILE = "bot.py"
ROOT_FILES = (BOT_FILE, manifest.MANIFEST_FILE)  # either marks a bot's root
_ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz")
# Anything a corrupt or unsupported archive can raise while being read.
_READ_ERRORS = (
    OSError,
    EOFError,
    UnicodeError,
    NotImplementedError,
    zlib.error,
    lzma.LZMAError,
    zipfile.BadZipFile,
    tarfile.TarError,
)


class SubmissionError(ValueError):
    """A submission refused, with a one-line message naming the file and what is wrong."""


@dataclass(frozen=True)
class _Member:
    name: str  # normalised: relative POSIX path, no "." or empty components; "" is the root
    kind: Literal["file", "dir", "symlink", "hardlink"]
    size: int = 0
    target: str = ""  # a link's target, as stored
    source: str = ""  # the name as stored in the archive
    executable: bool = False  # a file its owner may run: a shipped binary keeps working


@dataclass(frozen=True)
class _Source:
    label: str  # the submission's file name, which starts every message
    where: Literal["archive", "directory"]

    def refuse(self, name: str, problem: str) -> SubmissionError:
        noun = "member" if self.where == "archive" else "entry"
        # repr escapes control characters, newlines and bidi overrides: one inert line.
        shown = name if len(name) <= _SHOWN_NAME else name[:_SHOWN_NAME] + "..."
        return SubmissionError(f"{self.label}: {noun} {shown!r} {problem}")

    @property
    def room(self) -> int:
        """Levels kept free under the limits: a directory is stored under "bot/"."""
        return 1 if self.where == "directory" else 0


def unpack(path: Path, dest: Path) -> Path:
    """Copy a directory or extract an archive into ``dest``; return the directory with bot.py.

    ``dest`` must not exist or be empty. On any failure nothing is left in it.
    """
    if dest.exists() and any(dest.iterdir()):
        raise FileExistsError(f"{dest}: not empty")
    if path.is_dir() and dest.resolve().is_relative_to(path.resolve()):
        raise ValueError(f"{dest}: inside the submission {path}")
    created = not dest.exists()
    dest.mkdir(parents=True, exist_ok=True)
    try:
        return _unpack(path, dest)
    except BaseException:
        if created:
            shutil.rmtree(dest, ignore_errors=True)
        else:
            for child in dest.iterdir():
                if child.is_dir() and not child.is_symlink():
                    shutil.rmtree(child, ignore_errors=True)
                else:
                    child.unlink(missing_ok=True)
        raise


@contextmanager
def opened(spec_path: Path) -> Iterator[Path]:
    """Yield a directory holding bot.py: ``spec_path`` itself if it is a (checked) directory,
    else a temporary extraction of the archive, removed on exit."""
    if spec_path.is_dir():
        _check_directory(spec_path)
        yield spec_path
        return
    with tempfile.TemporaryDirectory(prefix="arena-submission-") as tmp:
        yield unpack(spec_path, Path(tmp) / "bot")


def content_hash(bot_dir: Path) -> str:
    """sha256 hex of a bot's code: its files' sorted relative paths and bytes, and its links.

    ``__pycache__`` and ``*.pyc`` are skipped, and neither modes nor times count, so the same
    code as a directory, a zip or a tar.gz hashes the same.
    """
    entries: list[tuple[bytes, Path]] = []
    for dirpath, dirnames, filenames in os.walk(bot_dir):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            if (path.is_dir() and not path.is_symlink()) or name.endswith(".pyc"):
                continue
            entries.append((os.fsencode(path.relative_to(bot_dir).as_posix()), path))
    digest = hashlib.sha256()
    for rel, path in sorted(entries):
        # Each record is a type byte and length-prefixed fields, so no two trees share a stream.
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode):
            digest.update(b"L" + _field(rel) + _field(os.fsencode(os.readlink(path))))
        elif stat.S_ISREG(mode):
            with path.open("rb") as f:
                digest.update(b"F" + _field(rel) + hashlib.file_digest(f, "sha256").digest())
        else:
            raise SubmissionError(f"{bot_dir.name}: {rel.decode()!r} is not a file or link")
    return digest.hexdigest()


def pack(bot_dir: Path) -> bytes:
    """A checked bot directory as a .tar.gz that is the same bytes for the same code (sorted
    members, no times, owners or modes beyond the executable bit; ``__pycache__`` left out):
    how code is stored and uploaded."""
    _check_directory(bot_dir)
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        paths = []
        for dirpath, dirnames, filenames in os.walk(bot_dir):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            paths += [Path(dirpath, n) for n in dirnames + filenames if not n.endswith(".pyc")]
        for path in sorted(paths, key=lambda p: p.relative_to(bot_dir).as_posix()):
            info = tar.gettarinfo(str(path), arcname=f"bot/{path.relative_to(bot_dir).as_posix()}")
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            info.mode = 0o755 if info.isdir() or info.mode & 0o100 else 0o644
            if info.isreg():
                with path.open("rb") as f:
                    tar.addfile(info, f)
            else:
                tar.addfile(info)
    return buffer.getvalue()


def _field(data: bytes) -> bytes:
    return len(data).to_bytes(8, "big") + data


def _unpack(path: Path, dest: Path) -> Path:
    if path.is_dir():
        source = _Source(path.name, "directory")
        members = _check_directory(path)

        def read(member: _Member) -> IO[bytes]:
            # O_NOFOLLOW: a file swapped for a link after the checks is not followed out.
            return os.fdopen(os.open(path / member.name, os.O_RDONLY | os.O_NOFOLLOW), "rb")

        try:
            _write(dest, members, read)
        except OSError as e:
            raise SubmissionError(f"{source.label}: cannot be copied: {_reason(e)}") from e
        return dest
    label = path.name
    if not path.exists():
        raise SubmissionError(f"{label}: no such file or directory")
    if not path.name.lower().endswith(_ARCHIVE_SUFFIXES):
        raise SubmissionError(f"{label}: not a directory, .zip, .tar.gz or .tgz")
    if (size := path.stat().st_size) > MAX_SUBMISSION_BYTES:
        raise SubmissionError(
            f"{label}: {_mib(size)} is over the {_mib(MAX_SUBMISSION_BYTES)} limit"
        )
    try:
        if label.lower().endswith(".zip"):
            _extract_zip(path, dest)
        else:
            _extract_tar(path, dest)
    except _READ_ERRORS as e:
        raise SubmissionError(f"{label}: cannot be unpacked: {_reason(e)}") from e
    root = _bot_root(label, dest)
    _check_manifest(label, root)
    return root


def _is_root(path: Path) -> bool:
    return any((path / name).is_file() for name in ROOT_FILES)


def _bot_root(label: str, dest: Path) -> Path:
    if _is_root(dest):
        return dest
    # macOS's Finder adds __MACOSX/ beside the folder it zips.
    tops = [p for p in dest.iterdir() if p.name != "__MACOSX"]
    if len(tops) == 1 and not tops[0].is_symlink() and _is_root(tops[0]):
        return tops[0]
    raise SubmissionError(
        f"{label}: no {BOT_FILE} or {manifest.MANIFEST_FILE} at its root or in a single "
        "top-level directory"
    )


def _check_manifest(label: str, root: Path) -> manifest.Manifest:
    try:
        return manifest.check(root)
    except manifest.ManifestError as e:
        raise SubmissionError(f"{label}: {e}") from None


def _check_directory(root: Path) -> list[_Member]:
    source = _Source(root.name, "directory")
    members: list[_Member] = []
    for dirpath, dirnames, filenames in os.walk(root):  # links are listed, never followed
        for name in sorted(dirnames) + sorted(filenames):
            path = Path(dirpath, name)
            rel = path.relative_to(root).as_posix()
            _check_name(source, rel, rel)
            st = path.lstat()
            if stat.S_ISLNK(st.st_mode):
                members.append(_Member(rel, "symlink", target=os.readlink(path)))
            elif stat.S_ISDIR(st.st_mode):
                members.append(_Member(rel, "dir"))
            elif stat.S_ISREG(st.st_mode):
                executable = bool(st.st_mode & stat.S_IXUSR)
                members.append(_Member(rel, "file", size=st.st_size, executable=executable))
            else:
                raise source.refuse(rel, "is a device file, fifo or socket")
            if len(members) > MAX_MEMBERS:  # stop early in a tree like a whole virtualenv
                raise SubmissionError(f"{source.label}: more than {MAX_MEMBERS} entries")
    _check_members(source, members)
    if (total := _total(members)) > MAX_SUBMISSION_BYTES:
        raise SubmissionError(
            f"{source.label}: {_mib(total)} is over the {_mib(MAX_SUBMISSION_BYTES)} limit"
        )
    _check_manifest(source.label, root)
    return members


def _extract_zip(path: Path, dest: Path) -> None:
    source = _Source(path.name, "archive")
    with zipfile.ZipFile(path) as zf:
        members = [_zip_member(source, zf, info) for info in zf.infolist()]
        _check_archive(source, members)
        # zipfile stops each member at its declared size (and checks its CRC), so the headers'
        # sizes, capped above, bound what is written.
        _write(dest, members, lambda m: zf.open(m.source))


def _zip_member(source: _Source, zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> _Member:
    name = _member_name(source, info.filename)
    if info.flag_bits & 0x1:
        raise source.refuse(info.filename, "is encrypted")
    file_type = stat.S_IFMT(info.external_attr >> 16)  # Unix mode, when made on Unix
    if info.is_dir() or file_type == stat.S_IFDIR:
        return _Member(name, "dir", source=info.filename)
    if file_type == stat.S_IFLNK:
        if info.file_size > MAX_LINK_TARGET:
            raise source.refuse(info.filename, "is a link with an over-long target")
        target = os.fsdecode(zf.read(info))
        return _Member(name, "symlink", target=target, source=info.filename)
    if file_type not in (0, stat.S_IFREG):
        raise source.refuse(info.filename, "is a device file or fifo")
    executable = bool((info.external_attr >> 16) & stat.S_IXUSR)
    return _Member(name, "file", size=info.file_size, source=info.filename, executable=executable)


def _extract_tar(path: Path, dest: Path) -> None:
    source = _Source(path.name, "archive")
    with _CappedGzip(path) as gz, tarfile.open(fileobj=gz, mode="r:") as tf:
        infos = tf.getmembers()
        _check_archive(source, [_tar_member(source, info) for info in infos])
        tf.errorlevel = 2  # raise on every error rather than log some
        # The checks above already refuse what the "data" filter would; it stays as a backstop
        # where this Python has it (3.11.4 on: Debian bookworm's 3.11.2, the offline platform
        # image's, has none, and would refuse every upload for the keyword).
        if hasattr(tarfile, "data_filter"):
            tf.extractall(dest, members=infos, filter="data")
        else:
            tf.extractall(dest, members=infos)


def _tar_member(source: _Source, info: tarfile.TarInfo) -> _Member:
    name = _member_name(source, info.name)
    if info.issym():
        return _Member(name, "symlink", target=info.linkname, source=info.name)
    if info.islnk():
        return _Member(name, "hardlink", target=info.linkname, source=info.name)
    if info.isdir():
        return _Member(name, "dir", source=info.name)
    if info.issparse():  # its unpacked size is not its stored size
        raise source.refuse(info.name, "is a sparse file")
    if info.isreg():
        return _Member(name, "file", size=info.size, source=info.name)
    if info.isdev():
        raise source.refuse(info.name, "is a device file or fifo")
    raise source.refuse(info.name, "is not a file, directory or link")


class _CappedGzip(gzip.GzipFile):
    """A gzip stream that refuses to decompress beyond MAX_TAR_STREAM_BYTES."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, "rb")
        self._label = path.name

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0 or self.tell() + size > MAX_TAR_STREAM_BYTES:
            raise SubmissionError(
                f"{self._label}: its tar is over the {_mib(MAX_TAR_STREAM_BYTES)} limit"
            )
        return super().read(size)


def _check_archive(source: _Source, members: list[_Member]) -> None:
    if len(members) > MAX_MEMBERS:
        raise SubmissionError(f"{source.label}: more than {MAX_MEMBERS} members")
    if (total := _total(members)) > MAX_UNPACKED_BYTES:
        raise SubmissionError(
            f"{source.label}: unpacks to {_mib(total)}, over the {_mib(MAX_UNPACKED_BYTES)} limit"
        )
    _check_members(source, members)


def _member_name(source: _Source, raw: str) -> str:
    if raw.startswith(("/", "\\")) or (len(raw) > 1 and raw[1] == ":"):
        raise source.refuse(raw, "has an absolute path")
    name = _normal(raw)
    if ".." in name.split("/"):
        raise source.refuse(raw, f"escapes the {source.where}'s root")
    _check_name(source, raw, name)
    return name


def _check_name(source: _Source, raw: str, name: str) -> None:
    """A name every file system takes as it is and no terminal or page shows otherwise:
    printable (no control characters, newlines or bidi overrides), within the limits."""
    parts = name.split("/") if name else []
    if not all(part.isprintable() for part in parts):
        raise source.refuse(
            raw, "has a character that is not printable (control, newline, format or bidi)"
        )
    if len(parts) > (depth := MAX_DEPTH - source.room):
        raise source.refuse(raw, f"is {len(parts)} levels deep, over the limit of {depth}")
    size = len(name.encode("utf-8", errors="surrogateescape"))
    if size > (most := MAX_PATH_BYTES - 4 * source.room):
        raise source.refuse(raw, f"has a {size}-byte path, over the limit of {most}")
    for part in parts:
        if len(part.encode("utf-8", errors="surrogateescape")) > MAX_PART_BYTES:
            raise source.refuse(raw, f"has a name over {MAX_PART_BYTES} bytes")


def _fold(name: str) -> str:
    """What a case-insensitive, normalising file system (macOS's, Windows') makes of a name."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def _check_members(source: _Source, members: list[_Member]) -> None:
    links = {m.name for m in members if m.kind == "symlink"}
    kinds: dict[str, str] = {}
    folded: dict[str, str] = {}  # each path and parent path, folded, to its name
    for m in members:
        if not m.name:
            if m.kind != "dir":
                raise source.refuse(m.source, "is the root itself")
            continue
        parts = m.name.split("/")
        for i in range(1, len(parts) + 1):
            path = "/".join(parts[:i])
            twin = folded.setdefault(_fold(path), path)
            if twin != path:
                raise source.refuse(
                    m.name,
                    f"is the same as {twin!r} on a case-insensitive or normalising file system",
                )
        if any("/".join(parts[:i]) in links for i in range(1, len(parts))):
            raise source.refuse(m.name, "lies below a link")
        if m.name in kinds and (kinds[m.name], m.kind) != ("dir", "dir"):
            raise source.refuse(m.name, "appears twice")
        kinds[m.name] = m.kind
        if m.kind in ("symlink", "hardlink"):
            _check_link(source, m, links)
        if m.kind == "hardlink":
            _check_hardlink(source, m, kinds)


def _check_hardlink(source: _Source, link: _Member, before: dict[str, str]) -> None:
    """A tar hard link must name a regular file stored before it (tarfile links to, or
    copies, what is already extracted)."""
    target = _normal(link.target)
    if target == link.name:
        raise source.refuse(link.name, "is a hard link to itself")
    if before.get(target) != "file":
        raise source.refuse(link.name, f"is a hard link to {link.target!r}, no file before it")


def _check_link(source: _Source, link: _Member, links: set[str]) -> None:
    outside = f"is a link pointing outside the {source.where}"
    if link.target.startswith(("/", "\\")):
        raise source.refuse(link.name, outside)
    # A symlink's target is relative to its directory; a tar hardlink's to the archive's root.
    path = link.name.split("/")[:-1] if link.kind == "symlink" else []
    for part in link.target.split("/"):
        if part in ("", "."):
            continue
        if path and "/".join(path) in links:
            raise source.refuse(link.name, "is a link through another link")
        if part == "..":
            if not path:
                raise source.refuse(link.name, outside)
            path.pop()
        else:
            path.append(part)


def _write(dest: Path, members: list[_Member], read: Callable[[_Member], IO[bytes]]) -> None:
    """Write checked members under dest (zip and directory; tarfile writes its own)."""
    for m in members:
        path = dest / m.name
        if m.kind == "dir":
            _make_dirs(dest, m.name)
            continue
        _make_dirs(dest, m.name.rpartition("/")[0])
        if m.kind == "symlink":
            os.symlink(m.target, path)
        else:
            # "x": never write through something already there.
            with read(m) as src, path.open("xb") as out:
                shutil.copyfileobj(src, out)
            if m.executable:
                path.chmod(0o755)


def _make_dirs(dest: Path, name: str) -> None:
    """``dest/name`` and its parents, one level after the other (Path.mkdir(parents=True)
    recurses once a level)."""
    path = dest
    for part in name.split("/") if name else []:
        path = path / part
        if not path.is_dir():
            path.mkdir()


def _reason(e: BaseException) -> str:
    """What went wrong, without the file name an OSError carries: a path of this machine."""
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return str(e) or type(e).__name__


def _total(members: list[_Member]) -> int:
    # A tar hardlink counts its target's size: tarfile copies the data when linking fails.
    sizes = {m.name: m.size for m in members if m.kind == "file"}
    hardlinked = (_normal(m.target) for m in members if m.kind == "hardlink")
    return sum(sizes.values()) + sum(sizes.get(t, 0) for t in hardlinked)


def _normal(name: str) -> str:
    return "/".join(p for p in name.split("/") if p not in ("", "."))


def _mib(n: int) -> str:
    # Tenths rounded up, so a size just over a limit never prints as the limit itself.
    return f"{n // MiB} MiB" if n % MiB == 0 else f"{math.ceil(n * 10 / MiB) / 10:.1f} MiB"
