"""What the platform is doing right now: the queue, the matches being played, the workers,
and the ladder's broken invariants, if any (``doctor.problems``).

``status(store)`` reads it as a ``Status`` (``arena.read_model``): ``Status.as_json()`` is
the form ``arena status --json`` prints and the server sends, ``Status.from_json`` reads it
back. ``now`` is the moment the status was taken, so "how long ago" is measured on the clock
that wrote the heartbeats, wherever the status is shown.
"""

from __future__ import annotations

import time

from arena.read_model import (
    RunningMatch,
    Status,
    TournamentCounts,
    WorkerInfo,
    WorkerStateName,
)
from arena.store import Match, MatchStatus, Store, WorkerState

from .doctor import problems
from .labels import Labels
from .worker import WorkerConfig


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
        problems=tuple(problems(store, silent_after, now)),
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
        entrants=tuple(labels.entrant(v) for v in match.seats),
    )
