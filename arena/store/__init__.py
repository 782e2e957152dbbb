"""The ladder's database: users, bots and their versions, tournaments, the match queue,
ratings. SQLite by default (``$ARENA_HOME/arena.db``), PostgreSQL by ``ARENA_DATABASE_URL``.
"""

from arena.host.home import arena_home
from arena.read_model import (
    MatchStatus,
    RatingModelName,
    ScheduleKind,
    TournamentFormat,
    TournamentKind,
    VersionStatus,
)

from .db import database_url, open_store
from .errors import (
    AuthError,
    Forbidden,
    NameTaken,
    NotFound,
    StoreError,
    TooMany,
    Unavailable,
)
from .models import (
    Blob,
    Bot,
    BotVersion,
    Match,
    Rating,
    RatingChange,
    Token,
    Tournament,
    User,
    Validation,
    WorkerState,
)
from .store import (
    ForfeitInfo,
    Job,
    JobKind,
    LadderEntry,
    MatchResult,
    MatchSpec,
    RatingStep,
    Settled,
    Store,
)

__all__ = [
    "AuthError",
    "Blob",
    "Bot",
    "BotVersion",
    "Forbidden",
    "ForfeitInfo",
    "Job",
    "JobKind",
    "LadderEntry",
    "Match",
    "MatchResult",
    "MatchSpec",
    "MatchStatus",
    "NameTaken",
    "NotFound",
    "Rating",
    "RatingChange",
    "RatingModelName",
    "RatingStep",
    "ScheduleKind",
    "Settled",
    "Store",
    "StoreError",
    "Token",
    "TooMany",
    "Tournament",
    "TournamentFormat",
    "TournamentKind",
    "Unavailable",
    "User",
    "Validation",
    "VersionStatus",
    "WorkerState",
    "arena_home",
    "database_url",
    "open_store",
]
