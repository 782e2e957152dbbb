"""A claimed job's heartbeat: one thread per claim, beating from the claim until the job is
recorded, failed or handed back, so that no reaper takes it for silent meanwhile."""

from __future__ import annotations

import contextlib
import threading

from arena.store import Job, Store


class Heartbeat:
    """Beats ``job``'s heartbeat every ``every_s`` seconds on a daemon thread until
    ``stop``; a beat refused (the job was taken back) or failed (the store is down) is left
    to the next one, and the job's own record then says whether it is still this claim's."""

    def __init__(self, store: Store, job: Job, worker_id: str, every_s: float) -> None:
        self._done = threading.Event()

        def beat() -> None:
            while not self._done.wait(every_s):
                # The store may be down for now: the next beat tries again.
                with contextlib.suppress(Exception):
                    store.heartbeat_job(job, worker_id)

        self._thread = threading.Thread(target=beat, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._done.set()
        self._thread.join()
