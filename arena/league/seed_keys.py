"""The key a tournament's match seeds are drawn from: the deployment's deal secret (made at
first use, in the database) with the tournament's id and seed, through HMAC-SHA256.

Nobody without the database can compute a match's deals before it is played: not a bot
(it sees its own seed, derived one way from the game's), not an author who reads this code,
not another deployment. The seeds are stored with each match when it is scheduled, so a
tournament replays the same whatever the workers, and rotating the secret
(``arena secret rotate``) changes only the matches scheduled after it.
"""

from __future__ import annotations

import hashlib
import hmac

from arena.store import Tournament


def key_under(secret: bytes, tournament: Tournament) -> bytes:
    """The key of ``tournament``'s schedule (``competition.schedule.match_seeds``) under the
    deal ``secret`` (``Store.deal_secret``, read before the transaction that schedules)."""
    message = f"backalley/match-seeds/{tournament.id}/{tournament.seed}".encode()
    return hmac.new(secret, message, hashlib.sha256).digest()
