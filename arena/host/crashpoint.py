"""A test seam: the process exits at once at a named step of a multi-step write.

``ARENA_CRASH_AT=STEP`` makes ``crash_point(STEP)`` call ``os._exit(CRASH_STATUS)``: no
``finally``, no commit, no heartbeat, as a ``docker kill`` or a power cut leaves a worker.
Only the crash tests (``tests/workers/test_crash_points.py``) set it, in the worker processes
they start; unset, each call is one dictionary lookup. The steps are listed in ``STEPS``.
"""

from __future__ import annotations

import os

CRASH_STATUS = 86
STEPS = (
    # Settling a validation game (league/validate.py, store/settling.py).
    "validation_played",  # its replay and logs stored; the version not settled
    "settle_retired",  # in the settling transaction: the bot's older version retired
    "settle_activated",  # in it: the version active, no match scheduled yet
    "settle_scheduled",  # in it: its ladder matches queued, not yet committed
    "validation_settled",  # committed; the validation not yet recorded as done
    "validation_finished",  # the validation recorded as done
    # Recording a match (league/worker.py): its result and tallies are one write.
    "match_played",  # its replays and logs stored, its tallies counted; nothing recorded
    "match_finished",  # the result and its tallies committed; the ratings not yet applied
    "match_rated",  # the ratings applied
)


def crash_point(step: str) -> None:
    """Exit the process now if ``ARENA_CRASH_AT`` names ``step``."""
    if os.environ.get("ARENA_CRASH_AT") == step:
        os._exit(CRASH_STATUS)
