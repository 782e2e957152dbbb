"""Where a bot's note on a decision goes in the replay: the dealing, and the bid or the play.

The referee asks for the place before it applies the decision (``note_place``) and hands
the notes to ``build_replay``, which writes each on its bid (``note``) or beside its play
(the trick's ``notes``), docs/replay.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from .state import GameState, Phase


@dataclass(frozen=True)
class NotePlace:
    dealing: int  # 0-based place in the replay's ``deals``
    trick: int | None  # 0-based within the dealing; None for a bid
    index: int  # the bid's place in the bidding, or the play's in its trick


def note_place(state: GameState) -> NotePlace:
    """The place of the decision the seat to act is about to make."""
    dealing = len(state.deals) - 1
    record = state.current_deal
    if state.phase is Phase.BIDDING:
        return NotePlace(dealing, None, len(record.bids))
    return NotePlace(dealing, len(record.tricks), len(state.trick.cards))
