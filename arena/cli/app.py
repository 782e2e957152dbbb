"""The ``arena`` command line: parse, call one function, print."""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

# Typer vendors click; its exception base is not re-exported (pinned in pyproject.toml).
from typer._click.core import Context
from typer.core import TyperArgument, TyperGroup, TyperOption

from arena import __version__
from arena.bots.limits import LADDER_PACE_MS, Limits
from arena.engine import Rules, RulesError
from arena.engine.replay import ReplayError, read_replay
from arena.host.inert import inert
from arena.play.attached import DEFAULT_TIMEOUT_S, is_attached
from arena.play.bot_specs import BotSpec, attached_spec, built, resolve_bot, sample_bot_names

from .options import SandboxOption

# What a command needs beyond parsing (the sandbox, the referee, the store, gRPC, numpy) it
# imports when it runs: ``arena --help`` and ``--version`` load none of it, and a remote
# read no store (tests/architecture/test_light_imports.py).
if TYPE_CHECKING:
    from arena.engine import DealRecord
    from arena.play.tables import GameSettings, PlayedGame
    from arena.sandbox import Sandbox

app = typer.Typer(
    no_args_is_help=True,
    add_completion=True,  # --install-completion and --show-completion (bash, zsh, fish)
    help="Back Alley Arena.",
    context_settings={"help_option_names": ["-h", "--help"]},  # subcommands inherit it
)


def complete_bot(incomplete: str) -> list[str]:
    """Sample bots' names for shell completion; none matching, the shell completes paths."""
    return [name for name in sample_bot_names() if name.startswith(incomplete)]


def _show_version(value: bool) -> None:
    if value:
        print(f"arena {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_show_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Back Alley Arena: play bots locally, run the ladder, compare versions."""


def _readable_type(self: TyperOption, ctx: Context) -> str | None:
    """Help shows an option's value as a word (``--seed INTEGER``), a flag with none, where
    typer's default is a type in brackets for both (``<int>``, ``<bool>``)."""
    if self.metavar is not None:
        return self.metavar
    if self.is_flag or self.count:
        return None
    shown = _typer_type(self, ctx)
    if shown is None or "|" in shown:
        return shown  # choices stay listed: <docker|process|none>
    return {"<str>": "TEXT", "<int>": "INTEGER", "<float>": "NUMBER"}.get(shown, "PATH")


def _argument_type(self: TyperArgument, ctx: Context) -> str | None:
    """An argument's name is its metavar already (``BOTS...``): no type beside it."""
    shown = _typer_argument_type(self, ctx)
    return shown if shown is not None and "|" in shown else None


_typer_type = TyperOption.display_type_rich
TyperOption.display_type_rich = _readable_type  # type: ignore[method-assign]
_typer_argument_type = TyperArgument.display_type_rich
TyperArgument.display_type_rich = _argument_type  # type: ignore[method-assign, assignment]


class _ReplayGroup(TyperGroup):
    """``arena replay MATCH`` (or ``--validation NAME@V``) is short for ``arena replay
    show ...``."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        if args and (args[0].isdigit() or args[0].partition("=")[0] == "--validation"):
            args = ["show", *args]
        return super().parse_args(ctx, args)


replay_app = typer.Typer(
    cls=_ReplayGroup,
    no_args_is_help=True,
    help="Replays: arena replay MATCH shows a match's game (--validation NAME@V, a version's"
    " validation game); verify checks files; view and html show a file in a browser.",
)
app.add_typer(replay_app, name="replay")


class _BotsGroup(TyperGroup):
    """``arena bots`` (with its options) is short for ``arena bots list``."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("-h", "--help")):
            args = ["list", *args]
        return super().parse_args(ctx, args)


bots_app = typer.Typer(
    cls=_BotsGroup, help="The bots: arena bots lists them; export writes a version's code."
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str) -> NoReturn:
    """One line on stderr, exit status 2: the way every bad input ends."""
    err.print(f"error: {message}", markup=False)
    raise typer.Exit(2)


def cells(*values: str) -> list[Text]:
    """A table row as plain text: no markup read, no control character let through (bot
    names and reasons are the bots' authors' words)."""
    return [Text(inert(value)) for value in values]


def write_atomically(path: Path, text: str) -> None:
    """Write the whole file or nothing: a crash never leaves half a replay behind."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "x") as f:  # "x", not mkstemp: the file gets the usual umask mode
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def sandbox_for(
    kind: str | None,
    *,
    python: str | None = None,
    image: str | None = None,
    fallback: bool = True,
) -> Sandbox:
    """The sandbox asked for, else docker where an engine answers (process, said aloud, if
    none does and ``fallback``); ``SandboxError`` names what is missing."""
    from arena.sandbox import open_sandbox

    if kind is None:
        kind = "process" if python else sandbox_kind(None, fallback=fallback)
    return open_sandbox(kind, python=python, image=image)


def sandbox_kind(kind: str | None, *, fallback: bool = True) -> str:
    """``kind``, else the one ``sandbox_for`` would open, chosen (and said aloud) once."""
    from arena.sandbox import default_kind

    if kind is not None:
        return kind
    warn = lambda message: err.print(f"warning: {message}", markup=False)  # noqa: E731
    return default_kind(warn, fallback=fallback)


def seed_or_random(seed: int | None) -> int:
    """``--seed`` as given (it must be >= 0), or a fresh random one."""
    if seed is None:
        return random.randrange(2**31)
    if seed < 0:
        fail(f"--seed must be >= 0, got {seed}")
    return seed


def check_writable(path: Path) -> None:
    """Fail before any work is done if ``path`` cannot take a file."""
    if path.is_dir():
        fail(f"cannot write the replay: {path} is a directory")
    if not path.resolve().parent.is_dir():
        fail(f"cannot write the replay: no directory {path.parent}")
    if not os.access(path.resolve().parent, os.W_OK):
        fail(f"cannot write the replay: directory {path.parent} is not writable")


def run_directory(seed: int) -> Path:
    """Where ``arena play`` keeps the bots' logs when told nowhere: a new directory per run
    under the system's temporary directory (made only once there is a log to keep)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path(tempfile.gettempdir()) / "arena-runs" / f"{stamp}-seed{seed}-{os.getpid()}"


@app.command()
def play(
    bots: Annotated[
        list[str],
        typer.Argument(
            help="Four bots for seats 0-3: sample bot names, paths, or tcp://127.0.0.1:PORT"
            " for one already running (python bot.py --port PORT).",
            autocompletion=complete_bot,
        ),
    ],
    seed: Annotated[int | None, typer.Option(help="Game seed (default: a random one).")] = None,
    games: Annotated[int, typer.Option(help="Games to play (seeds SEED, SEED+1, ...).")] = 1,
    duplicate: Annotated[
        bool, typer.Option("--duplicate", help="Play each seed twice, partnerships swapped.")
    ] = False,
    concurrency: Annotated[int, typer.Option(help="Games played at once.")] = 1,
    replay: Annotated[Path | None, typer.Option(help="Write the replay JSON here.")] = None,
    record_legal: Annotated[
        bool, typer.Option("--record-legal", help="Record the legal cards of every play.")
    ] = False,
    record_think: Annotated[
        bool, typer.Option("--record-think", help="Record each bot's think time in the replay.")
    ] = False,
    max_redeals: Annotated[int, typer.Option(help="Rule: consecutive redeals allowed.")] = 5,
    move_ms: Annotated[int, typer.Option(help="Time per decision, in ms.")] = Limits.move_ms,
    bank_ms: Annotated[int, typer.Option(help="Time bank per game, in ms.")] = Limits.bank_ms,
    startup_ms: Annotated[
        int, typer.Option(help="Time to start and answer Hello, in ms.")
    ] = Limits.startup_ms,
    pace_ms: Annotated[
        int,
        typer.Option(
            help="The table's pace, in ms (0: none): each answer reaches the others only at"
            " whole paces, those past the first paid from the bank; the ladder's is"
            f" {LADDER_PACE_MS}."
        ),
    ] = 0,
    bot_python: Annotated[
        str | None, typer.Option(help="Python that runs each bot.py (default: this one).")
    ] = None,
    logs: Annotated[
        Path | None,
        typer.Option(
            help="Keep each bot's output here (default: beside --replay, or a new run directory)."
        ),
    ] = None,
    sandbox: SandboxOption = None,
    image: Annotated[
        str | None, typer.Option(help="The docker sandbox's bot image (default: the built one).")
    ] = None,
    attach_timeout: Annotated[
        int,
        typer.Option(
            metavar="SECONDS",
            help="Time per call for a bot already running (tcp://), e.g. in a debugger.",
        ),
    ] = DEFAULT_TIMEOUT_S,
    fail_on_forfeit: Annotated[
        int | None,
        typer.Option(
            min=0,
            max=3,
            metavar="SEAT",
            help="Exit with status 1 if the bot given for this seat forfeits a game (for CI).",
        ),
    ] = None,
) -> None:
    """Play games between four bots, each in its own sandbox, speaking the gRPC protocol."""
    from arena.play.tables import GameSettings
    from arena.sandbox import SandboxError

    if len(bots) != 4:
        fail(f"a game needs exactly 4 bots, got {len(bots)}")
    if games < 1 or concurrency < 1:
        fail("--games and --concurrency must be >= 1")
    _check_attached(bots, concurrency, attach_timeout)
    single = games == 1 and not duplicate
    if replay is not None:
        if not single:
            fail("--replay records one game; leave out --games and --duplicate")
        check_writable(replay)
    seed = seed_or_random(seed)
    try:
        rules = Rules(max_redeals=max_redeals)
        limits = Limits(move_ms=move_ms, bank_ms=bank_ms, startup_ms=startup_ms, pace_ms=pace_ms)
    except (RulesError, ValueError) as e:
        fail(str(e))
    if bot_python is not None and shutil.which(bot_python) is None:
        fail(f"--bot-python {bot_python}: no such executable")
    if logs is None:
        logs = (
            replay.with_name(f"{replay.stem}.logs") if replay is not None else run_directory(seed)
        )
    settings = GameSettings(rules, limits, record_legal, logs, attach_timeout)
    with contextlib.ExitStack() as unpacked:
        try:
            specs = [attached_spec(b) if is_attached(b) else resolve_bot(b, unpacked) for b in bots]
            backend = sandbox_for(sandbox, python=bot_python, image=image)
        except (ValueError, SandboxError) as e:
            fail(str(e))
        try:  # a bot with a build step (bot.toml), built here as the ladder would
            specs = [built(spec, backend) for spec in specs]
        except (ValueError, SandboxError) as e:
            backend.close()
            fail(str(e))
        for spec in specs:
            if spec.address is not None:
                err.print(
                    f"warning: {spec.label} is a bot already running: each of its calls may take"
                    f" {attach_timeout} s, not the ladder's limits",
                    markup=False,
                )
        try:
            target = (replay, record_think) if replay is not None else None
            played = _play(
                specs, bots, seed, games, duplicate, concurrency, target, settings, backend
            )
        except SandboxError as e:
            fail(str(e))
        finally:
            backend.close()
    if fail_on_forfeit is not None and _forfeited_by(played, specs[fail_on_forfeit]):
        err.print(
            f"the bot of seat {fail_on_forfeit} ({bots[fail_on_forfeit]}) forfeited", markup=False
        )
        raise typer.Exit(1)


def _check_attached(bots: list[str], concurrency: int, timeout_s: int) -> None:
    """A running bot plays one seat of one game at a time: it is a single process."""
    attached = [b for b in bots if is_attached(b)]
    if not attached:
        return
    if len(set(attached)) < len(attached):
        fail("a bot already running plays one seat: give each tcp:// address once")
    if concurrency > 1:
        fail("a bot already running plays one game at a time: leave out --concurrency")
    if timeout_s < 1:
        fail(f"--attach-timeout must be >= 1 second, got {timeout_s}")


def _play(
    specs: list[BotSpec],
    bots: list[str],
    seed: int,
    games: int,
    duplicate: bool,
    concurrency: int,
    replay: tuple[Path, bool] | None,  # the file, and whether it records think time
    settings: GameSettings,
    sandbox: Sandbox,
) -> list[PlayedGame]:
    from arena.competition.pairs import summarize
    from arena.play.tables import play_many, played_pairs

    single = games == 1 and not duplicate
    out.print(
        f"seed {seed} · pair A = seats 0+2 ({bots[0]}, {bots[2]})"
        f" · pair B = seats 1+3 ({bots[1]}, {bots[3]})"
    )
    out.print(f"sandbox: {sandbox.name}", markup=False)  # docker/runsc: gVisor's kernel
    if single:
        game = _play_one(specs, seed, settings, sandbox)
        if replay is not None:
            _write_replay(game, *replay)
        return [game]
    seeds = [seed + i for i in range(games)]
    played = play_many(
        specs, seeds, sandbox, duplicate=duplicate, concurrency=concurrency, settings=settings,
        on_game=_print_game_line,
    )  # fmt: skip
    if duplicate:
        s = summarize(played_pairs(played))
        out.print(
            f"duplicate: {s.pairs} pairs · pair A {s.totals[0]} · pair B {s.totals[1]}"
            f" · A - B per pair {s.mean_diff:+.1f} ± {s.stderr:.1f} (standard error)"
        )
    else:
        a = sum(g.outcome.state.totals[0] for g in played)
        b = sum(g.outcome.state.totals[1] for g in played)
        out.print(f"{len(played)} games · pair A {a} · pair B {b}")
    _print_statistics(played)
    return played


def _print_statistics(played: list[PlayedGame]) -> None:
    """Each bot's figures over the games, computed from their replays."""
    from arena.competition.statistics import by_bot
    from arena.play.tables import game_replay
    from arena.render import statistics_lines

    out.print("statistics, per bot:", markup=False)
    for name, stats in by_bot(game_replay(g, think=True) for g in played).items():
        for line in statistics_lines(name, stats):
            out.print(f"  {line}", markup=False)


def _forfeited_by(played: list[PlayedGame], spec: BotSpec) -> bool:
    """Whether the bot given as ``spec`` (whatever seat it had in each game) forfeited."""
    return any((f := g.outcome.forfeit) is not None and g.bots[f.seat] is spec for g in played)


def _play_one(
    specs: list[BotSpec], seed: int, settings: GameSettings, sandbox: Sandbox
) -> PlayedGame:
    from arena.play.tables import play_game
    from arena.render import deal_lines, forfeit_lines

    names = [f"{seat}:{spec.label}" for seat, spec in enumerate(specs)]

    def show(record: DealRecord) -> None:
        for line in deal_lines(record, names):
            out.print(line, markup=False)

    game = play_game(specs, seed, sandbox, settings, on_deal=show)
    outcome = game.outcome
    totals = outcome.state.totals
    winner = outcome.winner
    result = "draw" if winner is None else f"team {winner} wins"
    if outcome.forfeit is not None:
        for line in forfeit_lines(outcome.forfeit, specs[outcome.forfeit.seat].label):
            out.print(line, markup=False)
        if game.logs:
            _print_log_tail(game.logs[outcome.forfeit.seat])
    out.print(f"final: team 0 {totals[0]} · team 1 {totals[1]} · {result}")
    table = Table("seat", "bot", "name", "decisions", "mean ms", "max ms", "bank left ms")
    for seat, player in enumerate(game.players):
        t = player.timing
        table.add_row(*cells(
            str(seat), specs[seat].label, player.name, str(t.decisions),
            f"{t.mean_ms:.1f}", f"{t.max_ms:.1f}", f"{t.bank_ms:.0f}",
        ))  # fmt: skip
    out.print(table)
    for path in game.logs:
        out.print(f"log: {path}")
    return game


def _print_log_tail(path: Path) -> None:
    from arena.render import log_tail

    try:
        data = path.read_bytes()
    except OSError:
        return
    lines = log_tail(data)
    if lines:
        out.print(f"   its log ends ({path}):", markup=False)
        for line in lines:
            out.print(f"   | {line}", markup=False)


def _print_game_line(game: PlayedGame) -> None:
    from arena.render import forfeit_where

    outcome = game.outcome
    totals = outcome.state.totals
    seats = " ".join(spec.label for spec in game.bots)
    line = f"game seed {game.seed} [{seats}]: {totals[0]} - {totals[1]}"
    if outcome.forfeit is not None:
        f = outcome.forfeit
        line += f" · forfeit by seat {f.seat}{forfeit_where(f)} ({f.reason}: {f.detail})"
    out.print(inert(line), markup=False)


def _write_replay(game: PlayedGame, path: Path, record_think: bool) -> None:
    from arena.play.tables import game_replay

    data = game_replay(game, think=record_think)
    try:
        write_atomically(path, json.dumps(data.to_dict(), indent=1) + "\n")
    except OSError as e:
        fail(f"cannot write the replay {path}: {e.strerror}")
    out.print(f"replay written to {path}")


@replay_app.command("verify")
def replay_verify(
    files: Annotated[list[Path], typer.Argument(help="Replay JSON files.")],
) -> None:
    """Re-run the rules over replays; name the first violation of each bad one."""
    bad = 0
    for file in files:
        try:
            replay, _ = read_replay(json.loads(file.read_text()))
        except OSError as e:
            problem = f"cannot read: {e.strerror}"
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            problem = f"not JSON: {e}"
        except ReplayError as e:
            problem = str(e)
        else:
            totals = replay.result.totals
            out.print(f"{file}: ok · {len(replay.deals)} dealings · totals {totals[0]} {totals[1]}")
            continue
        bad += 1
        err.print(f"error: {file}: {problem}", markup=False)
    if bad:
        raise typer.Exit(2)


image_app = typer.Typer(no_args_is_help=True, help="The bot runtime image.")
app.add_typer(image_app, name="image")


@image_app.command("build")
def image_build(
    mirror: Annotated[
        str | None, typer.Option(help="Debian mirror for debootstrap (default: apt's sources).")
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Rebuild even if the image is present.")
    ] = False,
    platform: Annotated[
        bool,
        typer.Option("--platform", help="The service's images too: the platform and PostgreSQL."),
    ] = False,
) -> None:
    """Build the images bots run in and are built in, offline; a no-op if present."""
    import time

    from arena.images.bot_images import (
        build_image_tag,
        ensure_build_image,
        ensure_image,
        image_present,
        image_size,
        image_tag,
    )
    from arena.sandbox.docker_engine import docker_client
    from arena.sandbox.errors import SandboxError

    start = time.monotonic()

    def step(message: str) -> None:
        out.print(f"[{time.monotonic() - start:5.1f}s] {message}", markup=False)

    try:
        tag = image_tag()
        client = docker_client()
        if not force and image_present(client, tag):
            out.print(f"{tag}: already present", markup=False)
        else:
            with out.status("building the bot image", spinner="line"):
                ensure_image(client, mirror=mirror, force=force, progress=step)
            took = time.monotonic() - start
            size = image_size(client, tag)
            out.print(f"{tag}: built in {took:.0f} s · {size / 1e6:.0f} MB", markup=False)
        build_tag = build_image_tag()
        if not force and image_present(client, build_tag):
            out.print(f"{build_tag}: already present", markup=False)
        else:
            start = time.monotonic()
            with out.status("building the build image (the compilers)", spinner="line"):
                ensure_build_image(client, mirror=mirror, force=force, progress=step)
            took = time.monotonic() - start
            size = image_size(client, build_tag)
            out.print(f"{build_tag}: built in {took:.0f} s · {size / 1e6:.0f} MB", markup=False)
        if platform:
            from arena.images.service_images import SERVICE_IMAGES, ensure_service_image

            for service in SERVICE_IMAGES:
                start = time.monotonic()
                wanted = service.tag()
                if not force and image_present(client, wanted):
                    ensure_service_image(client, service)  # moves the :offline tag only
                    out.print(f"{wanted}: already present", markup=False)
                    continue
                with out.status(f"building {service.repository}", spinner="line"):
                    ensure_service_image(client, service, mirror=mirror, force=force, progress=step)
                took = time.monotonic() - start
                size = image_size(client, wanted)
                out.print(f"{wanted}: built in {took:.0f} s · {size / 1e6:.0f} MB", markup=False)
    except SandboxError as e:
        fail(str(e))


@image_app.command("tag")
def image_tag_command() -> None:
    """Print the tag of the image the current source wants."""
    from arena.images.bot_images import image_tag
    from arena.sandbox.errors import SandboxError

    try:
        out.print(image_tag(), markup=False)
    except SandboxError as e:
        fail(str(e))
