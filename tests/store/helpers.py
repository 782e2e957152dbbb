"""Rows the store's tests need: a user with bots whose versions are active."""

from __future__ import annotations

from arena.store import MatchSpec, Store, Tournament, VersionStatus


def active_versions(store: Store, count: int, owner: str = "owner") -> list[int]:
    user = store.authenticate(store.add_user(owner))
    ids = []
    for i in range(count):
        version = store.add_version(user, f"bot{i}", f"{i:064x}", f"code/{i:064x}", b"code %d" % i)
        assert version.id is not None
        store.set_status(version.id, VersionStatus.ACTIVE)
        ids.append(version.id)
    return ids


def scheduled(store: Store, matches: int, name: str = "t") -> Tournament:
    """A tournament with ``matches`` queued pairs-format matches."""
    a, b = active_versions(store, 2)
    tournament = store.create_tournament(name, seed=7)
    assert tournament.id is not None
    specs = [MatchSpec(seed=1000 + i, teams=((a, a), (b, b))) for i in range(matches)]
    assert store.enqueue(tournament.id, specs) == range(matches)
    return tournament
