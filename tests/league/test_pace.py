"""A stored tournament's pace reaches its games: ``arena tournament create --pace-ms`` stores
one, and a tournament that stores none (the ladder) plays at the deployment's
(``ARENA_LADDER_PACE_MS``). Seen from inside: Hello tells a bot its free time per decision,
which is the pace at a paced table."""

from __future__ import annotations

import re
from pathlib import Path

from .conftest import Arena, bot_copy

TELLER = """
from arena_sdk import Bot, run

class Teller(Bot):
    def on_game_start(self, seat, limits):
        print(f"move_ms {limits.move_ms}", flush=True)

    def bid(self, obs):
        return obs.legal_bids[0]

    def play(self, obs):
        return obs.legal_plays[0]

if __name__ == "__main__":
    run(Teller())
"""


def told(arena: Arena, token: str, match_id: int) -> set[int]:
    """The free times the teller was told in the match's games."""
    logs = arena.ok("logs", match_id, "teller", "--token", token).stdout
    return {int(ms) for ms in re.findall(r"move_ms (\d+)", logs)}


def test_a_tournaments_stored_pace_and_the_ladders_reach_the_bots(
    sqlite_arena: Arena, tmp_path: Path
) -> None:
    arena = sqlite_arena
    token = arena.user("alice")
    teller = tmp_path / "teller"
    teller.mkdir()
    (teller / "bot.py").write_text(TELLER)
    arena.seed(token, "teller", teller)
    arena.seed(token, "r1", bot_copy("random", tmp_path / "r1", "r1"))  # the ladder's match

    refused = arena.run("tournament", "create", "cup", "--bots", "teller,r1", "--pace-ms", 1001)
    assert refused.returncode == 2, refused.stderr
    arena.ok("tournament", "create", "cup", "--bots", "teller,r1", "--pace-ms", 2)
    arena.ok("tournament", "create", "open", "--bots", "teller,r1")
    with arena.store() as store:
        assert store.tournament("cup").limits == {"pace_ms": 2}
        assert store.tournament("open").limits == {}  # the ladder's pace, whatever it is then
        ids = {}
        for name in ("cup", "ladder"):
            tournament_id = store.tournament(name).id
            assert tournament_id is not None
            ids[name] = [m.id for m in store.matches(tournament_id)]
    arena.ok("tournament", "run", "cup", "--sandbox", "process")
    ladder = arena.run(
        "tournament", "run", "ladder", "--sandbox", "process", env={"ARENA_LADDER_PACE_MS": "3"}
    )
    assert ladder.returncode == 0, ladder.stderr
    ((cup_match,), (ladder_match,)) = ids["cup"], ids["ladder"]
    assert cup_match is not None and ladder_match is not None
    assert told(arena, token, cup_match) == {2}
    assert told(arena, token, ladder_match) == {3}
