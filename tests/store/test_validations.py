"""The job queue's validations on a real database: one validation played at a time, in version
order, whoever claims; each later call refused once the claim is no longer the caller's;
three platform failures give up, and the same code submitted again queues it anew."""

from __future__ import annotations

import threading

from arena.store import Job, JobKind, MatchSpec, MatchStatus, Store
from tests.store.helpers import active_versions


def claim(store: Store, worker_id: str, now: float | None = None) -> Job | None:
    return store.claim_job(worker_id, now, kinds=(JobKind.VALIDATION,))


def pending(store: Store, count: int) -> list[int]:
    """``count`` versions stored as a submission stores them: pending, validation queued."""
    user = store.authenticate(store.add_user("ann"))
    ids = []
    for i in range(count):
        digest = f"{i:064x}"
        version = store.add_version(
            user, f"b{i}", digest, f"code/{digest}", b"%d" % i, validate=True
        )
        assert version.id is not None
        ids.append(version.id)
    return ids


def test_one_at_a_time_in_version_order(store: Store) -> None:
    first, second = pending(store, 2)
    claimed = claim(store, "w1")
    assert claimed is not None and claimed.id == first
    assert claim(store, "w2") is None  # the first is being played: the next waits
    assert store.validations_waiting() == 2 and store.validations_waiting(queued_only=True) == 1
    done = dict(replay_path="blobs/r.json", logs_path="blobs/l.json")
    assert not store.finish_validation(claimed, "w2", **done)  # not w2's
    assert store.finish_validation(claimed, "w1", **done)
    assert not store.finish_validation(claimed, "w1", **done)  # once
    nxt = claim(store, "w2")
    assert nxt is not None and nxt.id == second
    assert store.validation_statuses() == {first: "done", second: "running"}
    assert store.validation(first).replay_path == "blobs/r.json"


def test_concurrent_claimers_take_one_between_them(store: Store) -> None:
    pending(store, 3)
    got: list[object] = []
    threads = [
        threading.Thread(target=lambda i=i: got.append(claim(store, f"w{i}"))) for i in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len([g for g in got if g is not None]) == 1


def test_three_failures_give_up_and_a_resubmission_queues_it_again(store: Store) -> None:
    (version,) = pending(store, 1)
    for attempt in range(3):
        claimed = claim(store, "w")
        assert claimed is not None and claimed.id == version
        status = store.fail_job(claimed, "w", f"boom {attempt}")
        assert status == (MatchStatus.ERROR if attempt == 2 else MatchStatus.QUEUED)
    assert claim(store, "w") is None
    assert store.validation(version).last_error == "boom 2"
    store.requeue_validation(version)
    claimed = claim(store, "w")
    assert claimed is not None and claimed.validation.attempts == 0


def test_a_silent_claim_is_taken_back(store: Store) -> None:
    (version,) = pending(store, 1)
    claimed = claim(store, "w", now=100.0)
    assert claimed is not None
    assert store.reap_jobs(60, now=150.0) == []
    (reaped,) = store.reap_jobs(60, now=161.0)
    assert (reaped.kind, reaped.id, reaped.row.status) == (
        JobKind.VALIDATION,
        version,
        MatchStatus.QUEUED,
    )
    assert not store.heartbeat_job(claimed, "w")
    again = claim(store, "w2")
    assert again is not None and again.lease == claimed.lease + 1


def test_one_queue_validations_first_then_matches(store: Store) -> None:
    """The ordering rules across kinds: the first validation, then (while it is played
    elsewhere) matches; a claimer given a tournament takes its matches only. Both kinds are
    reaped by the one reaper."""
    first, _ = pending(store, 2)
    a, b = active_versions(store, 2, owner="bo")
    cup = store.create_tournament("cup", seed=1)
    assert cup.id is not None
    store.enqueue(cup.id, [MatchSpec(1, ((a, a), (b, b)))] * 2)

    only_cup = store.claim_job("w0", now=100.0, tournament_id=cup.id)
    assert only_cup is not None and only_cup.kind == JobKind.MATCH
    validation = store.claim_job("w1", now=100.0)
    assert validation is not None and (validation.kind, validation.id) == (
        JobKind.VALIDATION,
        first,
    )
    match = store.claim_job("w2", now=100.0)  # the next validation waits for the first
    assert match is not None and match.kind == JobKind.MATCH
    assert match.match.schedule_index == 1
    assert store.claim_job("w3", now=100.0) is None

    reaped = store.reap_jobs(60, now=200.0)
    assert sorted((j.kind, j.id) for j in reaped) == sorted(
        [(JobKind.VALIDATION, first), (JobKind.MATCH, only_cup.id), (JobKind.MATCH, match.id)]
    )
    again = store.claim_job("w4", now=200.0)
    assert again is not None and (again.kind, again.id, again.lease) == (
        JobKind.VALIDATION,
        first,
        2,
    )
