"""``arena compare`` through the server: duplicate pairs of A against B queued for the
workers, fed to the SPRT in seed order, until it decides.

The comparison is a tournament of kind ``compare`` (named ``compare-<A>-<B>-<n>``) whose
matches workers claim ahead of ladder and tournament matches. ``batch`` pairs are kept
queued ahead of the verdict; once it is reached (or the caller goes away), the pairs still
queued are cancelled. Pair *i* is played on seed ``seed + i``, A+A at seats 0+2 of the first
game, exactly as the local ``arena compare`` plays it, so both give the same pairs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from arena.ladder.sprt import PAIR, PENTANOMIAL, Sprt, Verdict, closing_lines, opening_line
from arena.ladder.sprt import pair_line as sprt_pair_line
from arena.store import (
    BotVersion,
    Match,
    MatchSpec,
    MatchStatus,
    NotFound,
    Store,
    StoreError,
    TournamentKind,
    VersionStatus,
)

from .labels import Labels
from .matches import team_of


@dataclass(frozen=True)
class CompareSettings:
    seed: int = 0
    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05
    max_pairs: int = 1000
    pentanomial: bool = False
    batch: int = 8  # pairs queued ahead of the verdict
    poll_s: float = 0.5

    def sprt(self) -> Sprt:
        return Sprt(
            self.elo0, self.elo1, self.alpha, self.beta, PENTANOMIAL if self.pentanomial else PAIR
        )


CompareLine = tuple[str, Verdict | None]  # a line, and the verdict once there is one


def resolve_version(store: Store, spec: str) -> BotVersion:
    """``name``: the bot's active version; ``name@N``: its version N."""
    name, _, number = spec.partition("@")
    versions = store.versions(name)
    if number:
        found = [v for v in versions if str(v.number) == number]
        if not found:
            raise NotFound(f"bot {name!r} has no version {number}")
        return found[0]
    active = [v for v in versions if v.status == VersionStatus.ACTIVE]
    if not active:
        raise NotFound(f"bot {name!r} has no active version (name@N picks one)")
    return active[-1]


def compare_queued(
    store: Store,
    a: str,
    b: str,
    settings: CompareSettings,
    *,
    stop: Callable[[], bool] = lambda: False,
) -> Iterator[CompareLine]:
    """The comparison's lines as the workers finish its pairs (run it while you read).
    Once ``stop()`` is true it ends where it is, without a verdict, its queued pairs
    cancelled."""
    sprt = settings.sprt()
    va, vb = resolve_version(store, a), resolve_version(store, b)
    assert va.id is not None and vb.id is not None
    label = Labels(store)
    labels = [label(va.id), label(vb.id)]
    name = f"compare-{a}-{b}-{time.time_ns()}"[:64]
    tournament = store.create_tournament(name, seed=settings.seed, kind=TournamentKind.COMPARE)
    tid = tournament.id
    assert tid is not None
    teams = ((va.id, va.id), (vb.id, vb.id))
    yield opening_line(sprt, labels[0], labels[1], settings.seed), None
    queued = 0
    try:
        while sprt.verdict is None and sprt.pairs < settings.max_pairs:
            wanted = min(sprt.pairs + settings.batch, settings.max_pairs)
            if queued < wanted:
                seeds = range(settings.seed + queued, settings.seed + wanted)
                store.enqueue(tid, [MatchSpec(seed, teams) for seed in seeds])
                queued = wanted
            if stop():
                return
            ready = _next_done(store, tid, sprt.pairs)
            if ready is None:
                time.sleep(settings.poll_s)
                continue
            sprt.update(pair_score(ready, pentanomial=settings.pentanomial))
            points = (ready.points_team0 or 0, ready.points_team1 or 0)
            yield sprt_pair_line(sprt, ready.seed, points, _forfeits(ready, labels)), None
    finally:
        store.cancel_queued(tournament_id=tid)
    lines = closing_lines(sprt)
    yield lines[0], None
    yield lines[1], sprt.verdict


def _next_done(store: Store, tournament_id: int, index: int) -> Match | None:
    match = store.match_at(tournament_id, index)
    if match.status == MatchStatus.ERROR:
        raise StoreError(f"pair {index + 1} (match {match.id}) failed: {match.last_error}")
    return match if match.status == MatchStatus.DONE else None


def pair_score(match: Match, *, pentanomial: bool) -> float:
    """A's (team 0's) score for a played pair: 1, 1/2 or 0 by points, a forfeit losing it for
    the side that faulted first; pentanomial: the mean of its two game results."""
    if not pentanomial:
        return 1.0 if match.winner == 0 else 0.0 if match.winner == 1 else 0.5
    results = []
    for game, (mine, theirs) in (
        (1, (match.game1_team0, match.game1_team1)),
        (2, (match.game2_team0, match.game2_team1)),
    ):
        if match.forfeit_game == game and match.forfeit_seat is not None:
            results.append(0.0 if team_of(game, match.forfeit_seat) == 0 else 1.0)
        else:
            assert mine is not None and theirs is not None
            results.append(1.0 if mine > theirs else 0.0 if mine < theirs else 0.5)
    return sum(results) / 2


def _forfeits(match: Match, labels: list[str]) -> list[str]:
    if match.forfeit_game is None or match.forfeit_seat is None:
        return []
    label = labels[team_of(match.forfeit_game, match.forfeit_seat)]
    return [
        f"forfeit in game {match.forfeit_game} by seat {match.forfeit_seat}"
        f" ({label}, {match.forfeit_reason})"
    ]
