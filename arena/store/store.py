"""``Store``: the one object the rest of the arena talks to the database through."""

from __future__ import annotations

from .accounts import Accounts, LadderEntry
from .blobs import Blobs
from .invariants import Invariants
from .jobs import MAX_ATTEMPTS, Job, JobKind
from .queue import ForfeitInfo, MatchResult, MatchSpec, Queue
from .ratings import Ratings, RatingStep
from .secrets import DealSecrets
from .settling import Settled, Settling
from .tallies import Tallies
from .tokens import Tokens, token_hash
from .tournaments import Tournaments
from .validations import Validations
from .workers import Workers

__all__ = [
    "MAX_ATTEMPTS",
    "ForfeitInfo",
    "Job",
    "JobKind",
    "LadderEntry",
    "MatchResult",
    "MatchSpec",
    "RatingStep",
    "Settled",
    "Store",
    "token_hash",
]


class Store(
    Accounts,
    Tokens,
    Tournaments,
    Blobs,
    Queue,
    Validations,
    Settling,
    Invariants,
    Ratings,
    Tallies,
    Workers,
    DealSecrets,
):
    """Users and their tokens, bots, tournaments, stored files, the job queue (matches
    and validation games), versions settled onto the ladder, the checks of its invariants,
    ratings, versions' tallies, workers and the deal secret; open it with
    ``arena.store.open_store``. Each method is one transaction."""
