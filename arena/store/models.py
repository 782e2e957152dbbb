"""The ladder's tables. The database holds everything workers and the server share, so one
database URL is all a machine needs: metadata, and (table ``blobs``) the bots' code,
replays and logs, content-addressed, named by keys such as ``code/<sha256>``.

Times are seconds since the epoch (``time.time()``), the same on SQLite and PostgreSQL.
Statuses are plain strings (the ``StrEnum`` values of ``arena.read_model``), so a new
status needs no migration of a database enum type.

A match is one duplicate *pair* of games: the same seeded deals played twice, the
partnerships swapped between seats. ``seat0..seat3`` are the versions at the seats of the
first game; the second game seats them one seat further clockwise
(``arena.competition.pairs.second_seating``).
Team 0 is the partnership at seats 0+2 of the first game, team 1 the one at seats 1+3;
totals, points, winner and forfeits speak of these teams.
"""

from __future__ import annotations

from typing import Any, ClassVar

from sqlalchemy import JSON, BigInteger, Column, Index, LargeBinary, UniqueConstraint, false
from sqlmodel import Field, SQLModel

from arena.read_model import (
    MatchStatus,
    RatingModelName,
    ScheduleKind,
    TournamentFormat,
    TournamentKind,
    VersionStatus,
)

# Every constraint and index named the same way on every database, so a later migration
# (SQLite rebuilds a table to alter it) can name what it changes.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class User(SQLModel, table=True):
    __tablename__: ClassVar[str] = "users"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=64, unique=True)
    created_at: float
    # An operator reads every bot's logs; other users, their own bots' only.
    operator: bool = Field(default=False, sa_column_kwargs={"server_default": false()})


class Token(SQLModel, table=True):
    """One of a user's tokens, by the name its user gave it; kept only as its hash."""

    __tablename__: ClassVar[str] = "tokens"
    __table_args__ = (UniqueConstraint("user_id", "name", name="uq_tokens_user_name"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", index=True)
    name: str = Field(max_length=64)
    token_hash: str = Field(max_length=64, unique=True)  # sha256 hex of the token
    created_at: float
    expires_at: float | None = None  # None: until revoked


class Bot(SQLModel, table=True):
    __tablename__: ClassVar[str] = "bots"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=64, unique=True)
    # The name's reservation (names.name_key): no look-alike of it may be another bot. NULL
    # only for a bot that already looked like an older one when keys came (migration 0009).
    name_key: str | None = Field(default=None, max_length=256, unique=True)
    owner_id: int = Field(foreign_key="users.id", index=True)
    created_at: float


class BotVersion(SQLModel, table=True):
    __tablename__: ClassVar[str] = "bot_versions"
    __table_args__ = (
        UniqueConstraint("bot_id", "content_hash", name="uq_bot_versions_bot_content"),
        UniqueConstraint("bot_id", "number", name="uq_bot_versions_bot_number"),
    )

    id: int | None = Field(default=None, primary_key=True)
    bot_id: int = Field(foreign_key="bots.id", index=True)
    number: int  # 1, 2, ... within the bot
    content_hash: str = Field(max_length=64)  # sha256 hex of the archive
    archive_path: str = Field(max_length=512)  # the code's blob key
    status: str = Field(default=VersionStatus.PENDING, max_length=16, index=True)
    reason: str | None = Field(default=None)  # why rejected
    created_at: float


class Validation(SQLModel, table=True):
    """A version's validation game, a job of the job queue (``jobs.py``) as a match is, by
    the same columns: queued as the version is stored, claimed by a worker ahead of every
    match (one at a time, in version order, so versions join the ladder in
    the order they were submitted), then kept: its replay and each seat's log."""

    __tablename__: ClassVar[str] = "validations"

    version_id: int = Field(foreign_key="bot_versions.id", primary_key=True)
    status: str = Field(default=MatchStatus.QUEUED, max_length=16, index=True)
    attempts: int = 0  # infrastructure failures so far
    lease: int = 0  # claims so far
    worker_id: str | None = Field(default=None, max_length=128)
    heartbeat_at: float | None = None
    queued_at: float
    started_at: float | None = None  # the last claim's
    finished_at: float | None = None
    last_error: str | None = None  # the last infrastructure failure
    replay_path: str | None = Field(default=None, max_length=512)  # blob key: the replay
    logs_path: str | None = Field(default=None, max_length=512)  # blob key: {"game1": [4 keys]}


class Tournament(SQLModel, table=True):
    __tablename__: ClassVar[str] = "tournaments"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=64, unique=True)
    kind: str = Field(default=TournamentKind.TOURNAMENT, max_length=16)
    format: str = Field(default=TournamentFormat.PAIRS, max_length=16)
    games_per_pairing: int = 1  # duplicate pairs per pairing
    rating_model: str = Field(
        default=RatingModelName.ELO, max_length=16, sa_column_kwargs={"server_default": "elo"}
    )
    schedule: str = Field(
        default=ScheduleKind.ROUND_ROBIN,
        max_length=16,
        sa_column_kwargs={"server_default": ScheduleKind.ROUND_ROBIN.value},
    )
    seed: int = Field(sa_type=BigInteger)
    limits: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: float


class Match(SQLModel, table=True):
    __tablename__: ClassVar[str] = "matches"
    __table_args__ = (
        UniqueConstraint("tournament_id", "schedule_index", name="uq_matches_tournament_index"),
        Index("ix_matches_status_order", "status", "tournament_id", "schedule_index"),
    )

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id")
    schedule_index: int
    seed: int = Field(sa_type=BigInteger)
    # The versions at seats 0..3 of the first game (team 0: seats 0+2, team 1: seats 1+3).
    seat0: int = Field(foreign_key="bot_versions.id", index=True)
    seat1: int = Field(foreign_key="bot_versions.id", index=True)
    seat2: int = Field(foreign_key="bot_versions.id", index=True)
    seat3: int = Field(foreign_key="bot_versions.id", index=True)

    status: str = Field(default=MatchStatus.QUEUED, max_length=16)
    attempts: int = 0  # infrastructure failures so far (a failed run, or a silent worker)
    lease: int = 0  # claims so far: a claim's number, so a stale claimer can be told apart
    worker_id: str | None = Field(default=None, max_length=128)
    heartbeat_at: float | None = None
    started_at: float | None = None
    finished_at: float | None = None
    last_error: str | None = None  # the last infrastructure failure

    # Result, from the point of view of the first game's teams.
    game1_team0: int | None = None  # team totals of the first game
    game1_team1: int | None = None
    game2_team0: int | None = None  # ... and of the second (team 0 then sits at 1+3)
    game2_team1: int | None = None
    points_team0: int | None = None  # over the pair: game1_team0 + game2_team0
    points_team1: int | None = None
    winner: int | None = None  # 0 or 1; None for a draw (or no result yet)
    forfeit_game: int | None = None  # 1 or 2, when a bot fault ended a game
    forfeit_seat: int | None = None  # the faulting seat in that game
    forfeit_reason: str | None = Field(default=None, max_length=32)
    forfeit_detail: str | None = None
    replay_path: str | None = Field(default=None, max_length=512)  # blob key
    logs_path: str | None = Field(default=None, max_length=512)  # blob key

    @property
    def seats(self) -> tuple[int, int, int, int]:
        """Versions by seat in the first game."""
        return (self.seat0, self.seat1, self.seat2, self.seat3)

    @property
    def teams(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """Versions of team 0 and team 1. Format ``pairs``: ``((a, a), (b, b))``."""
        return ((self.seat0, self.seat2), (self.seat1, self.seat3))


class Rating(SQLModel, table=True):
    """The current rating of a version in a tournament (or ladder), in its tournament's
    rating model: ``value`` is Elo or Weng-Lin's mean, ``deviation`` Weng-Lin's sigma."""

    __tablename__: ClassVar[str] = "ratings"

    tournament_id: int = Field(foreign_key="tournaments.id", primary_key=True)
    version_id: int = Field(foreign_key="bot_versions.id", primary_key=True)
    value: float
    deviation: float | None = None  # None for a model without one (Elo)
    games: int = 0  # duplicate pairs rated
    through_index: int = -1  # the last schedule index applied


class RatingChange(SQLModel, table=True):
    """Rating history: one row per (match, version), appended in schedule order."""

    __tablename__: ClassVar[str] = "rating_history"
    __table_args__ = (
        UniqueConstraint("match_id", "version_id", name="uq_rating_history_match_version"),
        Index("ix_rating_history_order", "tournament_id", "schedule_index"),
        # A bot page's chart: one version's history, in order, without the tournament's.
        Index("ix_rating_history_version_order", "tournament_id", "version_id", "schedule_index"),
    )

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id")
    match_id: int = Field(foreign_key="matches.id")
    version_id: int = Field(foreign_key="bot_versions.id", index=True)
    schedule_index: int
    value_before: float
    value_after: float
    deviation_before: float | None = None
    deviation_after: float | None = None


class VersionTally(SQLModel, table=True):
    """A version's running tallies over its done matches in one tournament (``tallies.py``):
    added in the transaction that records each result, so they always agree with the
    results."""

    __tablename__: ClassVar[str] = "version_tallies"

    tournament_id: int = Field(foreign_key="tournaments.id", primary_key=True)
    version_id: int = Field(foreign_key="bot_versions.id", primary_key=True)
    # arena.competition.statistics.Statistics.to_record() over its seat-games
    statistics: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    # the opponent team's versions "b,d" -> [pairs, wins, draws, losses, for, against]
    head_to_head: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))


class Blob(SQLModel, table=True):
    """Content-addressed bytes: a bot's code (a tar archive) or a match's replay and logs.
    Written once, never changed; the key names its content's sha256."""

    __tablename__: ClassVar[str] = "blobs"

    key: str = Field(primary_key=True, max_length=128)
    size: int
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at: float


class WorkerState(SQLModel, table=True):
    """A worker process as it last reported itself (``arena status`` lists these)."""

    __tablename__: ClassVar[str] = "workers"

    name: str = Field(primary_key=True, max_length=128)  # host:pid
    host: str = Field(max_length=255)
    slots: int
    sandbox: str = Field(max_length=16)
    started_at: float
    heartbeat_at: float
    stopped_at: float | None = None  # a clean stop; a killed worker just goes silent
    matches_done: int = 0


class DealSecret(SQLModel, table=True):
    """The deployment's secret that every tournament's match seeds are drawn from (HMAC),
    made at first use and never shown; the newest generation is the one in use. Rotating it
    adds a generation: matches already scheduled keep their stored seeds."""

    __tablename__: ClassVar[str] = "deal_secrets"

    generation: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    secret: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at: float
