"""The ladder as users read it: Elo in schedule order, beside a batch maximum-likelihood fit
that gives each entry a 95% interval and tells which neighbours can't yet be told apart."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from arena.ladder import Record, fit, groups, records
from arena.store import Store, Tournament, TournamentKind

from .rating import done_results


@dataclass(frozen=True)
class Standing:
    rank: int
    group: int  # entries in one group can't yet be told apart (LOS < 95%)
    bot: str
    version: int
    version_id: int
    elo: float  # sequential Elo, applied in schedule order
    fit_elo: float  # the batch fit's estimate
    ci95: tuple[float, float]  # the fit's 95% interval
    games: int  # games played: two per duplicate pair
    wins: int  # duplicate pairs won, drawn, lost
    draws: int
    losses: int
    mean_diff: float  # mean score difference per duplicate pair
    owner: str  # the user who submitted the bot
    status: str  # the version's: "active", or "retired" once a newer one replaced it

    @property
    def pairs(self) -> int:
        """Duplicate pairs played, what W/D/L counts."""
        return self.games // 2

    def as_json(self) -> dict[str, Any]:
        row = asdict(self)
        row["pairs"] = self.pairs
        row["ci95"] = [round(x, 1) for x in self.ci95]
        for key in ("elo", "fit_elo", "mean_diff"):
            row[key] = round(row[key], 1)
        return row


def standings(store: Store, tournament: Tournament) -> list[Standing]:
    assert tournament.id is not None
    matches = store.matches(tournament.id)
    results = done_results(matches)
    entries: set[int] = {v for m in matches for v in m.seats}
    if tournament.kind == TournamentKind.LADDER:
        entries |= {e.version.id for e in store.active_entries() if e.version.id is not None}
    sequential = {r.version_id: r.elo for r in store.ratings(tournament.id)}
    estimates = fit(results, entries)
    record = records(results, entries)
    group_of = {e: g for g, members in enumerate(groups(estimates.ranking), 1) for e in members}
    rows = []
    owners: dict[int, str] = {}
    for rank, est in enumerate(estimates.ranking, start=1):
        assert isinstance(est.entry, int)
        version = store.version(est.entry)
        bot = store.bot_by_id(version.bot_id)
        if bot.owner_id not in owners:
            owners[bot.owner_id] = store.user_by_id(bot.owner_id).name
        r: Record = record[est.entry]
        rows.append(
            Standing(
                rank,
                group_of[est.entry],
                bot.name,
                version.number,
                est.entry,
                sequential.get(est.entry, 1500.0),
                est.elo,
                (est.low, est.high),
                r.games,
                r.wins,
                r.draws,
                r.losses,
                r.mean_diff,
                owners[bot.owner_id],
                version.status,
            )
        )
    return rows
