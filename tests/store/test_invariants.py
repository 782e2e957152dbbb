"""The ladder's invariants on a real database: each broken one found by ``doctor.problems``
(what ``arena status`` shows), mended by ``doctor.repair`` (``arena doctor --repair``, a
worker as it starts), and a second repair finds nothing left to do."""

from __future__ import annotations

import time

from arena.league.doctor import problems, repair
from arena.store import (
    JobKind,
    MatchResult,
    MatchSpec,
    MatchStatus,
    Store,
    Tournament,
    VersionStatus,
)


def kinds(store: Store) -> list[str]:
    return [p.kind for p in problems(store, silent_after=60.0)]


def scheduled(store: Store, matches: int) -> Tournament:
    """A tournament ``t`` of ``matches`` queued matches between two versions (never
    validated: not on the ladder)."""
    user = store.authenticate(store.add_user("owner"))
    a, b = (store.add_version(user, f"b{i}", f"{i:064x}", f"code/{i}", b"x").id for i in (7, 8))
    assert a is not None and b is not None
    specs = [MatchSpec(seed=i, teams=((a, a), (b, b))) for i in range(matches)]
    return store.create_tournament("t", seed=7, schedule=lambda t: specs)


def test_several_active_versions_keep_the_newest(store: Store) -> None:
    user = store.authenticate(store.add_user("ann"))
    old, new = (store.add_version(user, "shark", f"{i:064x}", f"code/{i}", b"x") for i in (1, 2))
    assert old.id is not None and new.id is not None
    for version in (old, new):
        store.set_status(version.id or 0, VersionStatus.ACTIVE)
    assert kinds(store) == ["several_active"]
    assert repair(store, 60.0) == ["retired shark v1: its bot has a newer active version"]
    assert (store.version(old.id).status, store.version(old.id).reason) == (
        VersionStatus.RETIRED,
        "replaced by v2",
    )
    assert store.version(new.id).status == VersionStatus.ACTIVE
    assert kinds(store) == [] and repair(store, 60.0) == []


def test_a_validation_done_with_its_version_pending_is_played_again(store: Store) -> None:
    user = store.authenticate(store.add_user("ann"))
    version = store.add_version(user, "shark", "1" * 64, "code/1", b"x", validate=True)
    assert version.id is not None
    claimed = store.claim_job("w")
    assert claimed is not None and claimed.kind == JobKind.VALIDATION
    store.finish_validation(claimed, "w", replay_path="r", logs_path="l")
    assert kinds(store) == ["validated_pending"]
    assert repair(store, 60.0) == ["the validation of shark v1 queued to be played again"]
    assert kinds(store) == []
    again = store.claim_job("w2")
    assert again is not None and (again.kind, again.id) == (JobKind.VALIDATION, version.id)


def test_a_silent_claim_is_reported_and_taken_back(store: Store) -> None:
    tournament = scheduled(store, 1)
    assert tournament.id is not None
    store.claim_job("dead:1:0", now=time.time() - 100)
    assert kinds(store) == ["silent_match"]
    (line,) = repair(store, 60.0)
    assert line.startswith("match ") and line.endswith(": queued")
    assert [m.status for m in store.matches(tournament.id)] == [MatchStatus.QUEUED]
    assert kinds(store) == []


def test_a_result_recorded_without_its_rating_is_rated(store: Store) -> None:
    tournament = scheduled(store, 2)
    assert tournament.id is not None
    for _ in range(2):  # as a worker killed after recording each, before rating it
        match = store.claim_job("w")
        assert match is not None
        result = MatchResult(totals=((10, -10), (5, -5)), winner=0)
        assert store.finish(match, "w", result)
    assert kinds(store) == ["unrated"]
    assert repair(store, 60.0) == ["tournament t: 2 finished matches rated"]
    assert store.rated_through(tournament.id) == 1
    assert kinds(store) == [] and repair(store, 60.0) == []
