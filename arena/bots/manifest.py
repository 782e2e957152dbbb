"""A bot's manifest, ``bot.toml`` at its root: what language it is in, how it is built, what
runs it and how it speaks. The one place it is read.

Without a ``bot.toml`` a bot is ``python3 bot.py`` serving gRPC, as always. With one::

    language = "cpp"                                  # python, node, cpp or go: defaults below
    build = ["g++", "-O2", "-o", "bot", "bot.cpp"]    # once, at submission, in the build image
    run = ["./bot"]                                   # argv, in the bot's directory
    protocol = "stdio"                                # grpc (the default) or stdio (the bridge)

``language`` may be left out when ``run`` is given. ``run[0]`` is a runtime of the run image
(``python3``, ``node``) or a file of the bot (``./NAME``, made by ``build`` or shipped);
``build[0]`` a tool of the build image. Anything else is a ``ManifestError`` naming the key.

>>> m = parse('language = "go"\\nprotocol = "stdio"')
>>> m.build, m.run, m.protocol
(('go', 'build', '-o', 'bot', '.'), ('./bot',), 'stdio')
>>> m.command()
('python3', '-m', 'arena_sdk.stdio_bridge', '--', './bot')
>>> parse('run = ["java", "Bot"]')
Traceback (most recent call last):
...
arena.bots.manifest.ManifestError: bot.toml: run: 'java' is not a runtime the sandbox has ...
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

MANIFEST_FILE = "bot.toml"
MAX_MANIFEST_BYTES = 16 << 10
KEYS = ("language", "run", "build", "protocol")
PROTOCOLS = ("grpc", "stdio")
# What the run image carries (and the process sandbox finds on the host's PATH).
RUNTIMES = ("python3", "node")
# What the build image carries: the compilers and what drives them.
BUILD_TOOLS = ("g++", "gcc", "c++", "cc", "go", "make", "sh")
# Each language's defaults, for whatever its manifest leaves out.
LANGUAGES: dict[str, tuple[tuple[str, ...] | None, tuple[str, ...]]] = {
    "python": (None, ("python3", "bot.py")),
    "node": (None, ("node", "bot.js")),
    "cpp": (("g++", "-O2", "-std=c++17", "-o", "bot", "bot.cpp"), ("./bot",)),
    "go": (("go", "build", "-o", "bot", "."), ("./bot",)),
}
DEFAULT_RUN = ("python3", "bot.py")
BRIDGE = ("python3", "-m", "arena_sdk.stdio_bridge", "--")


class ManifestError(ValueError):
    """A ``bot.toml`` refused: one line naming the key and what is wrong."""


@dataclass(frozen=True)
class Manifest:
    run: tuple[str, ...] = DEFAULT_RUN
    build: tuple[str, ...] | None = None
    protocol: Literal["grpc", "stdio"] = "grpc"
    language: str | None = None

    def command(self) -> tuple[str, ...]:
        """The argv the sandbox starts, in the bot's directory: ``run``, behind the stdio
        bridge if the bot speaks stdio."""
        return (*BRIDGE, *self.run) if self.protocol == "stdio" else self.run

    @property
    def run_file(self) -> str | None:
        """The bot's own file that ``run`` starts (``bot`` for ``./bot``), if it is one."""
        return self.run[0].removeprefix("./") if self.run[0] not in RUNTIMES else None


def read(bot_dir: Path) -> Manifest:
    """The manifest of the bot in ``bot_dir`` (the default one without ``bot.toml``)."""
    path = bot_dir / MANIFEST_FILE
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise ManifestError(f"{MANIFEST_FILE}: not a regular file")
    if not path.exists():
        return Manifest()
    with path.open("rb") as f:
        data = f.read(MAX_MANIFEST_BYTES + 1)
    if len(data) > MAX_MANIFEST_BYTES:
        raise ManifestError(f"{MANIFEST_FILE}: over {MAX_MANIFEST_BYTES >> 10} KiB")
    try:
        text = data.decode()
    except UnicodeDecodeError:
        raise ManifestError(f"{MANIFEST_FILE}: not UTF-8 text") from None
    return parse(text)


def check(bot_dir: Path) -> Manifest:
    """``read``, and the files it names that must be there before any build: ``bot.py``
    without a manifest, ``run``'s file when nothing builds it."""
    manifest = read(bot_dir)
    if manifest.run == DEFAULT_RUN and not (bot_dir / "bot.py").is_file():
        where = f"no bot.py or {MANIFEST_FILE}" if manifest == Manifest() else "no bot.py"
        raise ManifestError(f"{where} at its root")
    file = manifest.run_file
    if manifest.build is None and file is not None and not (bot_dir / file).is_file():
        raise ManifestError(f"{MANIFEST_FILE}: run: no file {file!r} in the bot, and no build")
    return manifest


def parse(text: str) -> Manifest:
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ManifestError(f"{MANIFEST_FILE}: not TOML: {e}") from None
    unknown = [k for k in table if k not in KEYS]
    if unknown:
        raise ManifestError(
            f"{MANIFEST_FILE}: unknown key {unknown[0]!r} (known: {', '.join(KEYS)})"
        )
    language = table.get("language")
    if language is not None and language not in LANGUAGES:
        raise ManifestError(
            f"{MANIFEST_FILE}: language: {language!r} is not one of {', '.join(LANGUAGES)}"
        )
    if language is None and "run" not in table:
        raise ManifestError(f"{MANIFEST_FILE}: needs language or run")
    default_build, default_run = LANGUAGES[language] if language else (None, DEFAULT_RUN)
    run = _argv(table, "run") or default_run
    build = _argv(table, "build") or default_build
    if run[0] not in RUNTIMES and not _bot_file(run[0]):
        raise ManifestError(
            f"{MANIFEST_FILE}: run: {run[0]!r} is not a runtime the sandbox has "
            f"({', '.join(RUNTIMES)}) nor a file of the bot (./NAME)"
        )
    if build is not None and build[0] not in BUILD_TOOLS:
        raise ManifestError(
            f"{MANIFEST_FILE}: build: {build[0]!r} is not a tool of the build image "
            f"({', '.join(BUILD_TOOLS)})"
        )
    protocol = table.get("protocol", "grpc")
    if protocol not in PROTOCOLS:
        raise ManifestError(
            f"{MANIFEST_FILE}: protocol: {protocol!r} is not one of {', '.join(PROTOCOLS)}"
        )
    return Manifest(run, build, protocol, language)


def _argv(table: dict[str, object], key: str) -> tuple[str, ...] | None:
    value = table.get(key)
    if value is None:
        return None
    if not (isinstance(value, list) and value and all(isinstance(a, str) for a in value)):
        raise ManifestError(f"{MANIFEST_FILE}: {key}: not a non-empty list of strings")
    if any("\0" in a for a in value):
        raise ManifestError(f"{MANIFEST_FILE}: {key}: an argument holds a NUL")
    return tuple(value)


def _bot_file(arg: str) -> bool:
    """``./NAME``: a file at the bot's root, no way out of it."""
    name = arg.removeprefix("./")
    return arg.startswith("./") and bool(name) and "/" not in name and name not in (".", "..")
