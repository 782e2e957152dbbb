"""Nobody can compute a hidden card before it is played, attacked as an author would.

A bot that captures its own seed, inverts it as version 1 allowed, and searches the small
seeds for one that deals it its own hand predicts the other seats' cards no better than
chance in a game whose seed is secret (as every ladder seed is), and every one of them where
the seed is small (`arena play --seed 7`: the control that shows the attack works). Two
fresh ladders deal different cards, from the deployment's secret, and a match's seed is
shown to no one before the match is played.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from sqlmodel import Session, col, select

from arena.competition.schedule import match_seeds
from arena.engine.cards import DECK_SIZE
from arena.league.browse import match_detail
from arena.league.opening import open_ladder
from arena.league.seed_keys import key_under
from arena.store import Store
from arena.store.models import DealSecret
from tests.cli.runner import run_arena
from tests.league.conftest import SAMPLE_BOTS, Arena, make_arena

HERE = Path(__file__).resolve().parent
SECRET_SEED = 6_755_399_441_055_744_123  # as a ladder's: 63 bits from the deployment's secret


def attack(tmp_path: Path, seed: int) -> tuple[int, float, float, int]:
    """Play the dealer bot at seat 0: (hidden cards it predicted, the number expected by
    chance, its standard deviation, the hidden cards in all)."""
    bot = tmp_path / "dealer"
    bot.mkdir(parents=True)
    (bot / "bot.py").write_text((HERE / "dealer_bot.py").read_text())
    replay = tmp_path / f"seed{seed}.json"
    result = run_arena(
        "play", bot, "random", "random", "random", "--seed", seed,
        "--sandbox", "none", "--replay", replay,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    deals = json.loads(replay.read_text())["deals"]
    log = (tmp_path / f"seed{seed}.logs" / "seat0.log").read_text()
    lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    assert [line["dealing"] for line in lines] == list(range(1, len(deals) + 1))
    hits, mean, variance, hidden = 0, 0.0, 0.0, 0
    for line, dealing in zip(lines, deals, strict=True):
        n = dealing["hand_size"]
        for seat in (1, 2, 3):
            hits += len(set(line["predicted"][seat]) & set(dealing["hands"][seat]))
            # n cards guessed among the 54 - n not in the bot's hand, n of them right.
            unseen = DECK_SIZE - n
            mean += n * n / unseen
            variance += n * (n / unseen) * (1 - n / unseen) * (unseen - n) / (unseen - 1)
            hidden += n
    return hits, mean, math.sqrt(variance), hidden


def test_a_bot_that_deals_the_game_itself_predicts_at_chance(tmp_path: Path) -> None:
    hits, mean, sd, hidden = attack(tmp_path / "secret", SECRET_SEED)
    assert hidden > 500  # a whole game: 3 other hands in each of 25+ dealings
    # Six standard deviations above chance: a false alarm has odds below 1 in 10^8.
    assert hits <= mean + 6 * sd, f"predicted {hits}/{hidden}, chance {mean:.0f} ± {sd:.0f}"
    # The control: the same bot finds a small seed and predicts every hidden card, so the
    # attack above is a real one (a local `arena play --seed 7` is no secret).
    hits, _, _, hidden = attack(tmp_path / "small", 7)
    assert hits == hidden


def test_two_fresh_ladders_deal_different_cards(tmp_path: Path) -> None:
    seeds = []
    for name in ("one", "two"):
        arena = _arena(tmp_path / name)
        token = arena.user("ann")
        for bot in ("random", "heuristic", "montecarlo"):
            arena.seed(token, bot, SAMPLE_BOTS / bot)
        seeds.append(_match_seeds(arena))
    assert len(seeds[0]) == len(seeds[1]) == 3
    assert not set(seeds[0]) & set(seeds[1])
    # And neither is the schedule anyone could compute from the code alone.
    assert not set(seeds[0]) & set(match_seeds(b"", 0, 3))


def test_a_match_seed_is_shown_only_once_played_and_rotation_changes_new_ones(
    tmp_path: Path,
) -> None:
    arena = _arena(tmp_path / "ladder")
    token = arena.user("ann")
    arena.seed(token, "random", SAMPLE_BOTS / "random")
    arena.seed(token, "montecarlo", SAMPLE_BOTS / "montecarlo")
    assert "seed" not in arena.ok("matches", "--json").stdout
    ladder = open_ladder(arena.url)
    try:
        (queued,) = ladder.store.matches(ladder.tournament("ladder").id)
        assert queued.id is not None
        assert match_detail(ladder, queued.id).seed is None  # the web's /api/matches/ID
    finally:
        ladder.close()
    before = _match_seeds(arena)
    assert arena.ok("secret", "rotate").stdout.strip() == "deal secret rotated: generation 2"
    arena.seed(token, "heuristic", SAMPLE_BOTS / "heuristic")
    after = _match_seeds(arena)
    assert after[:1] == before  # scheduled seeds are kept
    with arena.store() as store:
        generations = [s.secret for s in _secrets(store)]
    assert len(generations) == 2 and generations[0] != generations[1]
    # The new matches come from the new secret, not from the one they would have had.
    old_key = _key(generations[0], arena)
    assert not set(after[1:]) & set(match_seeds(old_key, 1, 2))
    assert set(after[1:]) == set(match_seeds(_key(generations[1], arena), 1, 2))


def _arena(path: Path) -> Arena:
    path.mkdir(parents=True)
    return make_arena(path)


def _match_seeds(arena: Arena) -> list[int]:
    with arena.store() as store:
        ladder = store.tournament("ladder")
        assert ladder.id is not None
        return [m.seed for m in store.matches(ladder.id)]


def _secrets(store: Store) -> list[DealSecret]:
    with Session(store.database) as session:
        return list(session.exec(select(DealSecret).order_by(col(DealSecret.generation))))


def _key(secret: bytes, arena: Arena) -> bytes:
    with arena.store() as store:
        return key_under(secret, store.tournament("ladder"))
