"""The job queue's matches: claims in schedule order, never twice; results recorded once,
with their tallies; silent workers reaped; three infrastructure failures make an error."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from arena.competition.statistics import Statistics
from arena.competition.tallies import Figures
from arena.store import (
    ForfeitInfo,
    Job,
    JobKind,
    Match,
    MatchResult,
    MatchSpec,
    MatchStatus,
    NotFound,
    Store,
    StoreError,
    open_store,
)
from tests.store.helpers import active_versions, scheduled

RESULT = MatchResult(totals=((120, 80), (95, 101)), winner=0, replay_path="replays/x.json")


def claim(store: Store, worker_id: str, **given: Any) -> Job | None:
    return store.claim_job(worker_id, kinds=(JobKind.MATCH,), **given)


def test_claims_come_in_schedule_order(store: Store) -> None:
    tournament = scheduled(store, 5)
    claimed = [claim(store, f"w{i}", now=100.0) for i in range(6)]
    assert [j.match.schedule_index if j else None for j in claimed] == [0, 1, 2, 3, 4, None]
    assert claimed[0] is not None
    first = claimed[0].match
    assert (first.status, first.worker_id, first.lease, first.heartbeat_at) == (
        MatchStatus.RUNNING,
        "w0",
        1,
        100.0,
    )
    assert first.seed == 1000
    counts = store.status_counts(tournament.id or 0)
    assert counts[MatchStatus.RUNNING] == 5


def test_the_schedule_grows_at_its_end_and_claims_follow_tournaments(store: Store) -> None:
    a, b, c, d = active_versions(store, 4)
    cup = store.create_tournament("cup", seed=1)
    assert cup.id is not None
    assert store.enqueue(cup.id, [MatchSpec(1, ((a, a), (b, b)))]) == range(1)
    assert store.enqueue(cup.id, [MatchSpec(2, ((a, c), (b, d)))] * 2) == range(1, 3)
    match = store.matches(cup.id)[1]
    assert match.seats == (a, b, c, d)
    assert match.teams == ((a, c), (b, d))
    other = store.create_tournament("other", seed=2)
    assert other.id is not None
    store.enqueue(other.id, [MatchSpec(3, ((c, c), (d, d)))])
    claimed = claim(store, "w", tournament_id=other.id)
    assert claimed is not None and claimed.match.tournament_id == other.id


def test_concurrent_claimers_never_share_a_match(db_url: str) -> None:
    setup = open_store(db_url)
    scheduled(setup, 200)
    setup.close()
    claims: dict[str, list[int]] = {}
    errors: list[BaseException] = []

    def work(name: str) -> None:
        store = open_store(db_url)  # its own engine: its own connections
        mine = claims.setdefault(name, [])
        try:
            while (job := claim(store, name)) is not None:
                mine.append(job.match.schedule_index)
                assert store.finish(job, name, RESULT)
        except BaseException as e:
            errors.append(e)
        finally:
            store.close()

    threads = [threading.Thread(target=work, args=(f"w{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    everything = sorted(i for mine in claims.values() for i in mine)
    assert everything == list(range(200))
    check = open_store(db_url)
    try:
        matches = check.matches(check.tournament("t").id or 0)
        assert {m.status for m in matches} == {MatchStatus.DONE}
        assert all(m.lease == 1 and m.worker_id in claims for m in matches)
        assert all(m.schedule_index in claims[m.worker_id or ""] for m in matches)
    finally:
        check.close()


def test_a_result_is_recorded_exactly_once(store: Store) -> None:
    scheduled(store, 1)
    match = claim(store, "w1", now=10.0)
    assert match is not None
    forfeit = ForfeitInfo(game=2, seat=3, reason="timeout", detail="no answer in 1000 ms")
    result = MatchResult.from_seat_totals(
        (120, 80), (101, 95), winner=0, forfeit=forfeit, logs_path="logs/m1"
    )
    assert result.points == (215, 181)
    assert not store.finish(match, "someone-else", result, now=20.0)
    assert store.finish(match, "w1", result, now=20.0)
    assert not store.finish(match, "w1", RESULT, now=30.0)
    done = store.match(match.id)
    assert done.status == MatchStatus.DONE
    assert (done.game1_team0, done.game1_team1, done.game2_team0, done.game2_team1) == (
        120,
        80,
        95,
        101,
    )
    assert (done.points_team0, done.points_team1, done.winner) == (215, 181, 0)
    assert (done.forfeit_game, done.forfeit_seat, done.forfeit_reason) == (2, 3, "timeout")
    assert (done.logs_path, done.replay_path, done.finished_at) == ("logs/m1", None, 20.0)
    assert not store.heartbeat_job(match, "w1")
    assert store.fail_job(match, "w1", "too late") is None
    assert store.match(match.id).attempts == 0


def test_the_reaper_requeues_a_silent_match_and_refuses_the_late_finish(store: Store) -> None:
    scheduled(store, 2)
    silent = claim(store, "stale", now=100.0)
    alive = claim(store, "alive", now=100.0)
    assert silent is not None and alive is not None
    assert store.heartbeat_job(silent, "stale", now=105.0)
    assert store.heartbeat_job(alive, "alive", now=125.0)
    assert store.reap_jobs(silent_for_s=30, now=130.0) == []
    reaped = store.reap_jobs(silent_for_s=30, now=140.0)
    assert [(j.kind, j.id) for j in reaped] == [(JobKind.MATCH, silent.id)]
    requeued = store.match(silent.id)
    assert (requeued.status, requeued.worker_id, requeued.attempts) == (MatchStatus.QUEUED, None, 1)
    assert "stale went silent" in (requeued.last_error or "")
    assert not store.finish(silent, "stale", RESULT)
    assert not store.heartbeat_job(silent, "stale")
    assert store.match(silent.id).winner is None
    # Claimed again, even by the same worker id: the old claim's lease is refused.
    again = claim(store, "stale", now=150.0)
    assert again is not None and again.id == silent.id and again.lease == 2
    assert not store.finish(silent, "stale", RESULT)
    assert store.finish(again, "stale", RESULT)
    assert store.match(alive.id).status == MatchStatus.RUNNING


def test_three_infrastructure_failures_make_an_error(store: Store) -> None:
    scheduled(store, 1)
    statuses = []
    for attempt in range(3):
        match = claim(store, f"w{attempt}", now=float(attempt))
        assert match is not None
        statuses.append(store.fail_job(match, f"w{attempt}", f"docker died\n(attempt {attempt})"))
    assert statuses == [MatchStatus.QUEUED, MatchStatus.QUEUED, MatchStatus.ERROR]
    assert claim(store, "w9") is None
    [failed] = store.matches(store.tournament("t").id or 0)
    assert (failed.status, failed.attempts, failed.winner) == (MatchStatus.ERROR, 3, None)
    assert failed.last_error == "docker died (attempt 2)"


def test_silent_workers_count_as_failures(store: Store) -> None:
    scheduled(store, 1)
    for attempt in range(3):
        assert claim(store, "w", now=attempt * 100.0) is not None
        store.reap_jobs(silent_for_s=10, now=attempt * 100.0 + 50)
    [match] = store.matches(store.tournament("t").id or 0)
    assert (match.status, match.attempts) == (MatchStatus.ERROR, 3)


def test_unknown_match_ids(store: Store) -> None:
    with pytest.raises(NotFound, match=r"^unknown match 999$"):
        store.match(999)
    with pytest.raises(NotFound, match=r"^unknown match 999$"):
        store.finish(Job(JobKind.MATCH, 999, 1, Match()), "w", RESULT)


def figures(points: int, head: dict[str, tuple[int, ...]] | None = None) -> Figures:
    return Figures(Statistics(games=2, deals=50, points=points), head or {})


def test_a_result_and_its_tallies_are_one_write_by_tournament(store: Store) -> None:
    """The worker's tallies are added as given, with the result (the store reads no
    replay: this one names none stored), each tournament's apart; a refused finish adds
    none, and tallies that do not fit the match leave the result unrecorded too."""
    cup = scheduled(store, 2, name="cup")
    a, b = store.matches(cup.id or 0)[0].teams[0][0], store.matches(cup.id or 0)[0].teams[1][0]
    other = store.create_tournament("other", seed=3)
    assert other.id is not None
    store.enqueue(other.id, [MatchSpec(5, ((a, a), (b, b)))])
    tallied = {a: figures(30, {f"{b},{b}": (1, 1, 0, 0, 215, 181)}), b: figures(-4)}
    result = MatchResult(((120, 80), (95, 101)), 0, replay_path="replays/none", tallies=tallied)

    first = claim(store, "w", tournament_id=cup.id)
    assert first is not None
    assert store.finish(first, "w", result)
    assert not store.finish(first, "w", result)  # recorded once: counted once
    second = claim(store, "w", tournament_id=cup.id)
    assert second is not None
    strange = MatchResult(((1, 1), (1, 1)), None, tallies={a: figures(1), 999: figures(1)})
    with pytest.raises(StoreError, match=r"^match \d+ has no version 999 to tally$"):
        store.finish(second, "w", strange)
    assert store.match(second.id).status == MatchStatus.RUNNING  # neither written
    assert store.finish(second, "w", result)

    counted = store.tallies(cup.id or 0, [a, b])
    assert counted[a].statistics == Statistics(games=4, deals=100, points=60)
    assert dict(counted[a].head_to_head) == {f"{b},{b}": (2, 2, 0, 0, 430, 362)}
    assert counted[b].statistics.points == -8 and dict(counted[b].head_to_head) == {}
    assert store.tallies(other.id, [a, b]) == {}  # its match not played yet
