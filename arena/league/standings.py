"""The ladder as users read it, in its tournament's rating model: each entry's displayed
rating with its 95% interval, the model's own figures (the Elo model's sequential Elo and
fit; Weng-Lin's mu, sigma and mu - 3 sigma), and which neighbours can't yet be told apart."""

from __future__ import annotations

from arena.competition import Record, groups, model_named, records
from arena.read_model import Standing
from arena.store import Store, Tournament, TournamentKind

from .apply_ratings import current_states, done_results

# The models' figures as the table heads them; the Elo model's fit is its rating column.
DETAIL_LABELS = {"elo": "Elo", "mu": "mu", "sigma": "sigma", "conservative": "mu-3sigma"}
ALL_ONLY = {"elo"}  # shown with --all only (the sequential Elo, beside the fit)


def detail_keys(rows: list[Standing], *, show_all: bool = False) -> list[str]:
    """The model's figures shown beside the rating column, in order: the CLI's ladder and
    the web's show the same (``elo`` only with ``--all`` / ``?all=1``)."""
    keys = [k for k in rows[0].details if k in DETAIL_LABELS] if rows else []
    return [k for k in keys if show_all or k not in ALL_ONLY]


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
    # An entry that has played no pair is provisional: its rating is the prior's, so it
    # ranks after every entry that played, in one group of its own.
    played = [est for est in estimates.ranking if record[est.entry].games]
    provisional = [est for est in estimates.ranking if not record[est.entry].games]
    group_of = {e: g for g, members in enumerate(groups(played), 1) for e in members}
    group_of |= {est.entry: len(set(group_of.values())) + 1 for est in provisional}
    rows = []
    owners: dict[int, str] = {}
    for rank, est in enumerate(played + provisional, start=1):
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
