"""``arena compare``: duplicate pairs of A against B, played here or queued for the
workers, fed to the SPRT in seed order by one loop (``compare_lines``), until it decides.

The comparison is a tournament of kind ``compare`` (named ``compare-<A>-<B>-<n>``) whose
matches workers claim ahead of ladder and tournament matches. ``batch`` pairs are kept
queued ahead of the verdict; once it is reached (or the caller goes away), the pairs still
queued are cancelled. Pair *i* is played on seed ``seed + i``, A+A at seats 0+2 of the first
game, exactly as the local ``arena compare`` plays it, so both give the same pairs. Both
end with A's and B's statistics over the pairs the test counted, from the pairs' replays
(played here, or as the workers stored them), without think time: a seeded comparison
prints the same lines every run, here or queued. Played here, a pair's line holds every
forfeit with where it happened; the store keeps only the first forfeit of a pair, the one
that decides it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, replace

from arena.bots.limits import Limits
from arena.competition.pairs import Pair, team_in_game
from arena.competition.sprt import PAIR, PENTANOMIAL, Sprt, closing_lines, opening_line
from arena.competition.sprt import pair_line as sprt_pair_line
from arena.competition.statistics import Statistics, seat_statistics
from arena.engine.replay import Replay
from arena.play.bot_specs import BotSpec
from arena.play.tables import GameSettings, PlayedGame, game_replay, pair_of, play_many
from arena.read_model import CompareLine, CompareSettings, parse_version
from arena.render import forfeit_where, statistics_lines
from arena.sandbox import Sandbox
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
from .matches import stored_pair
from .stored_files import StoredFiles


def resolve_version(store: Store, spec: str) -> BotVersion:
    """``name``: the bot's active version; ``name@N``: its version N (``parse_version``)."""
    name, number = parse_version(spec)
    versions = store.versions(name)
    if number is not None:
        found = [v for v in versions if v.number == number]
        if not found:
            raise NotFound(f"bot {name!r} has no version {number}")
        return found[0]
    active = [v for v in versions if v.status == VersionStatus.ACTIVE]
    if not active:
        raise NotFound(f"bot {name!r} has no active version (name@N picks one)")
    return active[-1]


@dataclass(frozen=True)
class ComparedPair:
    """A played pair of A+A against B+B, as the comparison counts it."""

    seed: int
    pair: Pair  # team 0 is A's
    forfeits: tuple[str, ...]  # a note per forfeit, for the pair's line
    replays: tuple[Replay, ...]  # both games', for the statistics


def compare_lines(
    settings: CompareSettings, labels: tuple[str, str], pairs: Generator[ComparedPair, None, None]
) -> Iterator[CompareLine]:
    """The one comparison loop: ``pairs`` (played here or by the workers) fed to the SPRT in
    seed order until it decides or ``max_pairs``; then ``pairs`` is closed, which stops what
    it still plays. If ``pairs`` ends first (its caller went away), so do the lines."""
    sprt = sprt_of(settings)
    yield opening_line(sprt, labels[0], labels[1], settings.seed), None
    counted: list[Replay] = []  # the replays of the pairs the test counted
    try:
        while sprt.verdict is None and sprt.pairs < settings.max_pairs:
            played = next(pairs, None)
            if played is None:
                return
            pair = played.pair
            sprt.update(pair.pentanomial_score if settings.pentanomial else pair.score)
            counted.extend(played.replays)
            yield sprt_pair_line(sprt, played.seed, pair.points, played.forfeits), None
    finally:
        pairs.close()
    if counted:
        yield "statistics, per bot:", None
        for side, stats in zip("AB", sides_statistics(counted), strict=True):
            for line in statistics_lines(side, stats):
                yield f"  {line}", None
    lines = closing_lines(sprt)
    yield lines[0], None
    yield lines[1], sprt.verdict


def sprt_of(settings: CompareSettings) -> Sprt:
    """The test the settings ask for: pair scores, or pentanomial ones."""
    kind = PENTANOMIAL if settings.pentanomial else PAIR
    return Sprt(settings.elo0, settings.elo1, settings.alpha, settings.beta, kind)


def sides_statistics(replays: list[Replay]) -> tuple[Statistics, Statistics]:
    """A's and B's figures over pairs' replays (game 1, game 2, game 1, ...), by the team
    each seat is on in its game, not by name: ``arena compare h h`` has two sides too. Think
    time left out: it is the machine's, and the lines of a seeded comparison are the same."""
    sides: tuple[list[Statistics], list[Statistics]] = ([], [])
    for index, replay in enumerate(replays):
        for seat, stats in enumerate(seat_statistics(replay)):
            sides[team_in_game(index % 2 + 1, seat)].append(stats)
    a, b = (
        replace(Statistics.total(side), decisions=0, think_total_ms=0.0, think_max_ms=None)
        for side in sides
    )
    return a, b


def forfeit_note(game: int, seat: int, label: str, reason: str, where: str = "") -> str:
    return f"forfeit in game {game} by seat {seat}{where} ({label}, {reason})"


# ------------------------------------------------------------------ played here


def compare_locally(
    specs: tuple[BotSpec, BotSpec], sandbox: Sandbox, settings: CompareSettings, limits: Limits
) -> Iterator[CompareLine]:
    """A against B played here, ``settings.batch`` pairs at a time."""
    labels = (specs[0].label, specs[1].label)
    return compare_lines(settings, labels, _played_here(specs, sandbox, settings, limits))


def _played_here(
    specs: tuple[BotSpec, BotSpec], sandbox: Sandbox, settings: CompareSettings, limits: Limits
) -> Generator[ComparedPair, None, None]:
    a, b = specs
    game_settings = GameSettings(limits=limits)
    played = 0
    while played < settings.max_pairs:
        batch = min(settings.batch, settings.max_pairs - played)
        seeds = range(settings.seed + played, settings.seed + played + batch)
        games = play_many(
            [a, b, a, b], seeds, sandbox, duplicate=True, concurrency=settings.batch,
            settings=game_settings,
        )  # fmt: skip
        for first, second in zip(games[::2], games[1::2], strict=True):
            # Replays without think time: a seeded comparison prints the same lines every run.
            replays = (game_replay(first), game_replay(second))
            yield ComparedPair(first.seed, pair_of(first, second), _notes(first, second), replays)
        played += batch


def _notes(first: PlayedGame, second: PlayedGame) -> tuple[str, ...]:
    return tuple(
        forfeit_note(number, f.seat, game.bots[f.seat].label, f.reason, forfeit_where(f))
        for number, game in ((1, first), (2, second))
        if (f := game.outcome.forfeit) is not None
    )


# ------------------------------------------------------------------ queued for the workers


def compare_queued(
    store: Store,
    data: StoredFiles,
    a: str,
    b: str,
    settings: CompareSettings,
    *,
    stop: Callable[[], bool] = lambda: False,
) -> Iterator[CompareLine]:
    """The comparison's lines as the workers finish its pairs (run it while you read).
    Once ``stop()`` is true it ends where it is, without a verdict, its queued pairs
    cancelled."""
    va, vb = resolve_version(store, a), resolve_version(store, b)
    assert va.id is not None and vb.id is not None
    label = Labels(store)
    labels = (label(va.id), label(vb.id))
    name = f"compare-{a}-{b}-{time.time_ns()}"[:64]
    # Unpaced: both partners are one version of one author, the verdict rates nothing on the
    # ladder, and someone waits for it (a paced game of fast bots takes 45 s, not 2).
    tournament = store.create_tournament(
        name, seed=settings.seed, kind=TournamentKind.COMPARE, limits={"pace_ms": 0}
    )
    assert tournament.id is not None
    teams = ((va.id, va.id), (vb.id, vb.id))
    pairs = _queued(store, data, tournament.id, teams, labels, settings, stop)
    return compare_lines(settings, labels, pairs)


def _queued(
    store: Store,
    data: StoredFiles,
    tid: int,
    teams: tuple[tuple[int, int], tuple[int, int]],
    labels: tuple[str, str],
    settings: CompareSettings,
    stop: Callable[[], bool],
) -> Generator[ComparedPair, None, None]:
    """The pairs in seed order as workers finish them, ``batch`` kept queued ahead of the
    one awaited; what is still queued is cancelled when the comparison closes this."""
    queued = index = 0
    try:
        while index < settings.max_pairs:
            wanted = min(index + settings.batch, settings.max_pairs)
            if queued < wanted:
                seeds = range(settings.seed + queued, settings.seed + wanted)
                store.enqueue(tid, [MatchSpec(seed, teams) for seed in seeds])
                queued = wanted
            if stop():
                return
            ready = _next_done(store, tid, index)
            if ready is None:
                time.sleep(settings.poll_s)
                continue
            assert ready.replay_path is not None  # a done match has its replays
            replays = tuple(data.read_replays(ready.replay_path))
            yield ComparedPair(ready.seed, stored_pair(ready), _forfeits(ready, labels), replays)
            index += 1
    finally:
        store.cancel_queued(tournament_id=tid)


def _next_done(store: Store, tournament_id: int, index: int) -> Match | None:
    match = store.match_at(tournament_id, index)
    if match.status == MatchStatus.ERROR:
        raise StoreError(f"pair {index + 1} (match {match.id}) failed: {match.last_error}")
    return match if match.status == MatchStatus.DONE else None


def _forfeits(match: Match, labels: tuple[str, str]) -> tuple[str, ...]:
    """The store keeps the first forfeit only: the one that decided the pair."""
    if match.forfeit_game is None or match.forfeit_seat is None:
        return ()
    team = team_in_game(match.forfeit_game, match.forfeit_seat)
    reason = match.forfeit_reason or ""
    return (forfeit_note(match.forfeit_game, match.forfeit_seat, labels[team], reason),)
