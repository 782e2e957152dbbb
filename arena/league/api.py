"""The ladder's operations as users see them, over one store: what ``arena`` runs locally
and what ``arena server`` serves. ``arena.service.client.RemoteLadder`` has the same methods
over gRPC, so each CLI command is written once and prints the same either way;
``open_ladder`` (``opening.py``) opens the one or the other, for every front end.

Errors are the store's (``StoreError`` and its kinds), ``SubmissionError``,
``SandboxError``, ``ScheduleError`` and ``NoResult``: each one line a person can act on.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from arena.competition import Format, scheduler_named
from arena.competition.pairs import seat_in
from arena.engine.replay import Replay
from arena.read_model import (
    DRAW,
    LADDER,
    TEAM_A,
    TEAM_B,
    BotLog,
    BotStatistics,
    CompareLine,
    CompareSettings,
    MatchRow,
    Problem,
    Standing,
    Status,
    StoredCode,
    SubmitOutcome,
    TokenRow,
    VersionRow,
    version_label,
)
from arena.sandbox import Sandbox, SandboxError
from arena.store import (
    BotVersion,
    Forbidden,
    MatchStatus,
    NotFound,
    RatingModelName,
    ScheduleKind,
    Store,
    User,
    Validation,
    VersionStatus,
    arena_home,
)

# What the ladder answers with beyond the read model's rows, and the store's error, for the
# front ends that reach the data through the ladder alone (the CLI, the web).
from arena.store import Match as Match
from arena.store import StoreError as StoreError
from arena.store import Tournament as Tournament

from .bot_statistics import bot_statistics
from .compare import compare_queued, resolve_version
from .doctor import problems, repair
from .labels import Labels, version_row
from .schedules import top_up
from .standings import standings
from .status import status
from .stored_files import StoredFiles
from .submit import submit
from .tournaments import create_tournament, find_tournament, unfinished
from .validate import VALIDATION_SEATS, validate_until_settled
from .worker import Listener, Worker, WorkerConfig


def may_read(user: User | None, owner: int) -> bool:
    """Whether ``user`` may read what is a bot's owner's alone, its logs, notes and code: its
    owner (by id) and the operators may, nobody signed out. The one rule for the CLI, the
    service and the web."""
    return user is not None and (user.operator or owner == user.id)


class NoResult(Exception):
    """A match that has not been played (yet): no replay, no logs."""


def match_row(labels: Labels, m: Match) -> MatchRow:
    """How a match reads in a list: its teams by label, its points and winner once done."""
    (a, c), (b, d) = m.teams
    done = m.status == MatchStatus.DONE
    return MatchRow(
        id=m.id or 0,
        schedule_index=m.schedule_index,
        team_a=labels.team(a, c),
        team_b=labels.team(b, d),
        status=m.status,
        points=(m.points_team0, m.points_team1)
        if done and m.points_team0 is not None and m.points_team1 is not None
        else None,
        winner=(DRAW if m.winner is None else (TEAM_A, TEAM_B)[m.winner]) if done else "",
        note=(f"forfeit: {m.forfeit_reason}" if m.forfeit_reason else "") or (m.last_error or ""),
        seats=tuple(labels.entrant(v) for v in m.seats),
    )


class Ladder(Protocol):
    """What every ladder command needs; local (``LocalLadder``) or remote."""

    def submit(self, token: str, path: Path, name: str) -> SubmitOutcome: ...
    def versions(self) -> list[VersionRow]: ...
    def standings(self, tournament: str) -> list[Standing]: ...
    def matches(
        self, tournament: str, status: MatchStatus | None, bot: str | None = None
    ) -> list[MatchRow]:
        """The tournament's matches in schedule order; of one status, or that a version of
        ``bot`` plays in (NotFound for an unknown bot), when given."""
        ...

    def replay(self, match_id: int, game: int) -> Replay: ...
    def bot_statistics(self, bot: str, tournament: str) -> BotStatistics:
        """The bot's game statistics in the tournament, from its versions' tallies
        (NotFound for an unknown bot or tournament)."""
        ...

    def logs(self, token: str, match_id: int) -> list[BotLog]:
        """The logs of the token's user's bots in the match (every bot's for an operator)."""
        ...

    def code(self, token: str, version: str) -> StoredCode:
        """A version's code (``NAME@V``, or ``NAME``: its active one), to its owner or an
        operator."""
        ...

    def validation_replay(self, bot: str, number: int) -> Replay:
        """The replay of version ``number`` of ``bot``'s validation game."""
        ...

    def validation_logs(self, token: str, bot: str, number: int) -> list[BotLog]:
        """The version's logs in its validation game (its seats 0 and 2): its owner's and
        the operators' only."""
        ...

    def status(self, silent_after: float) -> Status: ...
    def tokens(self, token: str) -> list[TokenRow]: ...
    def create_token(self, token: str, name: str, expires_at: float | None) -> str: ...
    def revoke_token(self, token: str, name: str, user: str | None) -> None: ...
    def compare(
        self, token: str, a: str, b: str, settings: CompareSettings
    ) -> Iterator[CompareLine]:
        """The comparison's lines as they come; the last one carries the verdict."""
        ...

    def close(self) -> None: ...


def cached_data(store: Store, home: Path | None = None) -> StoredFiles:
    """The store's files, bot code unpacked into this machine's cache under ``home`` (by
    default $ARENA_HOME)."""
    return StoredFiles(store, (home or arena_home()) / "cache")


class LocalLadder:
    """The ladder over a store. A submission is stored pending, its validation game queued
    for the workers; with ``sandbox`` (``arena submit`` on this machine) it is played here
    at once, in ``sandbox()`` (opened before anything is stored, closed after)."""

    def __init__(
        self, store: Store, data: StoredFiles, sandbox: Callable[[], Sandbox] | None = None
    ) -> None:
        self.store = store
        self.data = data
        self.sandbox = sandbox
        self.labels = Labels(store)

    def close(self) -> None:
        self.store.close()

    def add_user(self, name: str, *, operator: bool = False) -> str:
        """A new user (an operator reads every bot's logs and code); their first token,
        whose hash alone is kept."""
        return self.store.add_user(name, operator=operator)

    def submit(self, token: str, path: Path, name: str) -> SubmitOutcome:
        if self.sandbox is None:  # the server: the workers validate it
            return submit(self.store, token=token, path=path, name=name)
        self.store.authenticate(token)  # before a sandbox is opened for nothing
        backend = self.sandbox()
        try:
            done = submit(self.store, token=token, path=path, name=name)
            if done.version.status == VersionStatus.PENDING:
                version_id = self._version_id(name, done.version.number)
                worker = f"{socket.gethostname()}:{os.getpid()}:submit"
                validated = validate_until_settled(
                    self.store, self.data, backend, version_id, worker
                )
                if validated.failed is not None:
                    why = validated.failed
                    raise SandboxError(f"its validation game could not be played: {why}")
                done = replace(validated.settled, new=done.new)
        finally:
            backend.close()
        return done

    def versions(self) -> list[VersionRow]:
        validations = self.store.validation_statuses()
        return [
            version_row(self.store, version, bot.name, validations.get(version.id or 0, ""))
            for bot in self.store.bots()
            for version in self.store.versions(bot.name)
        ]

    def standings(self, tournament: str) -> list[Standing]:
        return standings(self.store, self.tournament(tournament))

    def matches(
        self, tournament: str, status: MatchStatus | None, bot: str | None = None
    ) -> list[MatchRow]:
        t = self.tournament(tournament)
        assert t.id is not None
        versions = None if bot is None else self.version_ids(bot)
        return [
            match_row(self.labels, m) for m in self.store.matches(t.id, status, versions=versions)
        ]

    def version_ids(self, bot: str) -> list[int]:
        """The ids of every version of ``bot`` (NotFound for an unknown bot)."""
        return [v.id for v in self.store.versions(bot) if v.id is not None]

    def bot_statistics(self, bot: str, tournament: str) -> BotStatistics:
        return bot_statistics(self.store, self.tournament(tournament), bot)

    def replay(self, match_id: int, game: int) -> Replay:
        """The game's public replay: no bot's notes (they are their owners')."""
        return self.replay_for(None, match_id, game)

    def replay_for(self, user: User | None, match_id: int, game: int) -> Replay:
        """The game's replay with the notes of ``user``'s bots (every bot's for an
        operator, none signed out). The one rule for the CLI, the service and the web."""
        if game not in (1, 2):
            raise ValueError(f"game is 1 or 2, got {game}")
        match = self._played(match_id)
        assert match.replay_path is not None
        replay = self.data.read_replays(match.replay_path)[game - 1]
        owners = [self.store.bot_by_id(self.store.version(v).bot_id).owner_id for v in match.seats]
        mine = [seat_in(game, s) for s, owner in enumerate(owners) if may_read(user, owner)]
        return replay.notes_only_of(mine)

    def reads_bot(self, user: User | None, bot: str) -> bool:
        """Whether ``user`` may read the bot's logs, notes and code (``may_read``)."""
        return may_read(user, self.store.bot(bot).owner_id)

    def logs(self, token: str, match_id: int) -> list[BotLog]:
        return self.logs_of(self.store.authenticate(token), match_id)

    def logs_of(self, user: User, match_id: int) -> list[BotLog]:
        """The logs of ``user``'s bots in the match (every bot's for an operator); Forbidden
        if none of them is the user's. The one rule for the CLI, the service and the web."""
        match = self._played(match_id)
        assert match.logs_path is not None
        owners = [self.store.bot_by_id(self.store.version(v).bot_id).owner_id for v in match.seats]
        readable = [may_read(user, owner) for owner in owners]
        if not any(readable):
            raise Forbidden(f"match {match_id} has none of your bots: its logs are their owners'")
        logs = self.data.read_json(match.logs_path)
        labels = [self.labels(v) for v in match.seats]
        return [
            BotLog(game, at, seat, labels[seat], self.data.read_blob(logs[f"game{game}"][at]))
            for game in (1, 2)
            for seat in range(4)
            if readable[seat]
            for at in [seat_in(game, seat)]
        ]

    def code(self, token: str, version: str) -> StoredCode:
        user = self.store.authenticate(token)
        found = resolve_version(self.store, version)
        bot = self.store.bot_by_id(found.bot_id)
        if not may_read(user, bot.owner_id):
            raise Forbidden(f"bot {bot.name!r} is another user's: its code is its owner's")
        label = version_label(bot.name, found.number)
        return StoredCode(label, self.data.read_blob(found.archive_path))

    def validation_replay(self, bot: str, number: int) -> Replay:
        """The version's validation game, public: no bot's notes."""
        return self.validation_replay_for(None, bot, number)

    def validation_replay_for(self, user: User | None, bot: str, number: int) -> Replay:
        """The validation game with the version's notes to its owner (an operator: every
        seat's, the sample bots' too)."""
        version, validation = self._validated(bot, number)
        assert validation.replay_path is not None
        replays = self.data.read_replays(validation.replay_path)
        if not replays:
            raise NotFound(
                f"{version_label(bot, number)} played no validation game: its build failed"
            )
        replay = replays[0]
        if user is not None and user.operator:
            return replay
        owner = self.store.bot_by_id(version.bot_id).owner_id
        return replay.notes_only_of(VALIDATION_SEATS if may_read(user, owner) else ())

    def validation_logs(self, token: str, bot: str, number: int) -> list[BotLog]:
        return self.validation_logs_of(self.store.authenticate(token), bot, number)

    def validation_logs_of(self, user: User, bot: str, number: int) -> list[BotLog]:
        """The version's seats' logs in its validation game, to its owner or an operator."""
        version, validation = self._validated(bot, number)
        owner = self.store.bot_by_id(version.bot_id).owner_id
        if not may_read(user, owner):
            raise Forbidden(
                f"{version_label(bot, number)} is not your bot: its logs are its owner's"
            )
        assert validation.logs_path is not None
        keys = self.data.read_json(validation.logs_path)["game1"]
        label = version_label(bot, number)
        return [
            BotLog(1, seat, seat, label, self.data.read_blob(keys[seat]))
            for seat in VALIDATION_SEATS
        ]

    def status(self, silent_after: float) -> Status:
        return status(self.store, silent_after=silent_after)

    def tokens(self, token: str) -> list[TokenRow]:
        user = self.store.authenticate(token)
        return [TokenRow(t.name, t.created_at, t.expires_at) for t in self.store.tokens(user)]

    def create_token(self, token: str, name: str, expires_at: float | None) -> str:
        return self.store.create_token(self.store.authenticate(token), name, expires_at)

    def revoke_token(self, token: str, name: str, user: str | None) -> None:
        self.store.revoke_token(self.store.authenticate(token), name, user)

    def compare(
        self,
        token: str,
        a: str,
        b: str,
        settings: CompareSettings,
        *,
        stop: Callable[[], bool] = lambda: False,
    ) -> Iterator[CompareLine]:
        """``stop``: asked while waiting for the workers; once true, the comparison ends
        there, its queued pairs cancelled (a caller gone away)."""
        self.store.authenticate(token)
        return compare_queued(self.store, self.data, a, b, settings, stop=stop)

    # ------------------------------------------------------------------ helpers

    def _version_id(self, bot: str, number: int) -> int:
        found = [v.id for v in self.store.versions(bot) if v.number == number]
        if not found or found[0] is None:
            raise NotFound(f"unknown version {bot}@{number}")
        return found[0]

    def _validated(self, bot: str, number: int) -> tuple[BotVersion, Validation]:
        """The version and its played validation game; NoResult while it is not played."""
        found = [v for v in self.store.versions(bot) if v.number == number]
        if not found or found[0].id is None:
            raise NotFound(f"unknown version {bot}@{number}")
        validation = self.store.validation(found[0].id)
        if validation.status != MatchStatus.DONE or validation.replay_path is None:
            raise NoResult(
                f"{version_label(bot, number)}'s validation game has not been played"
                f" (it is {validation.status})"
            )
        return found[0], validation

    # ------------------------------------------------------------------ here only

    def tournament(self, name: str) -> Tournament:
        return find_tournament(self.store, name)

    def create_tournament(
        self,
        name: str,
        bots: Sequence[str],
        format: Format,
        games_per_pairing: int,
        seed: int,
        rating: RatingModelName = RatingModelName.ELO,
        *,
        pace_ms: int | None = None,
        schedule: ScheduleKind = ScheduleKind.ROUND_ROBIN,
    ) -> tuple[Tournament, int]:
        """A tournament of the bots' active versions, rated by ``rating``, its tables at
        ``pace_ms`` (None: the ladder's, ``limits.ladder_pace_ms``), its first matches queued
        by ``schedule`` (a round-robin: all of them); and how many matches."""
        return create_tournament(
            self.store, name, bots, format, games_per_pairing, seed, rating,
            pace_ms=pace_ms, schedule=schedule,
        )  # fmt: skip

    def set_schedule(self, name: str, schedule: ScheduleKind) -> tuple[Tournament, int]:
        """Change how a tournament (the ladder, made if need be) chooses its next matches;
        those queued stay. An adaptive one queues its next batch now if one is due; with how
        many matches."""
        try:  # the checks of its creation
            t = self.store.tournament(name)
            scheduler_named(schedule, t.format, t.games_per_pairing)  # type: ignore[arg-type]
        except NotFound:
            pass  # the ladder, made below; another name, NotFound below
        changed = self.store.set_schedule(name, schedule, ladder=LADDER)
        assert changed.id is not None
        return changed, top_up(self.store, changed.id)

    def rotate_deal_secret(self) -> int:
        """A new deal secret for the matches scheduled from now on; its generation."""
        return self.store.rotate_deal_secret()

    def export_code(self, version: str, output: Path) -> str:
        """The version's code (``NAME@V``, or ``NAME``: its active one) written into
        ``output``, a new or empty directory, with no token (this machine's store is its
        operator's); the version's label."""
        found = resolve_version(self.store, version)
        self.data.export_code(found.archive_path, output)
        return version_label(self.store.bot_by_id(found.bot_id).name, found.number)

    def code_dir(self, version: str) -> Path:
        """The version's code (``NAME@V``, or ``NAME``), unpacked in this machine's cache."""
        return self.data.code_dir(resolve_version(self.store, version).archive_path)

    def match_counts(self, tournament: str) -> dict[MatchStatus, int]:
        """The tournament's matches by status."""
        t = self.tournament(tournament)
        assert t.id is not None
        return self.store.status_counts(t.id)

    def problems(self, silent_after: float) -> list[Problem]:
        """The ladder's broken invariants (``doctor.py``)."""
        return problems(self.store, silent_after)

    def repair(self, silent_after: float) -> list[str]:
        """What ``doctor.py`` mended, one line each."""
        return repair(self.store, silent_after)

    def worker(
        self,
        sandbox: Sandbox,
        config: WorkerConfig,
        *,
        tournament: Tournament | None = None,
        listener: Listener | None = None,
    ) -> Worker:
        """A worker on this ladder's store and files, playing in ``sandbox`` (only
        ``tournament``'s matches, when given)."""
        tid = None if tournament is None else tournament.id
        return Worker(self.store, self.data, sandbox, config, tournament_id=tid, listener=listener)

    def unfinished(self, tournament: Tournament | None = None) -> int:
        """Matches queued or running in ``tournament`` (None: in all)."""
        return unfinished(self.store, None if tournament is None else tournament.id)

    def _played(self, match_id: int) -> Match:
        match = self.store.match(match_id)
        if match.status != MatchStatus.DONE or match.replay_path is None:
            raise NoResult(f"match {match_id} has no result yet (it is {match.status})")
        return match
