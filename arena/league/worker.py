"""A worker: claims jobs from the job queue (``arena.store.jobs``), plays them in the
sandbox, records each result once.

Submitted versions' validation games come first (the queue's ordering rules; played by
``validate.py``): a slot that holds no match claims the next validation before any match,
and claims no match ahead while one is queued. A worker given one tournament
(``tournament_id``) plays no validation.

Each of its ``concurrency`` slots loops: requeue jobs whose worker went silent, claim the
first queued job, play it while a heartbeat thread (``heartbeat.py``) says it is still
alive, then record the result (refused, and dropped, if the match was taken away meanwhile)
and apply whatever ratings have become ready. A bot fault is a result; a platform failure
(``SandboxError`` or anything unexpected) is not: the match is handed back, and after three
such failures it is marked ``error`` and never rated.

A slot claims its next match as the second game of the one in hand begins, so that the next
match's first bots start while that game plays: the time bots take to start hides behind a
game, from the second match on. A slot that stops with a match claimed ahead hands it back
unplayed (``match_released``), no attempt counted.

The worker reports itself in the store (``arena status``): registered when it starts, a
heartbeat every ``heartbeat_s`` with the matches finished since the last one, stopped when
it ends. It logs each step as a structured event (``arena.host.platform_logs``): ``worker_started``,
``match_claimed``, ``match_done``, ``match_failed``, ``match_dropped``, ``match_reaped``,
``match_released``, ``worker_stopped``, ``repaired`` (what ``doctor.repair`` mended as the
worker started), and ``worker_heartbeat_failed`` / ``claim_failed`` /
``slot_failed`` when the store fails.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arena.bots.limits import stored_limits
from arena.host.crashpoint import crash_point
from arena.play.tables import TablePipeline
from arena.read_model import SILENT_AFTER_S
from arena.sandbox import Sandbox
from arena.store import Job, JobKind, Match, Store

from .apply_ratings import update_ratings
from .doctor import repair
from .heartbeat import Heartbeat
from .matches import ScheduledMatch, play_match, schedule_match
from .schedules import top_up
from .stored_files import StoredFiles
from .tournaments import unfinished
from .validate import validate_claimed

log = logging.getLogger("arena.worker")


@dataclass(frozen=True)
class WorkerConfig:
    concurrency: int = 1
    heartbeat_s: float = 5.0
    silent_after_s: float = SILENT_AFTER_S  # a running match silent this long is requeued
    poll_s: float = 0.5  # how often an idle slot looks for work
    # Bots started ahead wait a random time up to this (and to half a game) first, so that
    # workers started together don't start their next bots in the same moment every game.
    ahead_spread_s: float = 6.0

    @property
    def match_heartbeat_s(self) -> float:
        """How often a claimed match's heartbeat beats: often enough that no reaper, this
        worker's own included (a slot reaps while it holds the match it claimed ahead),
        ever takes it for silent."""
        return min(self.heartbeat_s, self.silent_after_s / 3)


Listener = Callable[[str, Match], None]  # ("done" | "failed" | "dropped", match)


class Worker:
    def __init__(
        self,
        store: Store,
        data: StoredFiles,
        sandbox: Sandbox,
        config: WorkerConfig = WorkerConfig(),
        *,
        tournament_id: int | None = None,
        name: str | None = None,
        listener: Listener | None = None,
    ) -> None:
        self.store = store
        self.data = data
        self.sandbox = sandbox
        self.config = config
        self.tournament_id = tournament_id
        self.name = name or f"{socket.gethostname()}:{os.getpid()}"
        self.listener = listener or (lambda event, match: None)
        self.stopping = threading.Event()
        self.matches_done = 0  # finished and recorded by this worker
        self._unreported = 0  # of which the store hasn't been told yet
        self._count_lock = threading.Lock()

    def run(self, *, until_idle: bool) -> None:
        """Work until stopped, or (``until_idle``) until nothing is queued or running."""
        host, slots_n, sandbox = socket.gethostname(), self.config.concurrency, self.sandbox.name
        self.store.worker_started(self.name, host, slots_n, sandbox)
        _event(
            logging.INFO, "worker_started",
            f"worker {self.name} started: {slots_n} slots, {sandbox} sandbox",
            worker=self.name, host=host, slots=slots_n, sandbox=sandbox,
            tournament=self.tournament_id,
        )  # fmt: skip
        self._repair()
        silenced = threading.Event()
        beating = threading.Thread(target=self._worker_heartbeat, args=(silenced,), daemon=True)
        beating.start()
        slots = [
            threading.Thread(target=self._slot, args=(f"{self.name}:{i}", until_idle))
            for i in range(self.config.concurrency)
        ]
        try:
            for slot in slots:
                slot.start()
            for slot in slots:
                while slot.is_alive():
                    slot.join(timeout=0.5)
        finally:
            self.stopping.set()
            for slot in slots:
                if slot.is_alive():
                    slot.join()  # the match in hand is recorded or handed back first
            silenced.set()
            beating.join()
            self._stopped()

    def _repair(self) -> None:
        """Mend what a crash left (``doctor.repair``) before playing: a worker killed
        between a result and its ratings, or an older release's half-settled version."""
        try:
            done = repair(self.store, self.config.silent_after_s)
        except Exception as e:  # the store is down for now: the slots wait for it
            _event(
                logging.WARNING, "repair_failed", f"worker {self.name}: repair failed: {e}",
                worker=self.name, error=f"{type(e).__name__}: {e}",
            )  # fmt: skip
            return
        for line in done:
            _event(logging.WARNING, "repaired", line, worker=self.name)

    def _worker_heartbeat(self, silenced: threading.Event) -> None:
        while not silenced.wait(self.config.heartbeat_s):
            self._report()

    def _report(self) -> bool:
        """Tell the store this worker is alive, and how many matches it finished since the
        last time; False (logged) if the store failed."""
        with self._count_lock:
            done = self._unreported
        try:
            self.store.worker_alive(self.name, done=done)
        except Exception as e:  # the store is down for now: the next beat tries again
            _event(
                logging.WARNING, "worker_heartbeat_failed",
                f"worker {self.name}: heartbeat failed: {e}",
                worker=self.name, error=f"{type(e).__name__}: {e}",
            )  # fmt: skip
            return False
        with self._count_lock:
            self._unreported -= done
        return True

    def _stopped(self) -> None:
        try:
            if self._report():
                self.store.worker_stopped(self.name)
        except Exception as e:  # logged: it must not hide why the worker stops
            _event(
                logging.WARNING, "worker_heartbeat_failed",
                f"worker {self.name}: its stop was not recorded: {e}",
                worker=self.name, error=f"{type(e).__name__}: {e}",
            )  # fmt: skip
        _event(
            logging.INFO, "worker_stopped",
            f"worker {self.name} stopped: {self.matches_done} matches done",
            worker=self.name, matches_done=self.matches_done,
        )  # fmt: skip

    def _slot(self, worker_id: str, until_idle: bool) -> None:
        # One pipeline for the slot's life: as a match's second game begins, the slot claims
        # its next match, whose first bots then start while that game plays.
        tables = TablePipeline(ahead=1, spread_s=self.config.ahead_spread_s)
        ahead: Claimed | None = None

        def claim_next() -> None:
            nonlocal ahead
            if self.stopping.is_set() or self._validations_queued():
                return  # a validation goes first: this slot takes it after the match
            try:
                job = self.store.claim_job(
                    worker_id, kinds=(JobKind.MATCH,), tournament_id=self.tournament_id
                )
                ahead = None if job is None else self._claimed(job, worker_id, tables)
            except Exception as e:  # the store failed: claim again after this match
                _event(
                    logging.WARNING, "claim_failed", f"slot {worker_id}: {e}",
                    worker=worker_id, error=f"{type(e).__name__}: {e}",
                )  # fmt: skip

        try:
            while not self.stopping.is_set():
                try:
                    self._reap()
                    if ahead is not None:
                        claimed: Claimed | None = ahead
                    else:
                        job = self.store.claim_job(worker_id, tournament_id=self.tournament_id)
                        if job is not None and job.kind == JobKind.VALIDATION:
                            self._validate(job, worker_id)
                            continue
                        claimed = None if job is None else self._claimed(job, worker_id, tables)
                except Exception as e:  # the store is down for now (restarted): wait, try again
                    _event(
                        logging.WARNING, "claim_failed", f"slot {worker_id}: {e}",
                        worker=worker_id, error=f"{type(e).__name__}: {e}",
                    )  # fmt: skip
                    self.stopping.wait(self.config.heartbeat_s)  # as often as the heartbeat
                    continue
                ahead = None
                if claimed is None:
                    if until_idle and self._idle():
                        return
                    self.stopping.wait(self.config.poll_s)
                    continue
                self._play(claimed, worker_id, tables, claim_next)
        except Exception as e:  # the store failed: this slot stops
            _event(
                logging.ERROR, "slot_failed", f"slot {worker_id} stopped: {e}",
                exc_info=True, worker=worker_id, error=f"{type(e).__name__}: {e}",
            )  # fmt: skip
        finally:
            if ahead is not None:
                self._release(ahead, worker_id)
            tables.close()

    def _claimed(self, job: Job, worker_id: str, tables: TablePipeline) -> Claimed:
        """A match just claimed, its heartbeat beating and its games scheduled."""
        match = job.match
        _event(
            logging.INFO, "match_claimed", f"{_name(match)} claimed by {worker_id}",
            **_fields(match, worker_id), attempts=match.attempts, lease=match.lease,
        )  # fmt: skip
        claimed = Claimed(job, Heartbeat(self.store, job, worker_id, self.config.match_heartbeat_s))
        try:
            tournament = self.store.tournament_by_id(match.tournament_id)
            limits = stored_limits(tournament.limits)
            claimed.scheduled = schedule_match(
                self.store, self.data, match, self.sandbox, limits, tables
            )
        except Exception as e:  # its code or record is unreadable: the platform failed
            claimed.failure = e
        return claimed

    def _release(self, claimed: Claimed, worker_id: str) -> None:
        """Hand back a match claimed ahead that this slot will not play (it is stopping)."""
        claimed.heartbeat.stop()
        match = claimed.job.match
        if self.store.release_job(claimed.job, worker_id):
            _event(
                logging.INFO, "match_released", f"{_name(match)} handed back unplayed",
                **_fields(match, worker_id),
            )  # fmt: skip

    def _validations_queued(self) -> bool:
        if self.tournament_id is not None:
            return False
        try:
            return self.store.validations_waiting(queued_only=True) > 0
        except Exception:  # the store failed: claim the match, the validation waits a match
            return False

    def _validate(self, job: Job, worker_id: str) -> None:
        """Play the validation claimed (``job``) and settle its version."""
        heartbeat = self.config.match_heartbeat_s
        validate_claimed(self.store, self.data, self.sandbox, job, worker_id, heartbeat)

    def _reap(self) -> None:
        kinds = (JobKind.MATCH,) if self.tournament_id is not None else tuple(JobKind)
        for job in self.store.reap_jobs(self.config.silent_after_s, kinds=kinds):
            row = job.row
            if job.kind == JobKind.VALIDATION:
                _event(
                    logging.WARNING, "validation_reaped",
                    f"validation of version {job.id} taken back: {row.last_error}",
                    version=job.id, status=row.status, error=row.last_error,
                    attempts=row.attempts,
                )  # fmt: skip
                continue
            _event(
                logging.WARNING, "match_reaped", f"{_name(job.match)} taken back: {row.last_error}",
                **_fields(job.match, None), status=row.status, error=row.last_error,
                attempts=row.attempts,
            )  # fmt: skip

    def _idle(self) -> bool:
        if self.tournament_id is None and self.store.validations_waiting():
            return False
        return unfinished(self.store, self.tournament_id) == 0

    def _play(
        self,
        claimed: Claimed,
        worker_id: str,
        tables: TablePipeline,
        on_last_game: Callable[[], None],
    ) -> None:
        job, match = claimed.job, claimed.job.match
        start = time.monotonic()
        try:
            if claimed.failure is not None:
                raise claimed.failure
            assert claimed.scheduled is not None
            result = play_match(self.data, claimed.scheduled, tables, on_last_game=on_last_game)
        except Exception as e:  # the platform failed, not a bot: hand the match back
            error = f"{type(e).__name__}: {e}"
            status = self.store.fail_job(job, worker_id, error)
            top_up(self.store, match.tournament_id)  # given up on: the head may have moved
            _event(
                logging.ERROR, "match_failed", f"{_name(match)} failed: {error}",
                exc_info=True, **_fields(match, worker_id), seconds=_since(start),
                error=error, status=status,
            )  # fmt: skip
            self.listener("failed", match)
            return
        finally:
            claimed.heartbeat.stop()
        seconds = _since(start)
        crash_point("match_played")
        if self.store.finish(job, worker_id, result):
            crash_point("match_finished")
            with self._count_lock:
                self.matches_done += 1
                self._unreported += 1
            _event(
                logging.INFO, "match_done", f"{_name(match)}: done in {seconds:.1f} s",
                **_fields(match, worker_id), seconds=seconds, winner=result.winner,
                points=list(result.points),
                forfeit=result.forfeit.reason if result.forfeit else None,
            )  # fmt: skip
            update_ratings(self.store, match.tournament_id)
            crash_point("match_rated")
            top_up(self.store, match.tournament_id)  # an adaptive queue running low
            self.listener("done", self.store.match(job.id))
        else:  # reaped meanwhile: someone else plays it
            _event(
                logging.WARNING, "match_dropped",
                f"{_name(match)} dropped: it was taken back while being played",
                **_fields(match, worker_id), seconds=seconds,
            )  # fmt: skip
            self.listener("dropped", match)


@dataclass
class Claimed:
    """A match this slot claimed, its heartbeat beating from the claim until it is recorded
    or handed back (a match claimed ahead waits for the match before it)."""

    job: Job
    heartbeat: Heartbeat
    scheduled: ScheduledMatch | None = None
    failure: Exception | None = None  # why its games could not be scheduled


def _event(level: int, event: str, message: str, *, exc_info: bool = False, **fields: Any) -> None:
    """A structured log event (``arena.host.platform_logs``): ``event`` and ``fields`` go in
    ``extra``."""
    log.log(level, message, exc_info=exc_info, extra={"event": event, **fields})


def _fields(match: Match, worker_id: str | None) -> dict[str, Any]:
    """Which match, where in which schedule, played by which slot."""
    fields: dict[str, Any] = {
        "match": match.id,
        "tournament": match.tournament_id,
        "index": match.schedule_index,
    }
    if worker_id is not None:
        fields["worker"] = worker_id
    return fields


def _name(match: Match) -> str:
    return f"match {match.id} (index {match.schedule_index})"


def _since(start: float) -> float:
    return round(time.monotonic() - start, 3)
