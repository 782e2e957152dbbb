"""One interface for a rating model, and the models a tournament can choose.

A model has a state per entry (a value, and a deviation where the model keeps one), an
initial state, and an update from one result; :func:`steps` applies updates strictly in
schedule order, so the states are the same however many workers played and whichever
finished first. A model also *shows* a ranking: each entry's displayed rating with its 95%
interval, the model's own figures by name, and the likelihood of superiority of one entry
over another.

- :class:`SequentialElo`: Elo applied in schedule order, shown with an interval from its
  Fisher information at the current ratings (each entry's alone, and blind to the K-step
  noise of a sequential rating: too narrow once results pile up; ``bench/ratings.py``
  measures by how much).
- :class:`EloFit` (``elo``, the ladder's default): the maximum-likelihood fit shown, and the
  sequential Elo kept in schedule order beside it (the history a bot's page charts).
- :class:`WengLin` (``openskill``, in ``weng_lin.py``): Bayesian, a mean and a deviation per
  entry, partners rated individually from their team's result.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .elo_ratings import INITIAL, NATS, PRIOR_SD, Z95, elo_steps, fit, in_schedule_order
from .results import ScoredMatch, entry_key
from .schedule import Entry


@dataclass(frozen=True)
class State:
    """One entry's rating as a model keeps it between results."""

    value: float  # Elo, or Weng-Lin's mean
    deviation: float | None = None  # Weng-Lin's sigma; None for a model without one


@dataclass(frozen=True)
class Shown:
    """One entry's rating as users read it."""

    entry: Entry
    rating: float  # the displayed rating: what the ladder ranks by
    ci95: float  # half-width of its 95% interval
    los_next: float | None  # LOS over the next entry down the ranking; None for the last
    details: dict[str, float] = field(default_factory=dict)  # the model's own figures

    @property
    def low(self) -> float:
        return self.rating - self.ci95

    @property
    def high(self) -> float:
        return self.rating + self.ci95


@dataclass(frozen=True, eq=False)
class Ranking:
    ranking: tuple[Shown, ...]  # best first; equal ratings by entry_key
    los: Callable[[Entry, Entry], float] = field(repr=False)  # P(a is stronger than b)

    def __getitem__(self, entry: Entry) -> Shown:
        for shown in self.ranking:
            if shown.entry == entry:
                return shown
        raise KeyError(entry)


class RatingModel(Protocol):
    name: str
    scale: float  # rating points per natural log-odds of a pair's expected score

    def initial(self) -> State:
        """An entry's state before its first result."""
        ...

    def update(self, states: Mapping[Entry, State], result: ScoredMatch) -> dict[Entry, State]:
        """The new states of the entries that played ``result``; ``states`` holds the
        current ones (an entry missing from it is at :meth:`initial`)."""
        ...

    def show(
        self,
        results: Sequence[ScoredMatch],
        entries: Iterable[Entry],
        states: Mapping[Entry, State],
    ) -> Ranking:
        """The ranking of ``entries`` (and every entry in ``results``), given every result
        and the states after them in schedule order."""
        ...


def steps(
    model: RatingModel, results: Iterable[ScoredMatch], start: Mapping[Entry, State] | None = None
) -> Iterator[tuple[int, dict[Entry, State]]]:
    """Apply results in schedule order (sorted by index here, whatever order they came in)
    from ``start``; after each, yield its index and the new states of the entries that
    played, ordered by ``entry_key``."""
    states = dict(start or {})
    for r in in_schedule_order(results):
        after = model.update(states, r)
        states.update(after)
        yield r.index, {e: after[e] for e in sorted(after, key=entry_key)}


def states_after(
    model: RatingModel, results: Iterable[ScoredMatch], entries: Iterable[Entry] = ()
) -> dict[Entry, State]:
    """Every entry's state after all results in schedule order; ``entries`` adds those
    without results (at the initial state)."""
    states = dict.fromkeys(entries, model.initial())
    for _, after in steps(model, results, states):
        states.update(after)
    return {e: states[e] for e in sorted(states, key=entry_key)}


def ranked(shown: Iterable[Shown], los: Callable[[Entry, Entry], float]) -> Ranking:
    """Order by rating (ties by entry_key) and fill in each entry's LOS over the next."""
    order = sorted(shown, key=lambda s: (-s.rating, entry_key(s.entry)))
    filled = [
        Shown(
            s.entry,
            s.rating,
            s.ci95,
            los(s.entry, order[n + 1].entry) if n + 1 < len(order) else None,
            s.details,
        )
        for n, s in enumerate(order)
    ]
    return Ranking(tuple(filled), los)


def normal_los(
    mean: Mapping[Entry, float], sd: Mapping[Entry, float]
) -> Callable[[Entry, Entry], float]:
    """LOS of independent normal estimates: ``Phi((ma - mb) / sqrt(sa^2 + sb^2))``."""

    def los(a: Entry, b: Entry) -> float:
        if a == b:
            return 0.5
        spread = math.sqrt(max(sd[a] ** 2 + sd[b] ** 2, 1e-300))
        return 0.5 * (1.0 + math.erf((mean[a] - mean[b]) / spread / math.sqrt(2)))

    return los


def all_entries(results: Sequence[ScoredMatch], entries: Iterable[Entry]) -> set[Entry]:
    return {e for r in results for team in r.teams for e in team} | set(entries)


# --- Elo ---------------------------------------------------------------------------------


class SequentialElo:
    """Elo (K = 16), a team's strength its partners' mean, applied in schedule order."""

    name = "sequential-elo"
    scale = 1 / NATS

    def initial(self) -> State:
        return State(INITIAL)

    def update(self, states: Mapping[Entry, State], result: ScoredMatch) -> dict[Entry, State]:
        playing = {e for team in result.teams for e in team}
        start = {e: states[e].value for e in playing if e in states}
        [(_, after)] = elo_steps([result], start=start)
        return {e: State(v) for e, v in after.items()}

    def show(
        self,
        results: Sequence[ScoredMatch],
        entries: Iterable[Entry],
        states: Mapping[Entry, State],
    ) -> Ranking:
        names = all_entries(results, entries)
        elo = {e: states[e].value if e in states else INITIAL for e in names}
        # Fisher information of each entry's own rating at the current ratings, in natural
        # log-odds, with the fit's prior: a partner's weight is 1/2, an entry in pairs
        # fills both places of its team.
        info = dict.fromkeys(names, (PRIOR_SD * NATS) ** -2)
        for r in results:
            (a, c), (b, d) = r.teams
            x = (elo[a] + elo[c] - elo[b] - elo[d]) / 2 * NATS
            p = 1.0 / (1.0 + math.exp(-x))
            for team in r.teams:
                for e in set(team):
                    info[e] += (team.count(e) / 2) ** 2 * p * (1.0 - p)
        sd = {e: 1.0 / math.sqrt(info[e]) / NATS for e in names}
        shown = [Shown(e, elo[e], Z95 * sd[e], None, {"elo": elo[e]}) for e in names]
        return ranked(shown, normal_los(elo, sd))


class EloFit:
    """The ladder's Elo: the maximum-likelihood fit over all results is shown (ranked by,
    with its intervals and LOS from the posterior covariance); the sequential Elo is what is
    applied in schedule order and kept as each entry's history."""

    name = "elo"
    scale = 1 / NATS

    def __init__(self) -> None:
        self._sequential = SequentialElo()

    def initial(self) -> State:
        return self._sequential.initial()

    def update(self, states: Mapping[Entry, State], result: ScoredMatch) -> dict[Entry, State]:
        return self._sequential.update(states, result)

    def show(
        self,
        results: Sequence[ScoredMatch],
        entries: Iterable[Entry],
        states: Mapping[Entry, State],
    ) -> Ranking:
        fitted = fit(results, entries)
        shown = tuple(
            Shown(
                est.entry,
                est.elo,
                est.ci95,
                est.los_next,
                {
                    "elo": states[est.entry].value if est.entry in states else INITIAL,
                    "fit_elo": est.elo,
                },
            )
            for est in fitted.ranking
        )
        return Ranking(shown, fitted.los)
