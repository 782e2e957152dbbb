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

from arena import submission
from arena.attached import attached_address, is_attached

SAMPLE_BOTS = Path(
    os.environ.get("ARENA_SAMPLE_BOTS", Path(__file__).resolve().parent.parent / "sample_bots")
)
ARCHIVES = (".zip", ".tar.gz", ".tgz")


class BotSpecError(ValueError):
    """A bot spec that names no sample bot and no bot directory."""


@dataclass(frozen=True)
class BotSpec:
    label: str  # as given on the command line
    directory: Path  # holds bot.py
    address: str | None = None  # a bot already running there (arena play tcp://), not started


def sample_bot_names() -> list[str]:
    if not SAMPLE_BOTS.is_dir():
        return []
    return sorted(p.name for p in SAMPLE_BOTS.iterdir() if (p / "bot.py").is_file())


def sample_bot(spec: str) -> Path | None:
    """The sample bot's directory a bare name such as ``heuristic`` names (not a path that
    exists here), else None."""
    if "/" in spec or Path(spec).exists() or not (SAMPLE_BOTS / spec / "bot.py").is_file():
        return None
    return SAMPLE_BOTS / spec


def resolve_bot(spec: str, unpacked: contextlib.ExitStack) -> BotSpec:
    """The bot a spec names; an archive is unpacked (checked) for as long as ``unpacked``."""
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
        if not (path / "bot.py").is_file():
            raise BotSpecError(f"bot directory {spec} has no bot.py at its root")
        return BotSpec(spec, path.resolve())
    raise BotSpecError(
        f"no bot at {spec}: expected a directory with bot.py, a bot.py, or a .zip/.tar.gz of one"
    )


def attached_spec(spec: str) -> BotSpec:
    """The bot already running at ``tcp://127.0.0.1:PORT``; ``AttachError`` if none answers
    there. It has no directory: the platform never starts it."""
    return BotSpec(spec, Path(os.devnull), attached_address(spec))
