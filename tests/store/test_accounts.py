"""Users, bots and versions: tokens kept hashed, names owned, refusals that write nothing."""

from __future__ import annotations

import hashlib
import time

import pytest
from sqlalchemy import func
from sqlmodel import Session, select

from arena.store import (
    AuthError,
    Bot,
    BotVersion,
    Forbidden,
    MatchSpec,
    MatchStatus,
    NameTaken,
    NotFound,
    Store,
    StoreError,
    User,
    VersionStatus,
)


def count(store: Store, table: type[User] | type[Bot] | type[BotVersion]) -> int:
    with Session(store.database) as session:
        return session.exec(select(func.count()).select_from(table)).one()


def test_the_token_is_stored_only_as_its_hash(store: Store) -> None:
    token = store.add_user("ann")
    user = store.authenticate(token)
    assert user.name == "ann"
    (first,) = store.tokens(user)
    assert first.name == "first" and first.expires_at is None
    assert first.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in first.token_hash


def test_a_wrong_token_is_a_one_line_error(store: Store) -> None:
    store.add_user("ann")
    with pytest.raises(AuthError, match=r"^wrong token$"):
        store.authenticate("not-the-token")


def test_a_taken_user_name_is_refused_and_adds_no_row(store: Store) -> None:
    store.add_user("ann")
    with pytest.raises(NameTaken, match="user name 'ann' is taken"):
        store.add_user("ann")
    assert count(store, User) == 1


def test_a_bot_name_owned_by_another_user_is_refused_and_writes_nothing(store: Store) -> None:
    ann = store.authenticate(store.add_user("ann"))
    bob = store.authenticate(store.add_user("bob"))
    store.add_version(ann, "shark", "a" * 64, "code/a.tar.gz", b"a.tar.gz")
    with pytest.raises(NameTaken, match="bot name 'shark' belongs to another user"):
        store.add_version(bob, "shark", "b" * 64, "code/b.tar.gz", b"b.tar.gz")
    assert (count(store, Bot), count(store, BotVersion)) == (1, 1)
    with pytest.raises(NameTaken):
        store.retire(bob, "shark")
    assert store.versions("shark")[0].status == VersionStatus.PENDING


def test_the_same_content_twice_is_the_same_version(store: Store) -> None:
    ann = store.authenticate(store.add_user("ann"))
    first = store.add_version(ann, "shark", "a" * 64, "code/a.tar.gz", b"a.tar.gz")
    again = store.add_version(ann, "shark", "a" * 64, "code/a.tar.gz", b"a.tar.gz")
    second = store.add_version(ann, "shark", "b" * 64, "code/b.tar.gz", b"b.tar.gz")
    assert again.id == first.id
    assert (first.number, second.number) == (1, 2)
    assert first.status == VersionStatus.PENDING


def test_active_entries_are_each_bots_newest_active_version(store: Store) -> None:
    ann = store.authenticate(store.add_user("ann"))
    v1 = store.add_version(ann, "shark", "1" * 64, "code/1", b"1")
    v2 = store.add_version(ann, "shark", "2" * 64, "code/2", b"2")
    v3 = store.add_version(ann, "shark", "3" * 64, "code/3", b"3")
    other = store.add_version(ann, "eel", "4" * 64, "code/4", b"4")
    for version in (v1, v2, other):
        assert version.id is not None
        store.set_status(version.id, VersionStatus.ACTIVE)
    assert v3.id is not None
    store.set_status(v3.id, VersionStatus.REJECTED, "crashed in the validation game")
    entries = store.active_entries()
    assert [(e.bot.name, e.version.id) for e in entries] == [("eel", other.id), ("shark", v2.id)]
    assert store.version(v3.id).reason == "crashed in the validation game"
    store.retire(ann, "shark")
    assert [e.bot.name for e in store.active_entries()] == ["eel"]


def test_retiring_a_bot_cancels_its_queued_matches_and_a_schedule_comes_whole(
    store: Store,
) -> None:
    ann = store.authenticate(store.add_user("ann"))
    shark, eel, ray = (
        store.add_version(ann, name, str(i) * 64, f"code/{i}", b"x")
        for i, name in enumerate(("shark", "eel", "ray"), start=1)
    )
    assert shark.id is not None and eel.id is not None and ray.id is not None
    specs = [
        MatchSpec(1, ((shark.id, shark.id), (eel.id, eel.id))),
        MatchSpec(2, ((eel.id, eel.id), (ray.id, ray.id))),
    ]
    cup = store.create_tournament("cup", seed=0, schedule=lambda t: specs)
    assert cup.id is not None
    assert [m.status for m in store.matches(cup.id)] == [MatchStatus.QUEUED] * 2
    with pytest.raises(NameTaken):  # refused whole: no second schedule under the name
        store.create_tournament("cup", seed=0, schedule=lambda t: specs)
    store.retire(ann, "shark")
    statuses = [m.status for m in store.matches(cup.id)]
    assert statuses == [MatchStatus.CANCELLED, MatchStatus.QUEUED]


def test_unknown_names_and_ids(store: Store) -> None:
    with pytest.raises(NotFound, match="unknown bot 'nobody'"):
        store.bot("nobody")
    with pytest.raises(NotFound, match="unknown bot version 99"):
        store.set_status(99, VersionStatus.ACTIVE)
    with pytest.raises(NotFound, match="unknown tournament 'x'"):
        store.tournament("x")
    with pytest.raises(StoreError, match="user name"):
        store.add_user("")


def test_a_taken_tournament_name_is_refused(store: Store) -> None:
    store.create_tournament("cup", seed=1, limits={"move_ms": 500})
    with pytest.raises(NameTaken, match="tournament name 'cup' is taken"):
        store.create_tournament("cup", seed=2)
    assert store.tournament("cup").limits == {"move_ms": 500}
    assert len(store.tournaments()) == 1


def test_named_tokens_expire_and_are_revoked_by_their_owner_or_an_operator(store: Store) -> None:
    ann = store.authenticate(store.add_user("ann"))
    bob = store.authenticate(store.add_user("bob"))
    boss = store.authenticate(store.add_user("boss", operator=True))
    laptop = store.create_token(ann, "laptop")
    assert store.authenticate(laptop).name == "ann"
    with pytest.raises(NameTaken, match=r"^you already have a token named 'laptop'$"):
        store.create_token(ann, "laptop")
    soon = store.create_token(ann, "ci", expires_at=time.time() + 0.5)
    assert store.authenticate(soon).name == "ann"
    time.sleep(0.6)
    with pytest.raises(AuthError, match=r"^token 'ci' has expired"):
        store.authenticate(soon)
    with pytest.raises(StoreError, match="expiry must be in the future"):
        store.create_token(ann, "past", expires_at=time.time() - 1)
    assert [t.name for t in store.tokens(ann)] == ["first", "laptop", "ci"]
    with pytest.raises(Forbidden, match=r"^only an operator revokes another user's tokens$"):
        store.revoke_token(bob, "laptop", owner="ann")
    store.revoke_token(ann, "ci")
    store.revoke_token(boss, "laptop", owner="ann")
    with pytest.raises(AuthError, match=r"^wrong token$"):
        store.authenticate(laptop)
    with pytest.raises(NotFound, match=r"^you have no token named 'laptop'"):
        store.revoke_token(ann, "laptop")
    assert [t.name for t in store.tokens(ann)] == ["first"]
