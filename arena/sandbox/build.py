"""A bot's build step (``build`` in its ``bot.toml``), run once in the sandbox's build
environment: the docker sandbox's build image (the compilers, no network), or this host's
compilers under the process sandbox's confinement.

The build runs in a writable copy of the bot's code under ``BuildLimits`` (time, memory,
processes, output); what it leaves in that directory is the product the bot runs from. Its
failure is the bot's (``BuildFailed``, whose message is the compiler's last lines), not the
platform's. ``cached_build`` keeps products by the code's content hash (``arena play DIR``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from arena.bots import manifest, submission

from .errors import SandboxError

# What a build's environment says to every compiler: no cgo (static Go binaries that need no
# C toolchain at run time), no module downloads, caches in the writable /tmp.
BUILD_ENV = {
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "GOCACHE": "/tmp/go-cache",
    "GOPATH": "/tmp/go",
    "GOPROXY": "off",
    "GOFLAGS": "-mod=mod",
    "CGO_ENABLED": "0",
    "LANG": "C",  # plain ASCII quotes in compilers' messages
}
LAST_LINES = 12  # of the compiler's output, in a failed build's reason
MAX_REASON_CHARS = 1500


@dataclass(frozen=True)
class BuildLimits:
    seconds: float = 180.0
    memory_mb: int = 2048
    pids: int = 256
    tmp_mb: int = 1024
    output_bytes: int = 64 << 10  # the compiler's output kept: its last bytes
    file_mb: int = 256  # any one file it writes (the process sandbox: its output too)


@dataclass(frozen=True)
class BuildOutcome:
    failure: str | None  # None: it succeeded; else ``exit status 1``, ``timed out ...``
    output: bytes  # the build's stdout and stderr (its last ``output_bytes``)


class BuildFailed(Exception):
    """The bot's build failed: the message says how, with the compiler's last lines."""

    def __init__(self, reason: str, output: bytes) -> None:
        super().__init__(reason)
        self.output = output


@runtime_checkable
class Builder(Protocol):
    """A sandbox that can run builds (docker and process do)."""

    name: str

    def build(self, bot_dir: Path, command: Sequence[str], limits: BuildLimits) -> BuildOutcome:
        """Run ``command`` in ``bot_dir`` (writable, the bot's copy), confined like the
        sandbox's bots; ``SandboxError`` if the platform cannot."""
        ...


def builder_of(sandbox: object) -> Builder:
    """``sandbox`` as a ``Builder``; ``SandboxError`` if it cannot build bots."""
    if not isinstance(sandbox, Builder):
        name = getattr(sandbox, "name", type(sandbox).__name__)
        raise SandboxError(f"the {name} sandbox cannot build bots")
    return sandbox


def build_bot(
    builder: Builder, source: Path, dest: Path, limits: BuildLimits | None = None
) -> bytes:
    """Build the bot in ``source`` into ``dest`` (new), from a copy; the build's output.
    ``BuildFailed`` if it fails or makes no file ``run`` names."""
    wanted = manifest.read(source)
    if wanted.build is None:
        raise ValueError(f"{source}: its manifest has no build")
    shutil.copytree(source, dest, symlinks=True)
    outcome = builder.build(dest, wanted.build, limits or BuildLimits())
    if outcome.failure is not None:
        raise BuildFailed(
            f"build failed ({outcome.failure}): {last_lines(outcome.output)}", outcome.output
        )
    file = wanted.run_file
    if file is not None and not (dest / file).is_file():
        raise BuildFailed(f"build made no {file!r}, which run starts", outcome.output)
    try:  # a hostile build may leave links out, a device, too much: checked as a submission
        submission.pack(dest)
    except submission.SubmissionError as e:
        raise BuildFailed(f"build product refused: {e}", outcome.output) from None
    return outcome.output


def cached_build(builder: Builder, source: Path, cache_dir: Path) -> Path:
    """The built bot of ``source``, built once per content hash and build environment into
    ``cache_dir/builds/`` (renamed into place whole); ``source`` itself if it has no build."""
    if manifest.read(source).build is None:
        return source
    digest = submission.content_hash(source)
    target = cache_dir / "builds" / f"{digest[:32]}-{builder.name.replace('/', '-')}"
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".building-", dir=target.parent))
    try:
        build_bot(builder, source, work / "bot")
        try:
            os.rename(work / "bot", target)
        except OSError:
            if not target.is_dir():  # not merely built meanwhile by another process
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


def last_lines(output: bytes) -> str:
    """The output's last lines, for a reason: one line, ``|`` between them, control
    characters escaped."""
    lines = [ln.strip() for ln in output.decode(errors="replace").splitlines() if ln.strip()]
    shown = " | ".join(lines[-LAST_LINES:]) or "(no output)"
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in shown)
    return shown if len(shown) <= MAX_REASON_CHARS else "..." + shown[-MAX_REASON_CHARS:]


def run_capped(
    command: Sequence[str], *, cwd: Path | None, env: dict[str, str], limits: BuildLimits
) -> BuildOutcome:
    """Run a local build command in a session of its own: killed whole at the time limit,
    its output's last ``limits.output_bytes`` kept."""
    with tempfile.TemporaryFile() as out:
        try:
            proc = subprocess.Popen(
                list(command), cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        except OSError as e:
            raise SandboxError(f"cannot start the build ({command[0]}): {e.strerror}") from None
        started = time.monotonic()
        try:
            code = proc.wait(timeout=limits.seconds)
            failure = None if code == 0 else f"exit status {code}"
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            failure = f"timed out after {time.monotonic() - started:.0f} s"
        size = out.seek(0, os.SEEK_END)
        out.seek(max(0, size - limits.output_bytes))
        return BuildOutcome(failure, out.read())
