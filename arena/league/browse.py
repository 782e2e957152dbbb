"""The ladder as the web browses it, beside ``LocalLadder``'s lists: every bot, a page of
matches, one match with both its games deal by deal, one bot with its versions, rating
history and record; and who reads a bot's logs. The web reads through these and the
``LocalLadder``, never the store.

Every function reads one ``LocalLadder`` (its store and its stored replays); none writes.
Errors are the store's ``NotFound`` (an unknown bot, match or tournament) and ``ValueError``
(a bad page or filter), each one line.
"""

from __future__ import annotations

import json
import threading
from dataclasses import asdict, dataclass, field
from typing import Any

from arena.competition.pairs import first_game_seat
from arena.competition.statistics import Statistics
from arena.competition.tallies import opponent_versions
from arena.engine.replay import Replay
from arena.host.inert import inert_tree
from arena.read_model import LADDER, BotStatistics, Entrant, MatchRow, Standing, VersionRow
from arena.store import AuthError as AuthError  # it imports nothing of the store
from arena.store import Forbidden as Forbidden
from arena.store import Match, MatchStatus
from arena.store import NotFound as NotFound
from arena.store import StoreError as StoreError  # the web's errors and user, from here:
from arena.store import User as User
from arena.store.tokens import token_hash

from .api import LocalLadder, match_row
from .bot_statistics import version_tallies
from .labels import version_row

PAGE_SIZE = 50


@dataclass(frozen=True)
class MatchPage:
    tournament: str
    page: int  # from 1
    pages: int  # at least 1
    total: int  # matches that pass the filter
    rows: list[MatchRow]

    def as_json(self) -> dict[str, Any]:
        """``/api/matches``: each row as ``arena matches --json``'s."""
        return {**asdict(self), "rows": [row.as_json() for row in self.rows]}


@dataclass(frozen=True)
class BotSummary:
    """A line of the bots' index: every bot, whatever the state of its versions."""

    name: str
    owner: str
    versions: int
    status: str  # its newest version's
    active: int | None  # the number of its active version, if any
    submitted_at: float  # its newest version's submission, seconds since the epoch


@dataclass(frozen=True)
class DealPoints:
    """One deal of a pair: each team's points in either game (team A: seats 0+2 of the first
    game, 1+3 of the second) and A's margin over both, the duplicate comparison."""

    number: int
    a: tuple[int | None, int | None]  # in game 1, game 2 (None: not scored there)
    b: tuple[int | None, int | None]
    difference: int  # A's points minus B's, both games together


@dataclass(frozen=True)
class GameSummary:
    game: int  # 1 or 2
    players: list[str]  # "bot vN" at seats 0-3 of this game
    totals: list[int] | None  # team totals at the end, once played
    deals: list[tuple[int, list[int]]]  # (deal number, running totals) after each scored deal


@dataclass(frozen=True)
class ForfeitPlace:
    game: int
    seat: int  # in that game
    bot: str  # "bot vN"
    reason: str
    detail: str
    deal: int | None  # the deal it happened in, when the replay says
    first_seat: int = 0  # the bot's seat in the first game (``MatchRow.seats``)


@dataclass(frozen=True)
class MatchDetail:
    row: MatchRow
    tournament: str
    seed: int | None  # None until played: a match's seed deals its cards
    games: list[GameSummary]  # empty until played
    forfeit: ForfeitPlace | None
    deals: list[DealPoints] = field(default_factory=list)  # both games side by side

    def as_json(self) -> dict[str, Any]:
        """``/api/matches/ID``: the row as ``arena matches --json``'s."""
        return {**asdict(self), "row": self.row.as_json()}


@dataclass(frozen=True)
class HeadToHead:
    opponent: str  # the other team's label
    pairs: int
    wins: int
    draws: int
    losses: int
    points_for: int
    points_against: int
    opponents: tuple[Entrant, ...] = ()  # the other team by name: one, or two (mixed)


@dataclass(frozen=True)
class RatingPoint:
    version: int
    schedule_index: int
    elo: float  # after that match


@dataclass(frozen=True)
class BotProfile:
    name: str
    owner: str
    versions: list[VersionRow]
    history: list[RatingPoint]  # the ladder's sequential Elo, in schedule order
    head_to_head: list[HeadToHead]
    recent: list[MatchRow]  # newest first
    tournament: str = LADDER  # what head-to-head and statistics count
    # arena.competition.statistics over the games of its played matches in ``tournament``
    statistics: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        """``/api/bots/NAME``: versions as ``arena bots --json``'s, matches as ``arena
        matches --json``'s."""
        return {
            **asdict(self),
            "versions": [v.as_json() for v in self.versions],
            "recent": [m.as_json() for m in self.recent],
        }


class StandingsCache:
    """A tournament's standings, kept until a result is recorded or an entry joins or leaves
    the ladder (a fit over 100,000 results takes seconds; a page must not). A result shows
    as a new rated index or one more done match after it: the matches up to the last rated
    index are all finished, so none of them changes. Their JSON (``arena ladder --json``) is
    kept beside them, encoded once."""

    def __init__(self, ladder: LocalLadder) -> None:
        self.ladder = ladder
        self.kept: dict[str, tuple[tuple[int, int, frozenset[int]], list[Standing]]] = {}
        self.encoded: dict[tuple[str, bool], tuple[list[Standing], bytes]] = {}
        self.lock = threading.Lock()

    def __call__(self, tournament: str, *, retired: bool = False) -> list[Standing]:
        """The standings; without ``retired``, only the ladder's active entries."""
        store = self.ladder.store
        t = self.ladder.tournament(tournament)
        assert t.id is not None
        active = store.active_version_ids()
        rated = store.rated_through(t.id)
        mark = (rated, store.done_after(t.id, rated), active)
        with self.lock:
            kept = self.kept.get(tournament)
        if kept is not None and kept[0] == mark:
            rows = kept[1]
        else:  # read after the mark: at worst newer than it, and read again next time
            rows = self.ladder.standings(tournament)
            with self.lock:
                self.kept[tournament] = (mark, rows)
        return rows if retired else [r for r in rows if r.version_id in active]

    def json(self, tournament: str, *, retired: bool = False) -> bytes:
        """The standings as ``arena ladder --json`` gives them, encoded."""
        rows = self(tournament, retired=retired)
        with self.lock:
            kept = self.encoded.get((tournament, retired))
        if kept is not None and kept[0] == rows:
            return kept[1]
        rows_json = inert_tree([row.as_json() for row in rows])  # names inert, as pages
        encoded = json.dumps(rows_json, allow_nan=False, separators=(",", ":")).encode()
        with self.lock:
            self.encoded[(tournament, retired)] = (rows, encoded)
        return encoded


def match_page(
    ladder: LocalLadder,
    *,
    tournament: str = LADDER,
    status: str | None = None,
    bot: str | None = None,
    page: int = 1,
) -> MatchPage:
    """One page of a tournament's matches, newest first, filtered by status and bot."""
    if page < 1:
        raise ValueError(f"page is 1 or more, got {page}")
    wanted = _status(status)
    t = ladder.tournament(tournament)
    assert t.id is not None
    versions = ladder.version_ids(bot) if bot else None
    total, matches = ladder.store.match_page(
        t.id, status=wanted, versions=versions, offset=(page - 1) * PAGE_SIZE, limit=PAGE_SIZE
    )
    pages = max(1, -(-total // PAGE_SIZE))
    if page > pages:
        raise ValueError(f"page {page} is past the last page, {pages}")
    return MatchPage(t.name, page, pages, total, [match_row(ladder.labels, m) for m in matches])


def match_detail(ladder: LocalLadder, match_id: int) -> MatchDetail:
    """A match with, once played, both games' running totals deal by deal."""
    m = ladder.store.match(match_id)
    tournament = ladder.store.tournament_by_id(m.tournament_id).name
    labels = [ladder.labels(v) for v in m.seats]
    games: list[GameSummary] = []
    forfeit = None
    if m.status == MatchStatus.DONE and m.replay_path is not None:
        replays = ladder.data.read_replays(m.replay_path)
        for n, replay in enumerate(replays, start=1):
            games.append(_summary(n, replay))
        forfeit = _forfeit(m, replays, labels)
    seed = m.seed if m.status == MatchStatus.DONE else None
    row = match_row(ladder.labels, m)
    return MatchDetail(row, tournament, seed, games, forfeit, _side_by_side(games))


def bot_profile(
    ladder: LocalLadder, name: str, recent: int = 20, tournament: str = LADDER
) -> BotProfile:
    """A bot: its versions, its ladder rating history, recent matches, and in
    ``tournament`` its head-to-head and statistics with forfeits by reason. Head-to-head and
    statistics are the versions' tallies there, kept as results are recorded (the same
    ``arena bot`` reads): the page reads no replay."""
    store = ladder.store
    bot = store.bot(name)
    played = ladder.tournament(tournament)
    versions = store.versions(name)
    validations = store.validation_statuses()
    number = {v.id: v.number for v in versions if v.id is not None}
    owner = store.user_by_id(bot.owner_id).name
    history: list[RatingPoint] = []
    rated = [t.id for t in store.tournaments() if t.name == LADDER and t.id is not None]
    for t_id in rated:
        history.extend(
            RatingPoint(number[version_id], index, elo)
            for version_id, index, elo in store.rating_points(t_id, number)
        )
    head: dict[str, list[int]] = {}
    opponents: dict[str, tuple[Entrant, ...]] = {}
    for figures in version_tallies(store, played, bot.name).values():
        for key, counts in figures.head_to_head.items():
            a, c = opponent_versions(key)
            other = ladder.labels.team(a, c)
            opponents[other] = tuple(dict.fromkeys(map(ladder.labels.entrant, (a, c))))
            record = head.setdefault(other, [0] * len(counts))
            record[:] = [a + b for a, b in zip(record, counts, strict=True)]
    return BotProfile(
        name=bot.name,
        owner=owner,
        versions=[
            version_row(store, v, bot.name, validations.get(v.id or 0, "")) for v in versions
        ],
        history=history,
        head_to_head=[_head_to_head(k, v, opponents[k]) for k, v in sorted(head.items())],
        recent=[match_row(ladder.labels, m) for m in store.recent_done(number, recent)],
        tournament=played.name,
        statistics=_shown(ladder.bot_statistics(bot.name, played.name)),
    )


def bot_index(ladder: LocalLadder) -> list[BotSummary]:
    """Every bot, by name (case aside), each with its owner and its newest version."""
    store = ladder.store
    owners: dict[int, str] = {}
    found = []
    every = store.every_version()
    for bot in store.bots():
        if bot.owner_id not in owners:
            owners[bot.owner_id] = store.user_by_id(bot.owner_id).name
        versions = every.get(bot.id or 0, [])
        if not versions:
            continue  # a name reserved by a submission not yet stored
        newest = versions[-1]
        active = [v.number for v in versions if v.status == "active"]
        found.append(
            BotSummary(
                bot.name,
                owners[bot.owner_id],
                len(versions),
                newest.status,
                active[-1] if active else None,
                newest.created_at,
            )
        )
    return sorted(found, key=lambda b: (b.name.casefold(), b.name))


def bot_named(ladder: LocalLadder, text: str) -> str:
    """The bot a person means by ``text``: its exact name, else the one name equal to it
    case aside (surrounding spaces too); NotFound otherwise."""
    wanted = text.strip()
    names = [bot.name for bot in ladder.store.bots()]
    if wanted in names:
        return wanted
    alike = [n for n in names if n.casefold() == wanted.casefold()]
    if len(alike) == 1:
        return alike[0]
    raise NotFound(f"unknown bot {text!r}" if not alike else f"several bots are {text!r}")


def bot_names(ladder: LocalLadder) -> list[str]:
    return sorted((bot.name for bot in ladder.store.bots()), key=lambda n: (n.casefold(), n))


def tournament_names(ladder: LocalLadder) -> list[str]:
    return [t.name for t in ladder.store.tournaments()]


def sign_in(ladder: LocalLadder, token: str) -> tuple[User, str]:
    """The token's user and the token's SHA-256, all a web session keeps of it; AuthError
    for a wrong, revoked or expired token."""
    digest = token_hash(token)
    return ladder.store.authenticate_hash(digest), digest


def user_of_session(ladder: LocalLadder, digest: str) -> User | None:
    """The user of the token whose SHA-256 a web session holds, while it is valid."""
    try:
        return ladder.store.authenticate_hash(digest)
    except AuthError:
        return None


# ---------------------------------------------------------------------- helpers


def _head_to_head(label: str, counts: list[int], opponents: tuple[Entrant, ...]) -> HeadToHead:
    pairs, wins, draws, losses, points_for, points_against = counts
    return HeadToHead(label, pairs, wins, draws, losses, points_for, points_against, opponents)


def _side_by_side(games: list[GameSummary]) -> list[DealPoints]:
    """Each deal's points in both games, by team A and B (game 2 seats A at 1+3)."""
    per_game: list[dict[int, tuple[int, int]]] = []
    for g in games:
        points, before = {}, (0, 0)
        for number, totals in g.deals:
            a, b = (totals[0], totals[1]) if g.game == 1 else (totals[1], totals[0])
            points[number] = (a - before[0], b - before[1])
            before = (a, b)
        per_game.append(points)
    if len(per_game) != 2:
        return []
    rows = []
    for number in sorted(per_game[0].keys() | per_game[1].keys()):
        one, two = per_game[0].get(number), per_game[1].get(number)
        both = [p for p in (one, two) if p is not None]
        team_a = (one[0] if one else None, two[0] if two else None)
        team_b = (one[1] if one else None, two[1] if two else None)
        rows.append(DealPoints(number, team_a, team_b, sum(x - y for x, y in both)))
    return rows


def _shown(found: BotStatistics) -> dict[str, Any]:
    """The bot's figures over its versions as the page shows them; none before it played."""
    total = Statistics.from_record(found.all)
    if not found.versions:
        return {}
    shown = total.to_dict()
    shown["contracts"] = dict(sorted(shown["contracts"].items(), key=lambda kv: int(kv[0])))
    return shown


def _status(status: str | None) -> MatchStatus | None:
    if not status:
        return None
    try:
        return MatchStatus(status)
    except ValueError:
        known = ", ".join(s.value for s in MatchStatus)
        raise ValueError(f"unknown status {status!r}: {known}") from None


def _summary(game: int, replay: Replay) -> GameSummary:
    deals = [
        (d.number, list(d.totals)) for d in replay.deals if not d.redeal and d.totals is not None
    ]
    return GameSummary(game, replay.names, list(replay.result.totals), deals)


def _forfeit(m: Match, replays: list[Replay], labels: list[str]) -> ForfeitPlace | None:
    if not m.forfeit_reason or m.forfeit_game is None or m.forfeit_seat is None:
        return None
    deals = replays[m.forfeit_game - 1].deals
    first_seat = first_game_seat(m.forfeit_game, m.forfeit_seat)
    return ForfeitPlace(
        game=m.forfeit_game,
        seat=m.forfeit_seat,
        bot=labels[first_seat],
        reason=m.forfeit_reason,
        detail=m.forfeit_detail or "",
        deal=deals[-1].number if deals else None,
        first_seat=first_seat,
    )
