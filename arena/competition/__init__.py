"""The ladder's pure logic: who plays whom with which seed, and the ratings from results.

No database and no I/O here: ``arena.store`` keeps schedules and results, and calls these.
"""

from .elo_ratings import Estimate, Fit, elo, elo_steps, fit, groups
from .matchmaking import (
    SCHEDULES,
    Adaptive,
    RoundRobin,
    ScheduleName,
    Scheduler,
    Situation,
    Table,
    scheduler_named,
)
from .pairs import Pair, PairGame
from .rating_choice import RATING_MODELS, model_named
from .rating_model import (
    EloFit,
    Ranking,
    RatingModel,
    SequentialElo,
    Shown,
    State,
    states_after,
    steps,
)
from .results import Record, ScoredMatch, entry_key, records
from .schedule import (
    FORMATS,
    MIXED_MAX_ENTRIES,
    Entry,
    Fixture,
    Format,
    ScheduleError,
    Seating,
    Team,
    grow,
    match_count,
    match_seed,
    round_robin,
)

__all__ = [
    "FORMATS",
    "MIXED_MAX_ENTRIES",
    "RATING_MODELS",
    "SCHEDULES",
    "Adaptive",
    "EloFit",
    "Entry",
    "Estimate",
    "Fit",
    "Fixture",
    "Format",
    "Pair",
    "PairGame",
    "Ranking",
    "RatingModel",
    "Record",
    "RoundRobin",
    "ScheduleError",
    "ScheduleName",
    "Scheduler",
    "ScoredMatch",
    "Seating",
    "SequentialElo",
    "Shown",
    "Situation",
    "State",
    "Table",
    "Team",
    "elo",
    "elo_steps",
    "entry_key",
    "fit",
    "groups",
    "grow",
    "match_count",
    "match_seed",
    "model_named",
    "pair_score",
    "records",
    "round_robin",
    "scheduler_named",
    "states_after",
    "steps",
]
