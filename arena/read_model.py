"""The read model: the rows every front end reads from a ``Ladder`` (``arena.league.api``),
local or remote, and the statuses the store keeps as plain strings.

It imports the standard library alone, so the thin remote client (``arena.service.client``)
and its converters load neither SQLAlchemy nor the Docker SDK nor numpy; the store, the
league and the service import their rows from here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

if TYPE_CHECKING:
    from arena.competition.sprt import Verdict

# ------------------------------------------------------------------ statuses, as stored


class VersionStatus(StrEnum):
    PENDING = "pending"  # stored, validation game not yet played
    ACTIVE = "active"
    REJECTED = "rejected"  # with a reason
    RETIRED = "retired"


class MatchStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    ERROR = "error"  # infrastructure failed too often; never rated
    CANCELLED = "cancelled"  # no longer wanted (a comparison that has decided)


LADDER = "ladder"  # the name of the open-ended tournament every active version joins


class TournamentKind(StrEnum):
    LADDER = "ladder"  # open-ended: the round-robin grows as versions become active
    TOURNAMENT = "tournament"  # a one-off round-robin
    COMPARE = "compare"  # arena compare A B: pairs queued until an SPRT decides; first served


class RatingModelName(StrEnum):
    """How a tournament rates (``arena.competition.model_named``); the stored columns are the
    same for every model."""

    ELO = "elo"  # sequential Elo kept, the maximum-likelihood fit shown
    OPENSKILL = "openskill"  # Weng-Lin: a mean and a deviation per entry


class ScheduleKind(StrEnum):
    """How a tournament chooses its matches (``arena.competition.scheduler_named``)."""

    ROUND_ROBIN = "round-robin"  # every pairing, queued up front (a joining entry: all its own)
    ADAPTIVE = "adaptive"  # by what each next match teaches, queued a batch at a time


class TournamentFormat(StrEnum):
    PAIRS = "pairs"  # each partnership is two copies of one entry
    MIXED = "mixed"  # four different entries at a table


# ------------------------------------------------------------------ bots, matches, tokens


def version_label(bot: str, number: int) -> str:
    """How people read a version, everywhere: ``mybot v2``.

    >>> version_label("mybot", 2)
    'mybot v2'
    """
    return f"{bot} v{number}"


def plural(count: int, noun: str) -> str:
    """A count with its noun, as every front end writes it (English: "es" after a hiss).

    >>> plural(1, "match"), plural(2, "ladder match"), plural(0, "card")
    ('1 match', '2 ladder matches', '0 cards')
    """
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {noun}{'es' if noun.endswith(('s', 'x', 'z', 'ch', 'sh')) else 's'}"


def parse_version(spec: str) -> tuple[str, int | None]:
    """``NAME@V`` as (NAME, V), ``NAME`` alone as (NAME, None): the one reading of what
    every command and call names a version by. A name may hold ``@`` itself, so V is
    what follows the last one, when it is a number.

    >>> parse_version("mybot@2"), parse_version("mybot"), parse_version("a@b@3")
    (('mybot', 2), ('mybot', None), ('a@b', 3))
    """
    name, at, number = spec.rpartition("@")
    if at and name and number.isascii() and number.isdigit():
        return name, int(number)
    return spec, None


@dataclass(frozen=True)
class VersionRow:
    bot: str
    number: int
    status: str
    reason: str
    content_hash: str
    # Its validation game: queued, running, done (its replay and logs kept), error (the
    # platform gave up on it; submitting the same code queues it again), or "" (none).
    validation: str = ""

    @property
    def label(self) -> str:
        return version_label(self.bot, self.number)

    def as_json(self) -> dict[str, Any]:
        """``arena bots --json``'s object, and the web's."""
        return asdict(self)


@dataclass(frozen=True)
class SubmitOutcome:
    version: VersionRow
    new: bool  # False: this very code was submitted before
    scheduled: int  # ladder matches scheduled for it


@dataclass(frozen=True)
class Entrant:
    """A version at a table, by name: what a page shows and links."""

    bot: str
    version: int

    @property
    def label(self) -> str:
        return version_label(self.bot, self.version)

    def as_json(self) -> dict[str, Any]:
        return {"bot": self.bot, "version": self.version}


TEAM_A, TEAM_B, DRAW = "team A", "team B", "draw"  # a match's winners


@dataclass(frozen=True)
class MatchRow:
    """A duplicate pair. Team A is the bots at seats 0 and 2 of its first game (1 and 3 of
    the second), team B the others: one team follows the same bots across both games."""

    id: int
    schedule_index: int
    team_a: str  # "a v1", or "a v1 + b v2" in a mixed team
    team_b: str
    status: str
    points: tuple[int, int] | None  # team A's and team B's over both games, once done
    winner: str  # TEAM_A, TEAM_B or DRAW once done, else ""
    note: str  # the forfeit, or the last infrastructure failure
    # The first game's seats 0-3 by name (team A: seats 0 and 2).
    seats: tuple[Entrant, ...] = ()

    def as_json(self) -> dict[str, Any]:
        """The one JSON form of a match, for ``arena matches --json`` and the web's
        ``/api/``: ``points`` a list or null, ``winner`` null until done."""
        return {
            "id": self.id,
            "schedule_index": self.schedule_index,
            "team_a": self.team_a,
            "team_b": self.team_b,
            "status": self.status,
            "points": None if self.points is None else list(self.points),
            "winner": self.winner or None,
            "note": self.note,
            "seats": [seat.as_json() for seat in self.seats],
        }


@dataclass(frozen=True)
class BotLog:
    game: int  # 1 or 2
    seat: int  # the seat in that game
    first_seat: int  # the same bot's seat in the first game
    label: str  # "name vN"
    output: bytes

    def as_json(self) -> dict[str, Any]:
        """The output as text, undecodable bytes replaced: ``json.dumps`` escapes every
        control character, so nothing the bot wrote reaches a terminal raw."""
        return {**asdict(self), "output": self.output.decode(errors="replace")}


@dataclass(frozen=True)
class StoredCode:
    label: str  # "name vN"
    archive: bytes  # the .tar.gz the store keeps (``submission.pack``'s)


@dataclass(frozen=True)
class TokenRow:
    name: str
    created_at: float
    expires_at: float | None  # None: never

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


# ------------------------------------------------------------------ the standings


@dataclass(frozen=True)
class Standing:
    rank: int
    group: int  # entries in one group can't yet be told apart (LOS < 95%)
    bot: str
    version: int
    version_id: int
    rating: float  # the model's displayed rating: the Elo fit, or Weng-Lin's mu
    ci95: tuple[float, float]  # its 95% interval
    games: int  # games played: two per duplicate pair
    wins: int  # duplicate pairs won, drawn, lost
    draws: int
    losses: int
    mean_diff: float  # mean score difference per duplicate pair
    owner: str  # the user who submitted the bot
    status: str  # the version's: "active", or "retired" once a newer one replaced it
    rating_model: str = "elo"  # the tournament's
    details: dict[str, float] = field(default_factory=dict)  # the model's figures, by name

    @property
    def pairs(self) -> int:
        """Duplicate pairs played, what W/D/L counts."""
        return self.games // 2

    def as_json(self) -> dict[str, Any]:
        """The fields, the model's figures among them by name (``elo`` and ``fit_elo``, or
        ``mu``, ``sigma`` and ``conservative``)."""
        row = asdict(self)
        del row["details"]
        row |= {key: round(value, 1) for key, value in self.details.items()}
        row["pairs"] = self.pairs
        row["ci95"] = [round(x, 1) for x in self.ci95]
        for key in ("rating", "mean_diff"):
            row[key] = round(row[key], 1)
        return row


# ------------------------------------------------------------------ the platform's status

WorkerStateName = Literal["up", "silent", "stopped"]


@dataclass(frozen=True)
class RunningMatch:
    id: int
    tournament: str
    index: int  # in the tournament's schedule
    worker_id: str | None  # <worker name>:<slot>
    started_at: float | None
    heartbeat_at: float | None
    seats: tuple[str, str, str, str]  # "bot vN" at seats 0-3 of the first game
    teams: tuple[str, str]  # team 0 (seats 0+2), team 1 (seats 1+3): "a v1" or "a v1 + b v2"
    entrants: tuple[Entrant, ...] = ()  # seats 0-3 of the first game by name, to link


@dataclass(frozen=True)
class TournamentCounts:
    tournament: str
    kind: str  # ladder, tournament, ...
    counts: dict[str, int]  # matches by status: every status, zero or not


@dataclass(frozen=True)
class WorkerInfo:
    name: str  # host:pid
    host: str
    slots: int
    sandbox: str
    started_at: float
    heartbeat_at: float
    stopped_at: float | None
    matches_done: int
    state: WorkerStateName  # stopped; up: heard from within silent_after s; else silent


SILENT_AFTER_S = 60.0  # the default: a running match or worker not heard from this long is silent


@dataclass(frozen=True)
class Problem:
    """A broken invariant of the ladder (``arena.league.doctor``): what kind, in words, and
    whether ``arena doctor --repair`` mends it."""

    kind: str  # missing_matches, several_active, silent_match, silent_validation, ...
    detail: str
    repairable: bool


@dataclass(frozen=True)
class Status:
    """What the platform is doing at ``now``. Times are seconds since the epoch, as the
    store keeps them, so "how long ago" is measured on the clock that wrote the heartbeats,
    wherever the status is shown."""

    now: float  # when it was taken
    silent_after: float  # a worker not heard from for longer is "silent"
    queue_depth: int  # queued matches, every tournament
    running: tuple[RunningMatch, ...]  # by tournament, then schedule index
    tournaments: tuple[TournamentCounts, ...]  # by tournament id
    workers: tuple[WorkerInfo, ...]  # the most recently heard from first
    problems: tuple[Problem, ...] = ()  # broken invariants; none: all is well

    def total(self, status: MatchStatus) -> int:
        """Matches with this status, every tournament."""
        return sum(t.counts.get(status.value, 0) for t in self.tournaments)

    @property
    def workers_up(self) -> int:
        return sum(w.state == "up" for w in self.workers)

    def as_json(self) -> dict[str, Any]:
        """Plain JSON values: lists for the tuples. The form ``arena status --json`` prints
        and the server sends."""
        data = asdict(self)
        for row in data["running"]:
            row["seats"], row["teams"] = list(row["seats"]), list(row["teams"])
            row["entrants"] = list(row["entrants"])
        for key in ("running", "tournaments", "workers", "problems"):
            data[key] = list(data[key])
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Status:
        """The inverse of ``as_json``."""
        return cls(
            now=data["now"],
            silent_after=data["silent_after"],
            queue_depth=data["queue_depth"],
            running=tuple(
                RunningMatch(
                    **row
                    | {
                        "seats": tuple(row["seats"]),
                        "teams": tuple(row["teams"]),
                        "entrants": tuple(Entrant(**e) for e in row.get("entrants", ())),
                    }
                )
                for row in data["running"]
            ),
            tournaments=tuple(TournamentCounts(**row) for row in data["tournaments"]),
            workers=tuple(WorkerInfo(**row) for row in data["workers"]),
            problems=tuple(Problem(**row) for row in data.get("problems", [])),  # older servers
        )


# ------------------------------------------------------------------ a bot's statistics


@dataclass(frozen=True)
class BotStatistics:
    """A bot's game statistics in one tournament, read from its versions' tallies (counted
    as each result is recorded): over all its versions, and by the label of each version
    that played. Each is a record of ``arena.competition.statistics.Statistics``
    (``to_record``), which shows it."""

    bot: str
    tournament: str
    all: dict[str, Any]
    versions: dict[str, dict[str, Any]]  # "bot vN" -> its record, in version order

    def as_json(self) -> dict[str, Any]:
        """The form the server sends (records, not ``arena bot --json``'s display form)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BotStatistics:
        """The inverse of ``as_json``."""
        return cls(data["bot"], data["tournament"], data["all"], dict(data["versions"]))


# ------------------------------------------------------------------ a comparison


@dataclass(frozen=True)
class CompareSettings:
    seed: int = 0
    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05
    max_pairs: int = 1000
    pentanomial: bool = False
    batch: int = 8  # pairs queued ahead of the verdict
    poll_s: float = 0.5


# A line, and the verdict once there is one.
CompareLine: TypeAlias = "tuple[str, Verdict | None]"
