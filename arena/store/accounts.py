"""Users (a token, kept only as its hash), bots and their versions."""

from __future__ import annotations

import time
from typing import Any, NamedTuple

from sqlalchemy import and_, func
from sqlmodel import Session, col, select

from arena.read_model import VersionStatus

from .base import StoreBase
from .blobs import put_blob
from .errors import NameTaken, NotFound, StoreError
from .models import Bot, BotVersion, User
from .names import bot_name_key, check_name
from .queue import cancel_statement
from .tokens import new_token
from .validations import queue_validation


class LadderEntry(NamedTuple):
    """A bot's ladder entry: its newest active version."""

    bot: Bot
    version: BotVersion


class Accounts(StoreBase):
    # ------------------------------------------------------------------ users

    def add_user(self, name: str, *, operator: bool = False) -> str:
        """Create a user (an ``operator`` reads every bot's logs) with a first token, named
        ``first``; returns the token, which is shown once and stored only hashed."""
        check_name("user", name)

        def add(session: Session) -> str:
            if session.exec(select(User).where(User.name == name)).first() is not None:
                raise NameTaken(f"user name {name!r} is taken")
            user = User(name=name, created_at=time.time(), operator=operator)
            session.add(user)
            session.flush()
            return new_token(session, _id(user), "first", None)

        return self._retrying(add)

    def user(self, name: str) -> User:
        with self._session() as session:
            user = session.exec(select(User).where(User.name == name)).first()
        if user is None:
            raise NotFound(f"unknown user {name!r}")
        return user

    # ------------------------------------------------------------------ bots

    def add_version(
        self,
        user: User,
        bot_name: str,
        content_hash: str,
        code_key: str,
        code: bytes,
        *,
        validate: bool = False,
    ) -> BotVersion:
        """A new (pending) version of the user's bot, its code stored under ``code_key`` in
        the same transaction (and, ``validate``, its validation game queued), creating the bot
        on first use. The same content again returns the existing version; another user's bot
        name is refused."""
        key = bot_name_key(bot_name)

        def add(session: Session) -> BotVersion:
            now = time.time()
            bot = session.exec(select(Bot).where(Bot.name == bot_name)).first()
            if bot is None:
                twin = session.exec(select(Bot).where(Bot.name_key == key)).first()
                if twin is not None:
                    whose = "your bot" if twin.owner_id == user.id else "another user's bot"
                    raise NameTaken(
                        f"bot name {bot_name!r} looks like {whose} {twin.name!r}: choose another"
                    )
                bot = Bot(name=bot_name, name_key=key, owner_id=_id(user), created_at=now)
                session.add(bot)
                session.flush()
            elif bot.owner_id != user.id:
                raise NameTaken(f"bot name {bot_name!r} belongs to another user")
            existing = session.exec(
                select(BotVersion).where(
                    BotVersion.bot_id == bot.id, BotVersion.content_hash == content_hash
                )
            ).first()
            if existing is not None:
                return existing
            newest = session.exec(
                select(func.max(BotVersion.number)).where(BotVersion.bot_id == bot.id)
            ).one()
            put_blob(session, code_key, code)
            version = BotVersion(
                bot_id=_id(bot),
                number=(newest or 0) + 1,
                content_hash=content_hash,
                archive_path=code_key,
                created_at=now,
            )
            session.add(version)
            session.flush()
            if validate:
                assert version.id is not None
                queue_validation(session, version.id, now)
            return version

        return self._retrying(add)

    def set_status(
        self, version_id: int, status: VersionStatus, reason: str | None = None
    ) -> BotVersion:
        """Mark a version active / rejected (with ``reason``) / retired."""
        VersionStatus(status)
        with self._session(write=True) as session:
            version = session.get(BotVersion, version_id)
            if version is None:
                raise NotFound(f"unknown bot version {version_id}")
            version.status = status
            version.reason = reason
            session.add(version)
        return version

    def retire(self, user: User, bot_name: str) -> list[BotVersion]:
        """Retire every version of the user's bot, its queued matches cancelled in the same
        transaction (off the ladder, as a replaced version is)."""
        with self._session(write=True) as session:
            bot = session.exec(select(Bot).where(Bot.name == bot_name)).first()
            if bot is None:
                raise NotFound(f"unknown bot {bot_name!r}")
            if bot.owner_id != user.id:
                raise NameTaken(f"bot {bot_name!r} belongs to another user")
            versions = list(session.exec(select(BotVersion).where(BotVersion.bot_id == bot.id)))
            for version in versions:
                version.status = VersionStatus.RETIRED
                session.add(version)
                session.connection().execute(cancel_statement(version_id=version.id))
        return versions

    def user_by_id(self, user_id: int) -> User:
        with self._session() as session:
            user = session.get(User, user_id)
        if user is None:
            raise NotFound(f"unknown user id {user_id}")
        return user

    def bot(self, name: str) -> Bot:
        with self._session() as session:
            bot = session.exec(select(Bot).where(Bot.name == name)).first()
        if bot is None:
            raise NotFound(f"unknown bot {name!r}")
        return bot

    def bot_by_id(self, bot_id: int) -> Bot:
        with self._session() as session:
            bot = session.get(Bot, bot_id)
        if bot is None:
            raise NotFound(f"unknown bot id {bot_id}")
        return bot

    def bots(self) -> list[Bot]:
        with self._session() as session:
            return list(session.exec(select(Bot).order_by(col(Bot.name))))

    def version(self, version_id: int) -> BotVersion:
        with self._session() as session:
            version = session.get(BotVersion, version_id)
        if version is None:
            raise NotFound(f"unknown bot version {version_id}")
        return version

    def versions(self, bot_name: str) -> list[BotVersion]:
        """The bot's versions, oldest first."""
        bot = self.bot(bot_name)
        with self._session() as session:
            query = (
                select(BotVersion)
                .where(BotVersion.bot_id == bot.id)
                .order_by(col(BotVersion.number))
            )
            return list(session.exec(query))

    def every_version(self) -> dict[int, list[BotVersion]]:
        """Every bot's versions, oldest first, by bot id: one query for a list of all bots."""
        found: dict[int, list[BotVersion]] = {}
        with self._session() as session:
            query = select(BotVersion).order_by(col(BotVersion.bot_id), col(BotVersion.number))
            for version in session.exec(query):
                found.setdefault(version.bot_id, []).append(version)
        return found

    def active_entries(self) -> list[LadderEntry]:
        """The newest active version of every bot, by bot name."""
        with self._session() as session:
            query = (
                select(Bot, BotVersion)
                .join(BotVersion, col(BotVersion.bot_id) == Bot.id)
                .join(*_newest_active())
                .order_by(col(Bot.name))
            )
            return [LadderEntry(bot, version) for bot, version in session.exec(query)]

    def active_version_ids(self) -> frozenset[int]:
        """The ids of ``active_entries``' versions, in one narrow query (a page asks often)."""
        with self._session() as session:
            query = select(col(BotVersion.id)).join(*_newest_active())
            return frozenset(v for v in session.exec(query) if v is not None)


def _id(row: User | Bot) -> int:
    if row.id is None:
        raise StoreError(f"{type(row).__name__} {row.name!r} is not stored")
    return row.id


def _newest_active() -> tuple[Any, Any]:
    """What to join ``bot_versions`` with to keep each bot's newest active version."""
    newest = (
        select(BotVersion.bot_id, func.max(BotVersion.number).label("number"))
        .where(BotVersion.status == VersionStatus.ACTIVE)
        .group_by(col(BotVersion.bot_id))
        .subquery()
    )
    on = and_(col(BotVersion.bot_id) == newest.c.bot_id, col(BotVersion.number) == newest.c.number)
    return newest, on
