"""The ladder's invariants: checked by every ``arena status`` (``problems``), mended by
``arena doctor --repair`` and by every worker as it starts (``repair``).

Each write that spans several rows is one transaction (settling a version, a tournament with
its schedule, a result with its tallies) or a step any worker completes again (ratings,
applied in schedule order; a silent claim, taken back). These checks find what a crash, or
an older release, left undone anyway:

- ``several_active``: a bot with more than one active version (only its newest plays).
- ``missing_matches``: two ladder entries (each bot's newest active version) with fewer
  matches between them than the ladder's ``games_per_pairing`` (format ``pairs`` only).
- ``silent_match`` / ``silent_validation``: running on a worker not heard from for longer
  than the limit (a worker would take it back at its next claim).
- ``validated_pending``: a validation game done while its version is still pending.
- ``unrated``: finished matches that every match before them allows to rate, not rated.

An adaptive ladder's entries need not all meet, so ``missing_matches`` is a round-robin
ladder's check. An adaptive tournament whose next batch is due but not queued (a worker
died between a result and its plan) is not reported (planning reads every match and fits
the ratings: too dear for a page polled every few seconds), only mended by ``repair``.

Each query is narrow (indexes, or the entries' matches grouped), cheap enough for a status
page polled every few seconds.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from functools import partial

from arena.competition import grow
from arena.host.inert import inert
from arena.read_model import LADDER, Problem, ScheduleKind, TournamentFormat, plural
from arena.store import JobKind, MatchSpec, NotFound, Store, Tournament

from .apply_ratings import update_ratings
from .labels import Labels
from .schedules import top_up
from .seed_keys import key_under


def problems(store: Store, silent_after: float, now: float | None = None) -> list[Problem]:
    """Every broken invariant found, in the order above."""
    now = time.time() if now is None else now
    labels = Labels(store)
    found: list[Problem] = []
    for bot_id, versions in sorted(store.bots_with_several_active().items()):
        named = ", ".join(labels(v) for v in versions)
        bot = store.bot_by_id(bot_id).name
        detail = f"bot {bot} has {len(versions)} active versions: {named}"
        found.append(_problem("several_active", detail))
    ladder = _ladder(store)
    round_robin = ladder is None or ladder.schedule == ScheduleKind.ROUND_ROBIN
    if round_robin and (ladder is None or ladder.format == TournamentFormat.PAIRS):
        for version, others in _missing(store, ladder):
            lacking = ", ".join(labels(o) for o in others)
            found.append(
                _problem(
                    "missing_matches",
                    f"ladder: {labels(version)} has no match scheduled against {lacking}",
                )
            )
    for job in store.silent_jobs(silent_after, now):
        row = job.row
        silent = now - (row.heartbeat_at or 0)
        if job.kind == JobKind.VALIDATION:
            kind, what = "silent_validation", f"the validation of {labels(job.id)}"
        else:
            kind, what = "silent_match", f"match {job.id} (index {job.match.schedule_index})"
        found.append(
            _problem(
                kind,
                f"{what} is running on {row.worker_id}, silent for {silent:.0f} s"
                f" (limit {silent_after:g} s)",
            )
        )
    for version_id in store.validated_but_pending():
        found.append(
            _problem(
                "validated_pending",
                f"{labels(version_id)}: its validation game is done, yet it is still pending",
            )
        )
    for tournament in store.tournaments():
        assert tournament.id is not None
        ready = store.unrated_ready(tournament.id)
        if ready:
            found.append(
                _problem(
                    "unrated",
                    f"tournament {tournament.name}: {ready} finished matches ready to rate"
                    " are not rated",
                )
            )
    return found


def repair(store: Store, silent_after: float) -> list[str]:
    """Mend what ``problems`` finds, each step idempotent and safe beside running workers;
    what was done, one line each."""
    done: list[str] = []
    labels = Labels(store)
    for bot_id in sorted(store.bots_with_several_active()):
        for version in store.retire_all_but_newest(bot_id):
            done.append(f"retired {labels(version)}: its bot has a newer active version")
    for job in store.reap_jobs(silent_after):
        if job.kind == JobKind.VALIDATION:
            done.append(f"the validation of {labels(job.id)} taken back ({job.row.last_error})")
        else:
            done.append(f"match {job.id} taken back ({job.row.last_error}): {job.row.status}")
    for version_id in store.validated_but_pending():
        if store.replay_validation(version_id):
            done.append(f"the validation of {labels(version_id)} queued to be played again")
    scheduled = store.repair_ladder(LADDER, partial(missing_matches, store.deal_secret()))
    if scheduled:
        done.append(f"ladder: {plural(scheduled, 'missing match')} scheduled")
    for tournament in store.tournaments():
        assert tournament.id is not None
        if not store.unrated_ready(tournament.id):
            continue  # the cheap check first: rating reads the whole schedule
        rated = update_ratings(store, tournament.id)
        if rated:
            matches = plural(rated, "finished match")
            done.append(f"tournament {tournament.name}: {matches} rated")
    for tournament in store.tournaments():
        assert tournament.id is not None
        queued = top_up(store, tournament.id)
        if queued:
            matches = plural(queued, "match")
            done.append(f"tournament {tournament.name}: its next {matches} scheduled")
    return done


def missing_matches(
    secret: bytes,
    tournament: Tournament,
    entries: Sequence[int],
    counts: Mapping[tuple[int, int], int],
    start: int,
) -> list[MatchSpec]:
    """The matches the ladder lacks between its entries (format ``pairs``), appended at
    ``start``: each pair's repetitions not yet scheduled, oriented and seeded (under the
    deal ``secret``) as ``grow`` would have at their new place in the schedule."""
    if tournament.format != TournamentFormat.PAIRS or tournament.schedule != "round-robin":
        return []  # an adaptive ladder's entries need not all meet
    specs: list[MatchSpec] = []
    for i, new in enumerate(entries):
        for old in entries[:i]:
            have = counts.get((old, new), 0) + counts.get((new, old), 0)
            if have >= tournament.games_per_pairing:
                continue
            # grow's repetitions of this one pairing; those scheduled already dropped.
            at = start + len(specs) - have
            key = key_under(secret, tournament)
            pairing = grow([old], new, "pairs", tournament.games_per_pairing, key, at)
            specs.extend(MatchSpec(m.seed, m.teams) for m in pairing[have:])  # type: ignore[arg-type]
    return specs


def _missing(store: Store, ladder: Tournament | None) -> list[tuple[int, list[int]]]:
    """Each ladder entry lacking matches against older entries, with those entries."""
    entries, counts = store.ladder_pair_counts(None if ladder is None else ladder.id)
    if len(entries) < 2:
        return []
    wanted = 1 if ladder is None else ladder.games_per_pairing
    out = []
    for i, new in enumerate(entries):
        lacking = [
            old
            for old in entries[:i]
            if counts.get((old, new), 0) + counts.get((new, old), 0) < wanted
        ]
        if lacking:
            out.append((new, lacking))
    return out


def _problem(kind: str, detail: str) -> Problem:
    """Every problem found so far is one ``repair`` mends; bots' names in it made inert for
    every page, terminal and JSON that shows it."""
    return Problem(kind, inert(detail), repairable=True)


def _ladder(store: Store) -> Tournament | None:
    try:
        return store.tournament(LADDER)
    except NotFound:
        return None
