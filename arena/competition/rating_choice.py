"""The rating model a tournament chose, by its stored name (``arena tournament create
--rating``)."""

from __future__ import annotations

from .rating_model import EloFit, RatingModel

RATING_MODELS = ("elo", "openskill")  # what ``arena tournament create --rating`` takes


def model_named(name: str) -> RatingModel:
    """The model a tournament chose, by its stored name."""
    if name == "elo":
        return EloFit()
    if name == "openskill":
        from .weng_lin import WengLin  # openskill is loaded only where a tournament uses it

        return WengLin()
    raise ValueError(f"no rating model {name!r} (one of {', '.join(RATING_MODELS)})")
