"""The ladder as the web browses it, beside ``LocalLadder``'s lists: a page of matches, one
match with both its games, one bot with its versions, rating history and record.

Every function reads one ``LocalLadder`` (its store and its stored replays); none writes.
Errors are the store's ``NotFound`` (an unknown bot, match or tournament) and ``ValueError``
(a bad page or filter), each one line.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, field
from typing import Any

from arena.ladder.statistics import Statistics, by_bot
from arena.store import Match, MatchStatus

from .api import LocalLadder, MatchRow, VersionRow, match_row
from .files import DataDir
from .standings import Standing
from .submit import LADDER

PAGE_SIZE = 50
STATISTICS_MATCHES = 50  # a bot page reads this many replays at most: its newest matches


@dataclass(frozen=True)
class MatchPage:
    tournament: str
    page: int  # from 1
    pages: int  # at least 1
    total: int  # matches that pass the filter
    rows: list[MatchRow]


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


@dataclass(frozen=True)
class MatchDetail:
    row: MatchRow
    tournament: str
    seed: int
    games: list[GameSummary]  # empty until played
    forfeit: ForfeitPlace | None


@dataclass(frozen=True)
class HeadToHead:
    opponent: str  # the other team's label
    pairs: int
    wins: int
    draws: int
    losses: int
    points_for: int
    points_against: int


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
    # arena.ladder.statistics over the games of its last STATISTICS_MATCHES played matches
    statistics: dict[str, Any] = field(default_factory=dict)


class StandingsCache:
    """A tournament's standings, kept until a result is recorded or an entry joins or leaves
    the ladder (a fit over 100,000 results takes seconds; a page must not). A result shows
    as a new rated index or one more done match after it: the matches up to the last rated
    index are all finished, so none of them changes."""

    def __init__(self, ladder: LocalLadder) -> None:
        self.ladder = ladder
        self.kept: dict[str, tuple[tuple[int, int, frozenset[int | None]], list[Standing]]] = {}
        self.lock = threading.Lock()

    def __call__(self, tournament: str, *, retired: bool = False) -> list[Standing]:
        """The standings; without ``retired``, only the ladder's active entries."""
        store = self.ladder.store
        t = self.ladder._tournament(tournament)
        assert t.id is not None
        active = frozenset(e.version.id for e in store.active_entries())
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
    t = ladder._tournament(tournament)
    assert t.id is not None
    versions = None
    if bot:
        versions = [v.id for v in ladder.store.versions(bot) if v.id is not None]
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
        replays = ladder.data.read_json(m.replay_path)["games"]
        for n, replay in enumerate(replays, start=1):
            games.append(_summary(n, replay))
        forfeit = _forfeit(m, replays, labels)
    return MatchDetail(match_row(ladder.labels, m), tournament, m.seed, games, forfeit)


def bot_profile(ladder: LocalLadder, name: str, recent: int = 20) -> BotProfile:
    """A bot: its versions, its ladder rating history, head-to-head, recent matches and
    forfeits by reason (over every tournament)."""
    store = ladder.store
    bot = store.bot(name)
    versions = store.versions(name)
    validations = store.validation_statuses()
    number = {v.id: v.number for v in versions if v.id is not None}
    owner = store.user_by_id(bot.owner_id).name
    history: list[RatingPoint] = []
    head: dict[str, list[int]] = {}
    rows: list[MatchRow] = []
    figures: list[dict[str, Statistics]] = []
    for t in store.tournaments():
        assert t.id is not None
        if t.name == LADDER:
            for version_id, n in number.items():
                history.extend(
                    RatingPoint(n, change.schedule_index, change.elo_after)
                    for change in store.rating_history(t.id, version_id)
                )
            history.sort(key=lambda point: point.schedule_index)
        _, matches = store.match_page(t.id, versions=list(number), limit=10**9)
        for m in matches:
            if m.status != MatchStatus.DONE:
                continue
            if len(rows) < recent:
                rows.append(match_row(ladder.labels, m))
            if len(figures) < STATISTICS_MATCHES and m.replay_path is not None:
                figures.append(_match_figures(ladder.data, m.replay_path))
            ours = [seat for seat, v in enumerate(m.seats) if v in number]
            teams = {seat % 2 for seat in ours}
            if len(teams) != 1 or m.points_team0 is None or m.points_team1 is None:
                continue  # on both teams (a mixed table): no opponent to count against
            team = teams.pop()
            (a, c), (b, d) = m.teams
            other = ladder.labels.team(b, d) if team == 0 else ladder.labels.team(a, c)
            mine, theirs = (m.points_team0, m.points_team1)[:: 1 if team == 0 else -1]
            record = head.setdefault(other, [0, 0, 0, 0, 0, 0])
            record[0] += 1
            record[1 if m.winner == team else 2 if m.winner is None else 3] += 1
            record[4] += mine
            record[5] += theirs
    return BotProfile(
        name=bot.name,
        owner=owner,
        versions=[ladder._row(v, bot.name, validations.get(v.id or 0, "")) for v in versions],
        history=history,
        head_to_head=[HeadToHead(k, *v) for k, v in sorted(head.items())],
        recent=rows,
        statistics=_statistics(figures, [f"{bot.name} v{n}" for n in number.values()]),
    )


# ---------------------------------------------------------------------- helpers


@functools.lru_cache(maxsize=4096)
def _match_figures(data: DataDir, key: str) -> dict[str, Statistics]:
    """A match's statistics by player label; kept, as a stored record never changes (its
    key names its content)."""
    return by_bot(data.read_json(key)["games"])


def _statistics(figures: list[dict[str, Statistics]], labels: list[str]) -> dict[str, Any]:
    """The bot's figures over matches' ``figures``, its versions (``labels``) merged."""
    mine = [match[label] for match in figures for label in labels if label in match]
    if not mine:
        return {}
    total = mine[0]
    for more in mine[1:]:
        total = total.merged(more)
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


def _summary(game: int, replay: dict[str, Any]) -> GameSummary:
    deals = [
        (int(d["number"]), list(d["totals"]))
        for d in replay["deals"]
        if not d.get("redeal") and d.get("totals") is not None
    ]
    players = [str(p["name"]) for p in replay["players"]]
    return GameSummary(game, players, list(replay["result"]["totals"]), deals)


def _forfeit(m: Match, replays: list[dict[str, Any]], labels: list[str]) -> ForfeitPlace | None:
    if not m.forfeit_reason or m.forfeit_game is None or m.forfeit_seat is None:
        return None
    replay = replays[m.forfeit_game - 1]
    deals = replay["deals"]
    first_seat = m.forfeit_seat if m.forfeit_game == 1 else (m.forfeit_seat - 1) % 4
    return ForfeitPlace(
        game=m.forfeit_game,
        seat=m.forfeit_seat,
        bot=labels[first_seat],
        reason=m.forfeit_reason,
        detail=m.forfeit_detail or "",
        deal=int(deals[-1]["number"]) if deals else None,
    )
