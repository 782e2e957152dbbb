"""A worker: claims queued matches, plays them in the sandbox, records each result once.

Each of its ``concurrency`` slots loops: requeue matches whose worker went silent, claim the
first queued match in schedule order, play it while a heartbeat thread says it is still
alive, then record the result (refused, and dropped, if the match was taken away meanwhile)
and apply whatever ratings have become ready. A bot fault is a result; a platform failure
(``SandboxError`` or anything unexpected) is not: the match is handed back, and after three
such failures it is marked ``error`` and never rated.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass

from arena.limits import Limits
from arena.sandbox import Sandbox
from arena.store import Match, MatchStatus, Store

from .files import DataDir
from .matches import play_match
from .rating import update_ratings

log = logging.getLogger("arena.worker")


@dataclass(frozen=True)
class WorkerConfig:
    concurrency: int = 1
    heartbeat_s: float = 5.0
    silent_after_s: float = 60.0  # a running match with no heartbeat for this long is requeued
    poll_s: float = 0.5  # how often an idle slot looks for work


Listener = Callable[[str, Match], None]  # ("done" | "failed" | "dropped", match)


class Worker:
    def __init__(
        self,
        store: Store,
        data: DataDir,
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

    def run(self, *, until_idle: bool) -> None:
        """Work until stopped, or (``until_idle``) until nothing is queued or running."""
        slots = [
            threading.Thread(target=self._slot, args=(f"{self.name}:{i}", until_idle))
            for i in range(self.config.concurrency)
        ]
        for slot in slots:
            slot.start()
        try:
            for slot in slots:
                while slot.is_alive():
                    slot.join(timeout=0.5)
        finally:
            self.stopping.set()

    def _slot(self, worker_id: str, until_idle: bool) -> None:
        while not self.stopping.is_set():
            self.store.reap(self.config.silent_after_s)
            match = self.store.claim(worker_id, tournament_id=self.tournament_id)
            if match is None:
                if until_idle and self._idle():
                    return
                self.stopping.wait(self.config.poll_s)
                continue
            self._play(match, worker_id)

    def _idle(self) -> bool:
        ids = (
            [self.tournament_id]
            if self.tournament_id is not None
            else [t.id for t in self.store.tournaments() if t.id is not None]
        )
        for tid in ids:
            counts = self.store.status_counts(tid)
            if counts[MatchStatus.QUEUED] or counts[MatchStatus.RUNNING]:
                return False
        return True

    def _play(self, match: Match, worker_id: str) -> None:
        assert match.id is not None
        tournament = self.store.tournament_by_id(match.tournament_id)
        played = threading.Event()
        beating = threading.Thread(
            target=self._heartbeat, args=(match, worker_id, played), daemon=True
        )
        beating.start()
        try:
            limits = Limits(**tournament.limits)
            result = play_match(self.store, self.data, match, self.sandbox, limits)
        except Exception as e:  # the platform failed, not a bot: hand the match back
            log.exception("match %s failed", match.id)
            self.store.fail(match.id, worker_id, f"{type(e).__name__}: {e}", lease=match.lease)
            self.listener("failed", match)
            return
        finally:
            played.set()
            beating.join()
        if self.store.finish(match.id, worker_id, result, lease=match.lease):
            update_ratings(self.store, match.tournament_id)
            self.listener("done", self.store.match(match.id))
        else:
            self.listener("dropped", match)  # reaped meanwhile: someone else plays it

    def _heartbeat(self, match: Match, worker_id: str, played: threading.Event) -> None:
        assert match.id is not None
        while not played.wait(self.config.heartbeat_s):
            self.store.heartbeat(match.id, worker_id, lease=match.lease)
