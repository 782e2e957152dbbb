"""Weng-Lin ratings (openskill's Bradley-Terry full-pairing model): a mean and a deviation
per entry, updated from each pair's result in schedule order.

In ``mixed`` each partner keeps a rating of its own and a team's result moves each by its
share of the team's uncertainty, so partners are told apart over their different tables.
In ``pairs`` a team is one entry twice: it is rated as a team of one.

The model's dynamics ``tau`` is 0: a version's code never changes, so its strength does
not drift between pairs (openskill's default, ``25 / 300``, widens every sigma before each
result, for players who improve). Shown: the mean with ``mean +- 1.96 sigma``, and the conservative
``mu - 3 sigma`` (openskill's ordinal).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from openskill.models import BradleyTerryFull

from .elo_ratings import Z95
from .rating_model import Ranking, Shown, State, all_entries, normal_los, ranked
from .results import ScoredMatch
from .schedule import Entry

MU = 25.0
SIGMA = MU / 3
BETA = MU / 6  # openskill's default: a result's noise, in mu's units


class WengLin:
    name = "openskill"
    scale = math.sqrt(2) * BETA  # two certain ratings: P(a beats b) = 1 / (1 + e^(-d / scale))

    def __init__(self) -> None:
        self._model = BradleyTerryFull(mu=MU, sigma=SIGMA, beta=BETA, tau=0.0)

    def initial(self) -> State:
        return State(MU, SIGMA)

    def update(self, states: Mapping[Entry, State], result: ScoredMatch) -> dict[Entry, State]:
        # A team's distinct members, in seat order: (a, a) in pairs is one entry.
        teams = [list(dict.fromkeys(team)) for team in result.teams]
        current = [[states.get(e, self.initial()) for e in team] for team in teams]
        ratings = [
            [self._model.rating(mu=s.value, sigma=s.deviation or SIGMA) for s in team]
            for team in current
        ]
        # Lower rank is better; a drawn pair shares the rank.
        ranks = [0.0, 0.0] if result.score == 0.5 else [1.0 - result.score, result.score]
        rated = self._model.rate(ratings, ranks=ranks)
        return {
            e: State(float(r.mu), float(r.sigma))
            for team, new in zip(teams, rated, strict=True)
            for e, r in zip(team, new, strict=True)
        }

    def show(
        self,
        results: Sequence[ScoredMatch],
        entries: Iterable[Entry],
        states: Mapping[Entry, State],
    ) -> Ranking:
        names = all_entries(results, entries)
        now = {e: states.get(e, self.initial()) for e in names}
        mu = {e: s.value for e, s in now.items()}
        sigma = {e: s.deviation or SIGMA for e, s in now.items()}
        shown = [
            Shown(
                e,
                mu[e],
                Z95 * sigma[e],
                None,
                {"mu": mu[e], "sigma": sigma[e], "conservative": mu[e] - 3 * sigma[e]},
            )
            for e in names
        ]
        return ranked(shown, normal_los(mu, sigma))
