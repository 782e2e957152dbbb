"""The ladder as users read it, in its tournament's rating model: each entry's displayed
rating with its 95% interval, the model's own figures (the Elo model's sequential Elo and
fit; Weng-Lin's mu, sigma and mu - 3 sigma), and which neighbours can't yet be told apart."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from arena.ladder import Record, groups, model_named, records
from arena.store import Store, Tournament, TournamentKind

from .rating import current_states, done_results

# The models' figures as the table heads them; the Elo model's fit is its rating column.
DETAIL_LABELS = {"elo": "Elo", "mu": "mu", "sigma": "sigma", "conservative": "mu-3sigma"}
ALL_ONLY = {"elo"}  # shown with --all only (the sequential Elo, beside the fit)


def detail_keys(rows: list[Standing], *, show_all: bool = False) -> list[str]:
    """The model's figures shown beside the rating column, in order: the CLI's ladder and
    the web's show the same (``elo`` only with ``--all`` / ``?all=1``)."""
    keys = [k for k in rows[0].details if k in DETAIL_LABELS] if rows else []
    return [k for k in keys if show_all or k not in ALL_ONLY]


@dataclass(frozen=True)
class Standing:
    rank: int
    group: int  # entries in one group can't yet be told apart (LOS < 95%)
    bot: str
    version: int
    version_id: int
    rating: float  # the model's displayed rating: the Elo fit, or Weng-Lin's mu
    ci95: tuple[float, float]  # its 95% interval
    games: int  # games played: two per duplicate pair
    wins: int  # duplicate pairs won, drawn, lost
    draws: int
    losses: int
    mean_diff: float  # mean score difference per duplicate pair
    owner: str  # the user who submitted the bot
    status: str  # the version's: "active", or "retired" once a newer one replaced it
    rating_model: str = "elo"  # the tournament's
    details: dict[str, float] = field(default_factory=dict)  # the model's figures, by name

    @property
    def pairs(self) -> int:
        """Duplicate pairs played, what W/D/L counts."""
        return self.games // 2

    def as_json(self) -> dict[str, Any]:
        """The fields, the model's figures among them by name (``elo`` and ``fit_elo``, or
        ``mu``, ``sigma`` and ``conservative``)."""
        row = asdict(self)
        del row["details"]
        row |= {key: round(value, 1) for key, value in self.details.items()}
        row["pairs"] = self.pairs
        row["ci95"] = [round(x, 1) for x in self.ci95]
        for key in ("rating", "mean_diff"):
            row[key] = round(row[key], 1)
        return row


def standings(store: Store, tournament: Tournament) -> list[Standing]:
    assert tournament.id is not None
    matches = store.matches(tournament.id)
    results = done_results(matches)
    entries: set[int] = {v for m in matches for v in m.seats}
    if tournament.kind == TournamentKind.LADDER:
        entries |= {e.version.id for e in store.active_entries() if e.version.id is not None}
    model = model_named(tournament.rating_model)
    estimates = model.show(results, entries, current_states(store.ratings(tournament.id)))
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
                est.rating,
                (est.low, est.high),
                r.games,
                r.wins,
                r.draws,
                r.losses,
                r.mean_diff,
                owners[bot.owner_id],
                version.status,
                model.name,
                est.details,
            )
        )
    return rows
