"""What the platform is doing right now: the queue, the matches being played, the workers.

``status(store)`` reads it; ``Status.as_json()`` is the form ``arena status --json`` prints
and the server sends, ``Status.from_json`` reads it back. Times are seconds since the epoch,
as the store keeps them; ``now`` is the moment the status was taken, so "how long ago" is
measured on the clock that wrote the heartbeats, wherever the status is shown.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any, Literal

from arena.store import Match, MatchStatus, Store, WorkerState

from .labels import Labels
from .worker import WorkerConfig

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


@dataclass(frozen=True)
class Status:
    now: float  # when it was taken
    silent_after: float  # a worker not heard from for longer is "silent"
    queue_depth: int  # queued matches, every tournament
    running: tuple[RunningMatch, ...]  # by tournament, then schedule index
    tournaments: tuple[TournamentCounts, ...]  # by tournament id
    workers: tuple[WorkerInfo, ...]  # the most recently heard from first

    def total(self, status: MatchStatus) -> int:
        """Matches with this status, every tournament."""
        return sum(t.counts.get(status.value, 0) for t in self.tournaments)

    @property
    def workers_up(self) -> int:
        return sum(w.state == "up" for w in self.workers)

    def as_json(self) -> dict[str, Any]:
        """Plain JSON values: lists for the tuples."""
        data = asdict(self)
        for row in data["running"]:
            row["seats"], row["teams"] = list(row["seats"]), list(row["teams"])
        for key in ("running", "tournaments", "workers"):
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
                RunningMatch(**(row | {"seats": tuple(row["seats"]), "teams": tuple(row["teams"])}))
                for row in data["running"]
            ),
            tournaments=tuple(TournamentCounts(**row) for row in data["tournaments"]),
            workers=tuple(WorkerInfo(**row) for row in data["workers"]),
        )


def worker_state(worker: WorkerState, now: float, silent_after: float) -> WorkerStateName:
    if worker.stopped_at is not None:
        return "stopped"
    return "up" if now - worker.heartbeat_at <= silent_after else "silent"


def status(
    store: Store, now: float | None = None, *, silent_after: float = WorkerConfig.silent_after_s
) -> Status:
    """The platform's state at ``now`` (default: the time it has been read, so no heartbeat
    it shows is later than ``now``)."""
    labels = Labels(store)
    counts: list[TournamentCounts] = []
    running: list[RunningMatch] = []
    for tournament in store.tournaments():
        assert tournament.id is not None
        by_status = store.status_counts(tournament.id)
        by_name = {s.value: n for s, n in by_status.items()}
        counts.append(TournamentCounts(tournament.name, tournament.kind, by_name))
        if by_status[MatchStatus.RUNNING]:
            running.extend(
                _running(m, tournament.name, labels)
                for m in store.matches(tournament.id, MatchStatus.RUNNING)
            )
    seen = store.workers()
    now = time.time() if now is None else now
    workers = tuple(_worker(w, now, silent_after) for w in seen)
    return Status(
        now=now,
        silent_after=silent_after,
        queue_depth=sum(c.counts[MatchStatus.QUEUED.value] for c in counts),
        running=tuple(running),
        tournaments=tuple(counts),
        workers=workers,
    )


def _worker(w: WorkerState, now: float, silent_after: float) -> WorkerInfo:
    return WorkerInfo(
        w.name, w.host, w.slots, w.sandbox, w.started_at, w.heartbeat_at,
        w.stopped_at, w.matches_done, worker_state(w, now, silent_after),
    )  # fmt: skip


def _running(match: Match, tournament: str, labels: Labels) -> RunningMatch:
    assert match.id is not None
    s0, s1, s2, s3 = (labels(v) for v in match.seats)
    (a, c), (b, d) = match.teams
    return RunningMatch(
        id=match.id,
        tournament=tournament,
        index=match.schedule_index,
        worker_id=match.worker_id,
        started_at=match.started_at,
        heartbeat_at=match.heartbeat_at,
        seats=(s0, s1, s2, s3),
        teams=(labels.team(a, c), labels.team(b, d)),
    )
