"""A tournament's schedule setting, and a planned batch stored once however many workers
planned it at once (SQLite and PostgreSQL)."""

from __future__ import annotations

import threading

import pytest

from arena.read_model import LADDER, ScheduleKind, TournamentKind
from arena.store import MatchSpec, NotFound, Store, open_store
from tests.store.helpers import scheduled


def test_a_planned_batch_is_stored_once_whoever_planned_it(db_url: str) -> None:
    setup = open_store(db_url)
    tournament = scheduled(setup, 3)
    assert tournament.id is not None
    (a, _), (b, _) = setup.matches(tournament.id)[0].teams
    setup.close()
    stored: list[bool] = []
    errors: list[BaseException] = []

    def plan(seed: int) -> None:
        store = open_store(db_url)  # its own engine: its own connections
        try:
            spec = MatchSpec(seed, ((a, a), (b, b)))
            stored.append(store.append_planned(tournament.id or 0, 3, [spec, spec]))
        except BaseException as e:
            errors.append(e)
        finally:
            store.close()

    threads = [threading.Thread(target=plan, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and sorted(stored) == [False, False, False, True]
    check = open_store(db_url)
    try:
        matches = check.matches(tournament.id)
        assert [m.schedule_index for m in matches] == list(range(5))
        assert matches[3].seed == matches[4].seed  # one planner's batch, whole
        assert not check.append_planned(tournament.id, 3, [spec_of(a, b)])  # length is 5 now
    finally:
        check.close()


def spec_of(a: int, b: int) -> MatchSpec:
    return MatchSpec(1, ((a, a), (b, b)))


def test_a_schedule_is_set_on_the_ladder_before_it_exists_and_refused_for_no_tournament(
    store: Store,
) -> None:
    ladder = store.set_schedule(LADDER, ScheduleKind.ADAPTIVE, ladder=LADDER)
    assert (ladder.kind, ladder.schedule) == (TournamentKind.LADDER, ScheduleKind.ADAPTIVE)
    assert store.tournament(LADDER).schedule == ScheduleKind.ADAPTIVE
    assert store.create_tournament("cup", seed=1).schedule == ScheduleKind.ROUND_ROBIN
    with pytest.raises(NotFound, match="unknown tournament 'nope'"):
        store.set_schedule("nope", ScheduleKind.ADAPTIVE, ladder=LADDER)
    with pytest.raises(ValueError):
        store.set_schedule("cup", "swiss", ladder=LADDER)  # type: ignore[arg-type]
