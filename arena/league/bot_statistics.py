"""A bot's statistics in one tournament, from its versions' tallies: what ``arena bot`` and
the web's bot page show, read the same way (no replay is read)."""

from __future__ import annotations

from arena.competition.statistics import Statistics
from arena.competition.tallies import Figures
from arena.read_model import BotStatistics, version_label
from arena.store import Store, Tournament


def version_tallies(store: Store, tournament: Tournament, bot: str) -> dict[int, Figures]:
    """The tallies in ``tournament`` of each version of ``bot`` that played there, by
    version number (NotFound for an unknown bot)."""
    assert tournament.id is not None
    number = {v.id: v.number for v in store.versions(bot) if v.id is not None}
    tallies = store.tallies(tournament.id, number)
    return {
        number[v]: figures for v, figures in sorted(tallies.items(), key=lambda kv: number[kv[0]])
    }


def bot_statistics(store: Store, tournament: Tournament, bot: str) -> BotStatistics:
    """The bot's statistics in ``tournament``: over all its versions, and by version."""
    found = store.bot(bot)
    by_number = version_tallies(store, tournament, found.name)
    versions = {version_label(found.name, n): f.statistics for n, f in by_number.items()}
    total = Statistics.total(versions.values())
    return BotStatistics(
        bot=found.name,
        tournament=tournament.name,
        all=total.to_record(),
        versions={label: s.to_record() for label, s in versions.items()},
    )
