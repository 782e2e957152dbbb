"""``arena submit``: check a submission, store it as pending, queue its validation game.

Nothing is written until the submission has been checked (archive safety, size, ``bot.py``):
a refused archive, a wrong token or a bot name of another user leaves no row and no file.
The version is stored *pending*, its code and its queued validation game in one transaction;
a worker plays that game (``validate.py``) and then ``settle`` makes the version *active*
(it joins the ladder) or *rejected*, with the fault.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from arena.bots import submission
from arena.read_model import LADDER, SubmitOutcome
from arena.store import (
    NameTaken,
    NotFound,
    Store,
    VersionStatus,
)

from .labels import version_row
from .schedules import ladder_matches
from .stored_files import code_key


def submit(store: Store, *, token: str, path: Path, name: str) -> SubmitOutcome:
    """Store the checked submission as a pending version with its validation game queued;
    the same code again returns its version (a validation the platform gave up on queued
    anew)."""
    user = store.authenticate(token)
    try:
        if store.bot(name).owner_id != user.id:
            raise NameTaken(f"bot name {name!r} belongs to another user")
        known = {v.content_hash: v for v in store.versions(name)}
    except NotFound:
        known = {}
    with submission.opened(path) as bot_dir:
        digest = submission.content_hash(bot_dir)
        if digest in known:
            version = known[digest]
            if version.status == VersionStatus.PENDING and version.id is not None:
                store.requeue_validation(version.id)
            return SubmitOutcome(version_row(store, version, name), new=False, scheduled=0)
        code = submission.pack(bot_dir)
    # The code, the version and its validation in one transaction: all of them or none.
    version = store.add_version(user, name, digest, code_key(digest), code, validate=True)
    return SubmitOutcome(version_row(store, version, name), new=True, scheduled=0)


def settle(store: Store, version_id: int, fault: str | None) -> SubmitOutcome:
    """The validation game's verdict: rejected with ``fault``, or active (replacing the bot's
    earlier active version) with its ladder matches scheduled by the ladder's schedule
    (``schedules.ladder_matches``), in one transaction. A version
    settled already (by an earlier claim of the same game) is left as it is."""
    # The deal secret first: made in a transaction of its own, which on SQLite would wait
    # for the settling one's write lock.
    schedule = partial(ladder_matches, store.deal_secret())
    done = store.settle_version(version_id, fault, ladder=LADDER, schedule=schedule)
    return SubmitOutcome(version_row(store, done.version), new=done.now, scheduled=done.scheduled)
