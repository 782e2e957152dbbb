"""Bot specs: what ``arena play`` and ``arena compare`` take for a bot, and the bot it names.

A bot spec is a sample bot's name (``random``, ``heuristic``, ``montecarlo``: a directory
under ``sample_bots/``) or a path to a bot directory, its ``bot.py``, or a .zip / .tar.gz of
the directory (unpacked, checked, for as long as the caller keeps it).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from arena.bots import manifest, submission
from arena.play.attached import attached_address, is_attached

if TYPE_CHECKING:
    from arena.sandbox import Sandbox

SAMPLE_BOTS = Path(
    os.environ.get("ARENA_SAMPLE_BOTS", Path(__file__).resolve().parents[2] / "sample_bots")
)
ARCHIVES = (".zip", ".tar.gz", ".tgz")


class BotSpecError(ValueError):
    """A bot spec that names no sample bot and no bot directory."""


@dataclass(frozen=True)
class BotSpec:
    label: str  # as given on the command line
    directory: Path  # holds bot.py, or a bot.toml (``manifest``)
    address: str | None = None  # a bot already running there (arena play tcp://), not started


def sample_bot_names() -> list[str]:
    if not SAMPLE_BOTS.is_dir():
        return []
    return sorted(p.name for p in SAMPLE_BOTS.iterdir() if _is_bot(p))


def _is_bot(path: Path) -> bool:
    return (path / "bot.py").is_file() or (path / manifest.MANIFEST_FILE).is_file()


def sample_bot(spec: str) -> Path | None:
    """The sample bot's directory a bare name such as ``heuristic`` names (not a path that
    exists here), else None."""
    if "/" in spec or Path(spec).exists() or not _is_bot(SAMPLE_BOTS / spec):
        return None
    return SAMPLE_BOTS / spec


def resolve_bot(spec: str, unpacked: contextlib.ExitStack) -> BotSpec:
    """The bot a spec names; an archive is unpacked (checked) for as long as ``unpacked``.
    A bot with a build step is built by ``built`` once its sandbox is known."""
    path = Path(spec)
    if is_attached(spec):
        raise BotSpecError(f"{spec}: only arena play takes a bot that is already running")
    if "/" not in spec and not path.exists():
        if (sample := sample_bot(spec)) is not None:
            return BotSpec(spec, sample)
        known = ", ".join(sample_bot_names())
        raise BotSpecError(f"unknown bot {spec!r}: not a sample bot ({known}) nor a path")
    if path.is_file() and path.name == "bot.py":
        return BotSpec(spec, path.resolve().parent)
    if path.is_file() and path.name.lower().endswith(ARCHIVES):
        return BotSpec(spec, unpacked.enter_context(submission.opened(path)))
    if path.is_dir():
        try:
            manifest.check(path)
        except manifest.ManifestError as e:
            raise BotSpecError(f"bot directory {spec}: {e}") from None
        return BotSpec(spec, path.resolve())
    raise BotSpecError(
        f"no bot at {spec}: expected a directory with bot.py or bot.toml, a bot.py, "
        "or a .zip/.tar.gz of one"
    )


def attached_spec(spec: str) -> BotSpec:
    """The bot already running at ``tcp://127.0.0.1:PORT``; ``AttachError`` if none answers
    there. It has no directory: the platform never starts it."""
    return BotSpec(spec, Path(os.devnull), attached_address(spec))


def built(spec: BotSpec, sandbox: Sandbox) -> BotSpec:
    """The spec's bot as it runs: built in ``sandbox``'s build environment if its manifest
    has a build step (once per content hash, cached under ``$ARENA_HOME/cache/builds``).
    ``BotSpecError`` with the compiler's last lines if the build fails."""
    if spec.address is not None or manifest.read(spec.directory).build is None:
        return spec
    from arena.host.home import arena_home
    from arena.sandbox.build import BuildFailed, builder_of, cached_build

    builder = builder_of(sandbox)
    try:
        return BotSpec(spec.label, cached_build(builder, spec.directory, arena_home() / "cache"))
    except BuildFailed as e:
        raise BotSpecError(f"{spec.label}: {e}") from None
