"""A bot's statistics from the tallies against from its replays, and what recording a result
costs now that the worker counts its tallies.

Builds a ladder in a fresh SQLite database (a temporary directory): two active bots and
``--matches`` played matches between them, each recorded through the job queue as a worker
records one (``claim_job``, then ``finish`` with the tallies counted from its replays), every
match's replay one real game of the sample bots (``random`` and ``heuristic``, played here
without a sandbox), stored as content-addressed blobs allow. Then, in ``--rounds``
interleaved rounds, the median of:

- ``arena bot``'s read: ``LocalLadder.bot_statistics`` (the versions' tallies, one query),
  beside the reference, the way ``arena bot`` read them before (every done match's two
  replays fetched through the ladder and their statistics computed, ``by_bot``);
- recording a result (``finish``, the result and its tallies in one transaction), beside
  the reference, what ``finish`` did besides before: read its stored replay back and count
  its statistics (the blob parsed, ``seat_statistics`` of both games).

Prints each pair and, last, ``ratio=<replays / tallies>`` for the read. Run from the
repository root: ``python bench/bot_statistics.py [--matches 200] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from web import real_replay  # bench/web.py's: one game of the sample bots

from arena.competition.statistics import Statistics, by_bot, seat_statistics
from arena.competition.tallies import PlayedPair, match_figures
from arena.engine.replay import Replay
from arena.league.api import LocalLadder
from arena.league.stored_files import StoredFiles
from arena.read_model import LADDER, TournamentKind
from arena.store import (
    JobKind,
    MatchResult,
    MatchSpec,
    MatchStatus,
    Store,
    VersionStatus,
    open_store,
)


def build(store: Store, data: StoredFiles, matches: int, game: dict[str, Any]) -> list[float]:
    """The ladder described above; the seconds each ``finish`` took."""
    user = store.authenticate(store.add_user("bench"))
    versions = []
    for name in ("heuristic", "random"):
        v = store.add_version(user, name, name.ljust(64, "0"), f"code/{name}", b"")
        assert v.id is not None
        store.set_status(v.id, VersionStatus.ACTIVE)
        versions.append(v.id)
    a, b = versions
    t = store.create_tournament(LADDER, seed=0, kind=TournamentKind.LADDER)
    assert t.id is not None
    store.enqueue(t.id, [MatchSpec(i, ((a, a), (b, b))) for i in range(matches)])
    # The game played heuristic, random, heuristic, random: the first game's seating; the
    # second seats everyone one seat on (the same cards, names swapped).
    games = [
        dict(game, players=[dict(p, name=names[p["seat"] % 2]) for p in game["players"]])
        for names in (("heuristic v1", "random v1"), ("random v1", "heuristic v1"))
    ]
    replays = [Replay.from_dict(g) for g in games]
    key = data.store_json({"games": games})
    first, second = (tuple(r.result.totals) for r in replays)
    result = MatchResult.from_seat_totals(first, second, None, replay_path=key)  # type: ignore[arg-type]
    by_seat = [seat_statistics(r) for r in replays]
    timings = []
    for _ in range(matches):
        job = store.claim_job("bench", kinds=(JobKind.MATCH,))
        assert job is not None
        played = PlayedPair(job.match.seats, result.points, result.winner)
        tallied = replace(result, tallies=match_figures(played, {a: 1, b: 2}, by_seat))
        start = time.perf_counter()
        assert store.finish(job, "bench", tallied)
        timings.append(time.perf_counter() - start)
    return timings


def replays_read(ladder: LocalLadder) -> dict[str, Any]:
    """``arena bot heuristic``'s figures as it read them before: from every replay."""
    done = ladder.matches(LADDER, MatchStatus.DONE, "heuristic")
    replays = [ladder.replay(m.id, game) for m in done for game in (1, 2)]
    return by_bot(replays)["heuristic v1"].to_dict()


def tallies_read(ladder: LocalLadder) -> dict[str, Any]:
    found = ladder.bot_statistics("heuristic", LADDER)
    return found.versions["heuristic v1"]


def reparse(data: StoredFiles, key: str) -> None:
    """What ``finish`` did before, beside recording: its replay read back and counted."""
    for game in data.read_json(key)["games"]:
        seat_statistics(Replay.from_dict(game))


def median_ms(run: Callable[[], object], rounds: list[float]) -> None:
    start = time.perf_counter()
    run()
    rounds.append((time.perf_counter() - start) * 1000)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    game = real_replay(7)
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"sqlite:///{tmp}/arena.db")
        try:
            data = StoredFiles(store, Path(tmp) / "cache")
            finishes = build(store, data, args.matches, game)
            ladder = LocalLadder(store, data)
            key = store.matches(store.tournament(LADDER).id or 0)[0].replay_path or ""
            tallies: list[float] = []
            replays: list[float] = []
            parses: list[float] = []
            for round_ in range(args.rounds):
                pair = [(tallies_read, tallies), (replays_read, replays)]
                for read, kept in pair if round_ % 2 == 0 else pair[::-1]:
                    median_ms(lambda read=read: read(ladder), kept)  # type: ignore[misc]
                median_ms(lambda: reparse(data, key), parses)
            # The same figures both ways (no think time: ``arena play`` records none).
            shown = Statistics.from_record(tallies_read(ladder)).to_dict()
            expected = replays_read(ladder)
            assert shown == expected and shown["games"] == 4 * args.matches, (shown, expected)
        finally:
            store.close()
    read_t, read_r = statistics.median(tallies), statistics.median(replays)
    finish = statistics.median(finishes) * 1000
    print(
        f"arena bot over {args.matches} matches: tallies {read_t:.1f} ms, replays {read_r:.1f} ms"
    )
    print(
        f"recording a result: finish {finish:.2f} ms; the replay read back and counted,"
        f" as finish did before, {statistics.median(parses):.2f} ms more"
    )
    print(f"ratio={read_r / read_t:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
