"""Tables and their pipeline: four bots (``arena.play.bot_specs``) started in a sandbox for each
game, the game refereed between them, the bots stopped.

Every game gets four fresh bots. While one game is played the next game's bots are already
starting (``TablePipeline``), so a sandbox's start-up cost hides behind the game before, and
the last game's bots are being stopped, so its tear-down cost hides behind the game after.
"""

from __future__ import annotations

import functools
import logging
import os
import random
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from arena.bots.limits import Limits
from arena.competition.pairs import Pair, PairGame, second_seating
from arena.engine import DealRecord, Observation, Rules
from arena.engine.events import Event
from arena.engine.replay import Replay, build_replay
from arena.play.attached import DEFAULT_TIMEOUT_S, AttachedBot, relaxed
from arena.play.bot_specs import BotSpec
from arena.referee import GameOutcome, RemotePlayer, StartupFault, run_game
from arena.sandbox import RunningBot, Sandbox, SocketFault, dial_path
from arena.sandbox.leftovers import scratch_dir

log = logging.getLogger("arena.play.tables")


@dataclass(frozen=True)
class GameSettings:
    rules: Rules = Rules()  # noqa: RUF009 (frozen values: sharing the default is safe)
    limits: Limits = Limits()  # noqa: RUF009
    record_legal: bool = False
    logs_dir: Path | None = None  # keep each bot's log here
    attach_timeout_s: int = DEFAULT_TIMEOUT_S  # per call, for a bot already running (tcp://)

    def limits_of(self, bot: BotSpec) -> Limits:
        return self.limits if bot.address is None else relaxed(self.limits, self.attach_timeout_s)


@dataclass
class Table:
    """Four started bots for one game, in a scratch directory of their own."""

    bots: tuple[BotSpec, ...]  # by seat
    running: list[RunningBot]
    scratch: tempfile.TemporaryDirectory[str]

    def stop(self) -> None:
        """Stop the four bots at once: stopping a container takes a moment; four, the same."""
        with ThreadPoolExecutor(max(1, len(self.running)), thread_name_prefix="arena-stop") as pool:
            for done in [pool.submit(bot.stop) for bot in self.running]:
                done.result()


@dataclass
class PlayedGame:
    seed: int
    bots: tuple[BotSpec, ...]  # by seat
    outcome: GameOutcome
    players: list[RemotePlayer]
    logs: list[Path] = field(default_factory=list)


def game_replay(game: PlayedGame, *, think: bool = False) -> Replay:
    """The game's replay, with the bots' notes; with ``think``, each player's think time too
    (none for a seat whose bot was never reached: a start-up fault ends the game before every
    seat is)."""
    times = None
    if think:
        by_seat = {p.seat: p.timing.think() for p in game.players}
        times = [by_seat.get(seat) for seat in range(len(game.bots))]
    cut = {p.seat: p.notes.cut() for p in game.players}
    return build_replay(
        game.outcome.state, [b.label for b in game.bots], forfeit=game.outcome.forfeit,
        think=times, notes=game.outcome.notes, notes_cut=[cut.get(s) for s in range(4)],
    )  # fmt: skip


def start_table(bots: Sequence[BotSpec], sandbox: Sandbox, limits: Limits) -> Table:
    """Start the four bots at once (a container takes a moment; four take the same)."""
    scratch = scratch_dir()  # named for its process: swept if that is killed
    root = Path(scratch.name)

    def start(seat: int) -> RunningBot:
        if (address := bots[seat].address) is not None:
            return AttachedBot(address)
        return sandbox.start(bots[seat].directory, root / f"seat{seat}", limits)

    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(start, seat) for seat in range(4)]
    running = [f.result() for f in futures if f.exception() is None]
    if len(running) < 4:  # the platform failed: stop what did start, then say why
        for bot in running:
            bot.stop()
        scratch.cleanup()
        raise next(e for f in futures if (e := f.exception()) is not None)
    return Table(tuple(bots), running, scratch)


# gRPC retries a failed connect after 1 s, then 1.6 s, 2.6 s, ... by default; a local
# socket costs nothing to retry, so retry at once and at most every quarter second. An
# answer is a few bytes: one over 64 KiB is refused by gRPC (RESOURCE_EXHAUSTED), a protocol
# fault, rather than read and parsed on every call.
MAX_ANSWER_BYTES = 64 << 10
CHANNEL_OPTIONS = (
    ("grpc.initial_reconnect_backoff_ms", 20),
    ("grpc.max_reconnect_backoff_ms", 250),
    ("grpc.max_receive_message_length", MAX_ANSWER_BYTES),
)


def referee_table(
    table: Table,
    seed: int,
    settings: GameSettings,
    on_deal: Callable[[DealRecord], None] | None = None,
    log_prefix: str = "",
    on_begin: Callable[[], None] | None = None,
    tear_down: Callable[[Callable[[], None]], None] | None = None,
) -> PlayedGame:
    """Referee one game between a table's bots, then stop them whatever happened.

    ``on_begin`` is called once every bot has answered Hello (or one failed to), as the
    game's play begins (``run_game``'s): the moment to start the next game's bots
    (``TablePipeline.begun``), no sooner, so that they don't compete for the CPU with these
    bots' start-up.

    The logs are kept as the game left them; then the table is torn down (the bots stopped,
    their channels closed, the scratch directory removed) by ``tear_down``, given the work
    to do: at once by default, in the background with ``TablePipeline.later``. Stopping a
    table of containers takes a good part of a second, more while other workers stop theirs:
    time the next game need not wait for, since no bot of this game can reach it."""
    channels: list[grpc.Channel] = []
    sockets: list[int] = []  # the bots' checked sockets, held open while they are dialled
    tear_down_table = functools.partial(_tear_down, table, channels, sockets)
    seats = [
        SeatedBot(seat, bot, running, settings.limits_of(bot), channels, sockets, table.running)
        for seat, (bot, running) in enumerate(zip(table.bots, table.running, strict=True))
    ]
    try:
        outcome = run_game(
            seats,
            seed,
            settings.rules,
            record_legal=settings.record_legal,
            on_deal=on_deal,
            on_begin=on_begin,
        )
    except BaseException:
        tear_down_table()
        raise
    try:
        logs = _keep_logs(table, settings, log_prefix)
    finally:
        if tear_down is None:
            tear_down_table()
        else:
            tear_down(tear_down_table)
    players = [s.player for s in seats if s.player is not None]
    return PlayedGame(seed, table.bots, outcome, players, logs)


@dataclass
class SeatedBot:
    """A table's bot as the referee's ``Player``: reached as it is greeted (its socket
    checked, a channel dialled to it), a ``RemotePlayer`` from then on."""

    seat: int
    bot: BotSpec
    running: RunningBot
    limits: Limits
    # The table's channels and checked sockets, each closed as the table is torn down.
    channels: list[grpc.Channel]
    sockets: list[int]
    table: Sequence[RunningBot] = ()  # the table's bots, this one among them
    player: RemotePlayer | None = None  # once reached

    def hello(self, bot_seed: int, rules: Rules) -> None:
        # Start-up counts from the start, but not while the bot waited frozen (``turns``);
        # a bot started ahead of its game that is up by now still gets a moment to be reached.
        limits, running = self.limits, self.running
        deadline = max(running.started_at + limits.startup_ms / 1000, time.monotonic() + 1.0)
        # Its turn to start: one frozen past its start-up allowance goes on now, alone.
        self.thaw()
        if self.bot.address is None:
            self.sockets.append(_checked_socket(self.seat, self.bot, running, limits, deadline))
        target = self.bot.address or f"unix:{dial_path(self.sockets[-1])}"
        channel = grpc.insecure_channel(target, CHANNEL_OPTIONS)
        self.channels.append(channel)
        self.player = RemotePlayer(
            self.seat, channel, limits, self.bot.label, running.died, running.freeze, self.thaw,
            wait_frozen=running.wait_frozen,
        )  # fmt: skip
        self.player.hello(bot_seed, rules, deadline)

    def thaw(self) -> None:
        """Thaw this bot once every other bot of its table is still: a freeze takes hold
        asynchronously (a thread waiting for a CPU stops only once it gets one), and the bot
        asked is to have the CPUs to itself."""
        for other in self.table:
            if other is not self.running:
                other.wait_frozen()
        self.running.thaw()

    def choose(self, obs: Observation) -> int:
        return self._reached().choose(obs)

    def take_note(self) -> str | None:
        return self._reached().take_note()

    def notify(self, event: Event) -> None:
        self._reached().notify(event)

    def _reached(self) -> RemotePlayer:
        if self.player is None:
            raise RuntimeError(f"seat {self.seat} was never greeted")
        return self.player


def _checked_socket(
    seat: int, bot: BotSpec, running: RunningBot, limits: Limits, deadline: float
) -> int:
    """The bot's socket once it is made and checked; anything else there is its fault."""
    try:
        return running.open_socket(deadline)
    except SocketFault as e:
        detail = f"{e} within {limits.startup_ms / 1000:g} s" if e.missing else str(e)
        raise StartupFault(seat, bot.label, detail) from None


def _tear_down(table: Table, channels: Sequence[grpc.Channel], sockets: Sequence[int]) -> None:
    # The bots first: closing a channel whose peer is still up can wait for gRPC's
    # connectivity poll (up to 0.2 s each); a dead peer ends it at once.
    try:
        table.stop()
    finally:
        for channel in channels:
            channel.close()
        for fd in sockets:
            os.close(fd)
        table.scratch.cleanup()


def play_game(
    bots: Sequence[BotSpec],
    seed: int,
    sandbox: Sandbox,
    settings: GameSettings = GameSettings(),
    on_deal: Callable[[DealRecord], None] | None = None,
) -> PlayedGame:
    """Start four bots, referee one game, stop them whatever happened."""
    table = start_table(bots, sandbox, settings.limits)
    return referee_table(table, seed, settings, on_deal)


def _keep_logs(table: Table, settings: GameSettings, prefix: str) -> list[Path]:
    """Write each bot's captured output (capped, marked where the cap cut it) to
    ``settings.logs_dir``.

    The bots may still run: what they wrote during the game has been read (the referee's
    calls return after the bot's handler, and the SDK's output is unbuffered); a bot that
    died is given a moment for its last words to arrive."""
    if settings.logs_dir is None:
        return []
    settings.logs_dir.mkdir(parents=True, exist_ok=True)
    kept = []
    for seat, running in enumerate(table.running):
        target = settings.logs_dir / f"{prefix}seat{seat}.log"
        target.write_bytes(running.output())
        kept.append(target)
    return kept


# ---------------------------------------------------------------------- duplicate


def played_pairs(games: Sequence[PlayedGame]) -> list[Pair]:
    """The pairs of a duplicate ``play_many``: its games two by two."""
    return [pair_of(a, b) for a, b in zip(games[::2], games[1::2], strict=True)]


def pair_of(first: PlayedGame, second: PlayedGame) -> Pair:
    """A duplicate pair of played games, as ``arena.competition.pairs`` scores it."""
    return Pair(_pair_game(first), _pair_game(second))


def _pair_game(game: PlayedGame) -> PairGame:
    a, b = game.outcome.state.totals
    fault = game.outcome.forfeit
    return PairGame((a, b), None if fault is None else fault.seat)


def play_many(
    bots: Sequence[BotSpec],
    seeds: Sequence[int],
    sandbox: Sandbox,
    *,
    duplicate: bool,
    concurrency: int = 1,
    settings: GameSettings = GameSettings(),
    on_game: Callable[[PlayedGame], None] | None = None,
) -> list[PlayedGame]:
    """Play a game per seed (two with ``duplicate``: seats as given, then rotated).

    Games run ``concurrency`` at a time, and the next ``concurrency`` games' bots start
    while they do. Results come back in schedule order whatever order they finish in.
    """
    schedule = [(tuple(bots), s) for s in seeds]
    if duplicate:
        schedule = [g for s in seeds for g in ((tuple(bots), s), (second_seating(bots), s))]
    tables = TablePipeline(ahead=concurrency)
    add_games(tables, [lineup for lineup, _ in schedule], sandbox, settings.limits)

    def one(index: int) -> PlayedGame:
        return referee_table(
            tables.take(index),
            schedule[index][1],
            settings,
            log_prefix=f"game{index + 1}-",
            on_begin=lambda: tables.begun(index),
            tear_down=tables.later,
        )

    try:
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            games = []
            for game in pool.map(one, range(len(schedule))):
                if on_game is not None:
                    on_game(game)
                games.append(game)
    finally:
        tables.close()
    return games


def add_games(
    tables: TablePipeline, lineups: Sequence[Sequence[BotSpec]], sandbox: Sandbox, limits: Limits
) -> list[int]:
    """Add a game per lineup to ``tables``, each to be played by four fresh bots; their
    indices in the pipeline."""
    return [tables.add(functools.partial(start_table, bots, sandbox, limits)) for bots in lineups]


class TablePipeline:
    """Starts tables ahead of their games: once game i has begun (its bots all answered
    Hello), the tables of games i + 1 .. i + ``ahead`` start while it plays.

    Games are added in the order they will be played, each as the call that starts its table;
    a game may be added while earlier ones play (a worker adds its next match's games once it
    has claimed it) and starts at once if it is already due. A table not started ahead starts
    when its game takes it.

    With ``spread_s``, a table due ahead first waits a random time, up to ``spread_s`` and
    to half the last game's length: workers whose games began together (they started
    together, and equal games stay in step) then don't start their next bots all at once,
    a burst that slows every game in play. A game that wants its table sooner ends the wait.
    """

    def __init__(self, ahead: int = 1, spread_s: float = 0.0) -> None:
        self._ahead = ahead
        self._spread_s = spread_s
        self._starts: list[Callable[[], Table]] = []
        self._pool = ThreadPoolExecutor(max_workers=ahead, thread_name_prefix="arena-start")
        self._futures: dict[int, Future[Table]] = {}
        self._waits: dict[int, _Wait] = {}  # tables due ahead, until they start
        self._taken: set[int] = set()
        self._begun = -1  # the last game that has begun
        self._begun_at: float | None = None  # when it began
        self._game_s: float | None = None  # the last game's length, begun to next begun
        self._lock = threading.Lock()
        # Played tables are torn down here, one after another, while the next games play.
        self._stopper = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-stop")

    def add(self, start: Callable[[], Table]) -> int:
        """Schedule a game's table, started by ``start``; its index in the pipeline."""
        with self._lock:
            self._starts.append(start)
            index = len(self._starts) - 1
            self._start_due()
        return index

    def take(self, index: int) -> Table:
        """Game ``index``'s table, started now if it was not started ahead."""
        with self._lock:
            self._end_wait(index)
            future = self._futures.pop(index, None) or self._pool.submit(self._starts[index])
            self._taken.add(index)
        return future.result()

    def begun(self, index: int) -> None:
        """Game ``index`` is being played: start the tables due after it."""
        with self._lock:
            now = time.monotonic()
            if index == self._begun + 1 and self._begun_at is not None:
                self._game_s = now - self._begun_at
            self._begun, self._begun_at = max(self._begun, index), now
            self._start_due()

    def later(self, tear_down: Callable[[], None]) -> None:
        """Tear a played table down in the background (``referee_table``'s ``tear_down``);
        ``close`` waits for it. A failure is logged: the game's result stands."""
        self._stopper.submit(_logged, tear_down)

    def drop(self, index: int) -> None:
        """Game ``index`` will not be played (its match failed): stop its table if it was
        started ahead, and never start it."""
        with self._lock:
            self._taken.add(index)
            self._end_wait(index, cancel=True)
            future = self._futures.pop(index, None)
        if future is not None:
            _stop_unplayed(future)

    def _start_due(self) -> None:
        last = min(self._begun + self._ahead, len(self._starts) - 1)
        spread = self._spread_s if self._game_s is None else min(self._spread_s, self._game_s / 2)
        for later in range(self._begun + 1, last + 1):
            if later not in self._taken and later not in self._futures:
                wait = self._waits[later] = _Wait(random.uniform(0.0, spread))
                self._futures[later] = self._pool.submit(wait.then, self._starts[later])

    def _end_wait(self, index: int, cancel: bool = False) -> None:
        wait = self._waits.pop(index, None)
        if wait is not None:
            wait.end(cancel)

    def close(self) -> None:
        """Wait for played tables to be torn down, and stop tables started for games that
        will not be played (an error ended the run)."""
        with self._lock:
            for index in list(self._waits):
                self._end_wait(index, cancel=True)
        self._pool.shutdown(wait=True)
        for future in self._futures.values():
            _stop_unplayed(future)
        self._futures.clear()
        self._stopper.shutdown(wait=True)


class _Wait:
    """A start put off ``seconds``, unless ended sooner; a cancelled one never starts."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.cancelled = False
        self._ended = threading.Event()

    def end(self, cancel: bool) -> None:
        self.cancelled = cancel
        self._ended.set()

    def then(self, start: Callable[[], Table]) -> Table:
        self._ended.wait(self.seconds)
        if self.cancelled:
            raise _NotStarted
        return start()


class _NotStarted(Exception):
    """A table due ahead whose game will not be played, cancelled before it started."""


def _logged(tear_down: Callable[[], None]) -> None:
    try:
        tear_down()
    except Exception as e:
        log.warning("a played table was not torn down cleanly: %s: %s", type(e).__name__, e)


def _stop_unplayed(future: Future[Table]) -> None:
    """Stop a table started for a game that will not be played (a failed or cancelled start
    left none)."""
    if future.exception() is None:
        _tear_down(future.result(), channels=(), sockets=())
