"""A submitted version's validation game: claimed from the validation queue, played in the
sandbox, kept (its replay and each seat's log, as a match's are), then settled. A version
whose ``bot.toml`` has a build step is built first (``build_version``), once; a failed build
rejects it with the compiler's last lines, and no game is played.

Two copies of the version (seats 0 and 2) against two ``random`` bots, on one fixed seed. A
fault of the version's (either copy) rejects it, with the forfeit's reason and where it
happened; otherwise it becomes active and joins the ladder. The workers play these first,
one at a time in version order (``arena.store.jobs``); ``arena submit`` on a local
data directory plays them itself, through the same ``validate_next``.
"""

from __future__ import annotations

import logging
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.bots import manifest, submission
from arena.bots.limits import Limits
from arena.engine.replay import Forfeit
from arena.host.crashpoint import crash_point
from arena.play.bot_specs import SAMPLE_BOTS, BotSpec
from arena.play.tables import GameSettings, game_replay, play_game
from arena.read_model import SubmitOutcome, version_label
from arena.render import forfeit_where
from arena.sandbox import Sandbox
from arena.sandbox.build import BuildFailed, build_bot, builder_of
from arena.store import BotVersion, Job, JobKind, MatchStatus, Store, VersionStatus

from .heartbeat import Heartbeat
from .labels import version_row
from .stored_files import StoredFiles
from .submit import settle

log = logging.getLogger("arena.worker")

VALIDATION_OPPONENT = "random"
VALIDATION_SEED = 20261130
VALIDATION_SEATS = (0, 2)  # the version's seats; the opponent's are 1 and 3


@dataclass(frozen=True)
class Validated:
    """One validation claimed and played: its version as settled (or, ``failed``, still
    pending: the platform could not play it, and it is queued again or given up)."""

    version_id: int
    settled: SubmitOutcome
    failed: str | None = None


def fault_of(forfeit: Forfeit | None) -> str | None:
    """Why the version is rejected: its forfeit, with the deal and trick; None if it did not
    fault (an opponent's fault ends the game early, but is not the version's)."""
    if forfeit is None or forfeit.seat not in VALIDATION_SEATS:
        return None
    return f"validation game: {forfeit.reason}{forfeit_where(forfeit)}: {forfeit.detail}"


def validate_next(
    store: Store, data: StoredFiles, sandbox: Sandbox, worker_id: str, heartbeat_s: float = 5.0
) -> Validated | None:
    """Claim the first queued validation, play it, keep it, settle its version; None when
    there is nothing to claim (none queued, or the first is being played elsewhere)."""
    claimed = store.claim_job(worker_id, kinds=(JobKind.VALIDATION,))
    if claimed is None:
        return None
    return validate_claimed(store, data, sandbox, claimed, worker_id, heartbeat_s)


def validate_claimed(
    store: Store,
    data: StoredFiles,
    sandbox: Sandbox,
    claimed: Job,
    worker_id: str,
    heartbeat_s: float = 5.0,
) -> Validated:
    """Play the validation ``claimed`` (a job of kind validation), keep it, settle its
    version."""
    version_id = claimed.id
    beating = Heartbeat(store, claimed, worker_id, heartbeat_s)
    start = time.monotonic()
    try:
        version = store.version(version_id)
        replay_key, logs_key, fault = _play(store, data, sandbox, version)
        crash_point("validation_played")
        settled = settle(store, version_id, fault)  # before it is done: the next waits
        crash_point("validation_settled")
    except Exception as e:  # the platform failed, not the bot: handed back
        error = f"{type(e).__name__}: {e}"
        beating.stop()
        status = store.fail_job(claimed, worker_id, error)
        log.error(
            f"validation of version {version_id} failed: {error}", exc_info=True,
            extra={"event": "validation_failed", "version": version_id, "worker": worker_id,
                   "error": error, "status": status},
        )  # fmt: skip
        pending = version_row(store, store.version(version_id))
        return Validated(version_id, SubmitOutcome(pending, False, 0), failed=error)
    beating.stop()
    store.finish_validation(claimed, worker_id, replay_path=replay_key, logs_path=logs_key)
    crash_point("validation_finished")
    v = settled.version
    log.info(
        f"validation of {version_id}: {v.status}" + (f" ({v.reason})" if v.reason else ""),
        extra={"event": "validation_done", "version": version_id, "worker": worker_id,
               "status": v.status, "reason": v.reason or None, "scheduled": settled.scheduled,
               "seconds": round(time.monotonic() - start, 3)},
    )  # fmt: skip
    return Validated(version_id, settled)


def validate_until_settled(
    store: Store,
    data: StoredFiles,
    sandbox: Sandbox,
    version_id: int,
    worker_id: str,
    *,
    silent_after_s: float = 60.0,
    poll_s: float = 0.5,
) -> Validated:
    """Play the queued validations, in order, until ``version_id``'s is settled (a worker
    elsewhere may play some of them meanwhile); the first platform failure of its own ends
    the wait, its version still pending."""
    while True:
        store.reap_jobs(silent_after_s, kinds=(JobKind.VALIDATION,))
        done = validate_next(store, data, sandbox, worker_id)
        if done is not None and done.failed and done.version_id == version_id:
            return done
        version = store.version(version_id)
        if version.status != VersionStatus.PENDING:
            settled = SubmitOutcome(version_row(store, version), True, _scheduled(done, version_id))
            return Validated(version_id, settled)
        if store.validation(version_id).status == MatchStatus.ERROR:
            pending = SubmitOutcome(version_row(store, version), False, 0)
            return Validated(version_id, pending, store.validation(version_id).last_error)
        if done is None:
            time.sleep(poll_s)


def _scheduled(done: Validated | None, version_id: int) -> int:
    if done is None or done.version_id != version_id:
        return 0  # settled by another worker: its count is that worker's to tell
    return done.settled.scheduled


def _play(
    store: Store, data: StoredFiles, sandbox: Sandbox, version: BotVersion
) -> tuple[str, str, str | None]:
    """The game played and stored: its replay's key, its logs' key, the version's fault."""
    failed = build_version(data, sandbox, version.archive_path)
    if failed is not None:  # no game: its log, in both of its seats, is the compiler's
        log_key = data.store_blob(failed.output, ".log")
        logs_key = data.store_json({"game1": [log_key] * 4})
        return data.store_replays([]), logs_key, f"validation: {failed}"
    bot = store.bot_by_id(version.bot_id)
    own = BotSpec(version_label(bot.name, version.number), data.code_dir(version.archive_path))
    opponent = BotSpec(VALIDATION_OPPONENT, SAMPLE_BOTS / VALIDATION_OPPONENT)
    limits = Limits()  # the defaults, whatever the ladder's: one bar for every submission
    with tempfile.TemporaryDirectory(prefix="arena-validation-") as tmp:
        settings = GameSettings(limits=limits, logs_dir=Path(tmp))
        game = play_game([own, opponent, own, opponent], VALIDATION_SEED, sandbox, settings)
        logs = {"game1": [data.store_blob(path.read_bytes(), ".log") for path in game.logs]}
    replay_key = data.store_replays([game_replay(game, think=True)])
    return replay_key, data.store_json(logs), fault_of(game.outcome.forfeit)


def build_version(data: StoredFiles, sandbox: Sandbox, key: str) -> BuildFailed | None:
    """Build the stored code ``key`` once if its manifest has a build step, in the sandbox's
    build environment, and keep the product beside the code (``StoredFiles.store_built``);
    the failure, with the compiler's last lines, if the build fails."""
    if data.has_built(key):
        return None
    source = data.source_dir(key)
    if manifest.read(source).build is None:
        return None
    with tempfile.TemporaryDirectory(prefix="arena-build-") as tmp:
        product = Path(tmp) / "bot"
        try:
            build_bot(builder_of(sandbox), source, product)
        except BuildFailed as e:
            return e
        data.store_built(key, submission.pack(product))
    return None
