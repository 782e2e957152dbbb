"""The rule parameters that are ours to choose, and the fixed deal schedule."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

SEATS = 4
NUM_DEALS = 25
# 13, 12, ..., 2, 1, 2, ..., 13 cards: deal number k (1-based) has HAND_SIZES[k - 1] cards.
HAND_SIZES: tuple[int, ...] = tuple(range(13, 0, -1)) + tuple(range(2, 14))
assert len(HAND_SIZES) == NUM_DEALS


def team_of(seat: int) -> int:
    """Seats 0 and 2 are team 0; seats 1 and 3 are team 1."""
    return seat & 1


def partner_of(seat: int) -> int:
    return (seat + 2) % SEATS


class RulesError(ValueError):
    """A rule parameter out of its range, or one we don't know."""


@dataclass(frozen=True)
class Rules:
    """Rule variants the printed rules leave open. Recorded in every replay.

    ``max_redeals``: after this many consecutive all-pass redeals, an all-pass deal is
    played with both contracts 0 instead of being redealt again (the printed rules would
    redeal forever).
    """

    max_redeals: int = 5

    def __post_init__(self) -> None:
        if not isinstance(self.max_redeals, int) or self.max_redeals < 0:
            raise RulesError(f"max_redeals must be an int >= 0, got {self.max_redeals!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        unknown = set(data) - {"max_redeals"}
        if unknown:
            raise RulesError(f"unknown rule parameter(s): {', '.join(sorted(unknown))}")
        return cls(**data)
