"""Breaks `legal-play`: plays a card it may not (off suit when it must follow, else one it
does not hold)."""

from arena_sdk import Bot, run
from arena_sdk.cards import ALL_CARDS


class IllegalPlay(Bot):
    def bid(self, obs):
        return "pass"

    def play(self, obs):
        wrong = [c for c in obs.hand if c not in obs.legal_plays]
        held = {c.name for c in obs.hand}
        return wrong[0] if wrong else next(c for c in ALL_CARDS if c not in held)


if __name__ == "__main__":
    run(IllegalPlay())
