"""An entry that has played no pair is provisional: whatever its starting rating, the
standings (``arena ladder``, the web's ladder) rank it after every entry that played, in a
group of its own."""

from __future__ import annotations

from arena.league.standings import standings
from arena.store import JobKind, MatchResult, MatchSpec, Store


def test_an_entry_without_a_pair_ranks_after_those_that_played(store: Store) -> None:
    user = store.authenticate(store.add_user("owner"))
    a, b, c = (
        store.add_version(user, f"b{i}", f"{i:064x}", f"code/{i}", b"x").id for i in (1, 2, 3)
    )
    assert a is not None and b is not None and c is not None
    # a beats b twice; c's match with a is still queued: its rating is the prior's, 1500,
    # between a's and b's.
    specs = [MatchSpec(seed=i, teams=((a, a), (b, b))) for i in range(2)]
    specs.append(MatchSpec(seed=2, teams=((a, a), (c, c))))
    tournament = store.create_tournament("t", seed=7, schedule=lambda t: specs)
    for _ in range(2):
        job = store.claim_job("w", kinds=[JobKind.MATCH])
        assert job is not None
        result = MatchResult(totals=((10, -10), (5, -5)), winner=0)
        assert store.finish(job, "w", result)
    rows = standings(store, tournament)
    assert [(r.bot, r.pairs) for r in rows] == [("b1", 2), ("b2", 2), ("b3", 0)]
    assert [r.rank for r in rows] == [1, 2, 3]
    assert rows[2].group == max(r.group for r in rows[:2]) + 1
    assert rows[1].rating < 1500 < rows[0].rating  # it would have ranked second
