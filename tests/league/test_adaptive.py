"""The adaptive schedule in the league: a ladder set adaptive places 20 bots of known
strengths, ranking the top three as the round-robin does in under a third of its matches;
the schedule is the same whatever order the workers finish in; a tournament created
adaptive is topped up by the worker as its results come in (process sandbox).

The 20-bot ladders are played here, in process: the league's store, settling, ratings and
top-ups as the worker runs them, each match's two games played by the referee over players
in this process (the sandbox is not the subject; a game takes milliseconds, not seconds).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.bots.submission import content_hash, pack
from arena.competition.pairs import second_seating
from arena.engine import Observation, Rules
from arena.engine.bids import PASS
from arena.engine.events import Event
from arena.league.apply_ratings import update_ratings
from arena.league.doctor import repair
from arena.league.schedules import top_up
from arena.league.standings import standings
from arena.league.stored_files import code_key
from arena.league.submit import settle
from arena.league.tournaments import create_tournament
from arena.read_model import LADDER, SILENT_AFTER_S, MatchStatus, RatingModelName, ScheduleKind
from arena.referee.game import run_game
from arena.store import JobKind, Match, MatchResult, Store, open_store
from arena.store.models import DealSecret

from .conftest import Arena, bot_copy

# The 20 bots' strengths: the share of their bids that pass (the rest are random, and a
# random bid is usually a loss); their play is random. The top three stand well apart.
LEVELS = [1.0, 0.8, 0.6] + [0.3 * i / 16 for i in range(17)]
SECRET = bytes(range(32))  # both ladders of a comparison deal alike


class LevelPlayer:
    """Passes with probability ``level`` when it may, else plays a random legal action; its
    ``rng`` seeded by Hello, as a bot's is."""

    def __init__(self, level: float) -> None:
        self.level = level
        self.rng = random.Random()

    def hello(self, bot_seed: int, rules: Rules) -> None:
        self.rng.seed(bot_seed)

    def choose(self, obs: Observation) -> int:
        if PASS in obs.legal_actions and self.rng.random() < self.level:
            return PASS
        return self.rng.choice(obs.legal_actions)

    def notify(self, event: Event) -> None:
        pass


@contextmanager
def ladder_of(
    tmp: Path, schedule: ScheduleKind, count: int = len(LEVELS)
) -> Iterator[tuple[Store, dict[int, float]]]:
    """A fresh ladder set to ``schedule`` before its first entry, the first ``count`` of the
    20 bots joined in a shuffled order (strength unrelated to when they join); their
    versions' levels."""
    tmp.mkdir()
    store = open_store(f"sqlite:///{tmp / 'arena.db'}")
    try:
        with store._session(write=True) as session:  # the secret, before anything uses it
            session.add(DealSecret(generation=1, secret=SECRET, created_at=time.time()))
        store.set_schedule(LADDER, schedule, ladder=LADDER)
        user = store.authenticate(store.add_user("owner"))
        levels = {}
        order = list(range(count))
        random.Random(5).shuffle(order)
        for i in order:
            code = bot_copy("random", tmp / f"level{i}", note=f"level {i}")
            digest = content_hash(code)
            version = store.add_version(user, f"level{i:02}", digest, code_key(digest), pack(code))
            assert version.id is not None
            settle(store, version.id, None)
            levels[version.id] = LEVELS[i]
        yield store, levels
    finally:
        store.close()


def play(match: Match, levels: dict[int, float]) -> MatchResult:
    """The match's two games, the second seated one seat on, by the versions' levels."""
    first = match.seats
    games = [
        run_game([LevelPlayer(levels[v]) for v in seating], match.seed)
        for seating in (first, second_seating(first))
    ]
    (a1, b1), (a2, b2) = (g.state.totals for g in games)
    result = MatchResult.from_seat_totals((a1, b1), (a2, b2), None)
    a, b = result.points
    return MatchResult(result.totals, 0 if a > b else 1 if b > a else None)


def work(
    store: Store,
    levels: dict[int, float],
    *,
    claim_at_once: int = 1,
    budget: int = 10**6,
    tournament_id: int | None = None,
) -> int:
    """What workers do until the queue is empty (or ``budget`` matches are played): claim,
    play, record, rate, top up; how many were played. With ``claim_at_once`` > 1, that many
    are claimed and their results recorded last first."""
    played = 0
    while played < budget:
        want = min(claim_at_once, budget - played)
        claimed = [
            job
            for _ in range(want)
            if (job := store.claim_job("w", kinds=[JobKind.MATCH], tournament_id=tournament_id))
            is not None
        ]
        if not claimed:
            return played
        played += len(claimed)
        for job in reversed(claimed):
            match = job.match
            assert store.finish(job, "w", play(match, levels))
            update_ratings(store, match.tournament_id)
            top_up(store, match.tournament_id)
    return played


def top3(store: Store, levels: dict[int, float]) -> list[float]:
    table = standings(store, store.tournament(LADDER))
    return [levels[s.version_id] for s in table[:3]]


def schedule_of(store: Store) -> list[tuple[int, tuple[int, int, int, int]]]:
    ladder = store.tournament(LADDER)
    assert ladder.id is not None
    return [(m.seed, m.seats) for m in store.matches(ladder.id)]


@pytest.mark.slow  # in process, yet 440 matches: 25-30 s of CPU
def test_an_adaptive_ladder_ranks_the_top_three_in_a_third_of_the_round_robin(
    tmp_path: Path,
) -> None:
    with ladder_of(tmp_path / "rr", ScheduleKind.ROUND_ROBIN) as (store, levels):
        assert work(store, levels) == 190
        round_robin = top3(store, levels)
    assert round_robin == [1.0, 0.8, 0.6]
    budget = 190 // 3  # under a third of the round-robin's matches
    with ladder_of(tmp_path / "ad", ScheduleKind.ADAPTIVE) as (store, levels):
        assert len(schedule_of(store)) == len(LEVELS) - 1  # each join: one placement match
        assert work(store, levels, budget=budget) == budget
        assert top3(store, levels) == round_robin
        schedule = schedule_of(store)
    # Workers finishing out of order (three claimed at once, the last recorded first) get
    # the same schedule: each batch is planned from the results before its cutoff.
    with ladder_of(tmp_path / "ad3", ScheduleKind.ADAPTIVE) as (store, levels):
        work(store, levels, claim_at_once=3, budget=budget)
        again = schedule_of(store)
    common = min(len(schedule), len(again))
    assert common > budget * 0.8 and again[:common] == schedule[:common]


def test_an_adaptive_tournament_plays_mixed_tables_rated_by_openskill(tmp_path: Path) -> None:
    with ladder_of(tmp_path / "mixed", ScheduleKind.ADAPTIVE, 6) as (store, levels):
        names = [f"level{i:02}" for i in range(6)]
        cup, first = create_tournament(
            store, "cup", names, "mixed", rating=RatingModelName.OPENSKILL,
            schedule=ScheduleKind.ADAPTIVE,
        )  # fmt: skip
        assert cup.id is not None and 0 < first < 6
        played = work(store, levels, tournament_id=cup.id)
        matches = store.matches(cup.id)
        assert played == len(matches) > first  # topped up as results came in
        assert all(len(set(m.seats)) == 4 for m in matches)
        assert {v for m in matches for v in m.seats} == {store.versions(n)[0].id for n in names}
        table = standings(store, cup)
        assert len(table) == 6 and all(s.rating_model == "openskill" for s in table)


def test_a_batch_a_killed_worker_never_planned_is_queued_by_the_next_worker_s_repair(
    tmp_path: Path,
) -> None:
    with ladder_of(tmp_path / "killed", ScheduleKind.ADAPTIVE, 8) as (store, levels):
        ladder = store.tournament(LADDER)
        assert ladder.id is not None
        while (job := store.claim_job("w", kinds=[JobKind.MATCH])) is not None:
            # recorded and rated, never topped up
            assert store.finish(job, "w", play(job.match, levels))
            update_ratings(store, ladder.id)
        assert store.status_counts(ladder.id)[MatchStatus.QUEUED] == 0
        (line,) = repair(store, SILENT_AFTER_S)
        queued = store.status_counts(ladder.id)[MatchStatus.QUEUED]
        noun = "match" if queued == 1 else "matches"
        assert line == f"tournament ladder: its next {queued} {noun} scheduled" and queued > 0
        assert repair(store, SILENT_AFTER_S) == []  # the batch is there: nothing more due


def test_a_tournament_created_adaptive_is_topped_up_by_the_worker(
    sqlite_arena: Arena, tmp_path: Path
) -> None:
    token = sqlite_arena.user("alice")
    set_ladder = sqlite_arena.ok("tournament", "schedule", "ladder", "adaptive")
    assert set_ladder.stdout == "tournament ladder: schedule adaptive\n"
    for name in ("a", "b", "c"):
        sqlite_arena.seed(token, name, bot_copy("random", tmp_path / name, note=name))
    with sqlite_arena.store() as store:
        ladder = store.tournament(LADDER)
        assert ladder.id is not None
        assert len(store.matches(ladder.id)) == 2  # each join after the first: one match
    created = sqlite_arena.ok(
        "tournament", "create", "cup", "--bots", "a,b", "--schedule", "adaptive", "--pace-ms", "0"
    )
    assert created.stdout == "tournament cup: 1 match scheduled (more as results come in)\n"
    sqlite_arena.ok("tournament", "run", "cup", "--sandbox", "process", "--concurrency", "2")
    with sqlite_arena.store() as store:
        cup = store.tournament("cup")
        assert cup.id is not None and cup.schedule == ScheduleKind.ADAPTIVE
        matches = store.matches(cup.id)
    # Two entries meet until their order is certain or they have met MAX_PER_PAIR times.
    assert len(matches) > 1 and all(m.status == "done" for m in matches)
