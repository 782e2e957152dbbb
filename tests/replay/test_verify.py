"""``arena replay verify`` names the first violation: deal, dealing and trick.

A valid game is played with the Python API (random legal choices, every play recorded
with the hand and legal cards of the seat to play), then one value is tampered with and
the real ``arena`` command must reject the file: exit status 2, nothing on stdout, and
one ``error: FILE: deal D (dealing K), trick T: ...`` line on stderr.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.engine import BB, LB, GameState, Phase, card_name, observe, team_of
from arena.engine.replay import Forfeit, build_replay
from tests.cli.runner import error_line, run_arena

SEED = 123  # a random game with two redeals (dealings 13 and 16), then BB and LB leads
NAMES = ["random", "random", "random", "random"]

Replay = dict[str, Any]


@dataclass(frozen=True)
class Play:
    """One card play of the recorded game, with what its seat saw."""

    dealing: int  # 1-based place in "deals"
    deal: int
    trick: int  # 1-based within the dealing
    index: int  # 0 for the lead
    seat: int
    hand: tuple[int, ...]  # before the play
    legal: tuple[int, ...]
    card: int
    led: int | None
    trump: int | None

    def is_trump(self, card: int) -> bool:
        return self.trump is not None and (card >= BB or card // 13 == self.trump)

    @property
    def trumps(self) -> list[int]:
        return [c for c in self.hand if self.is_trump(c)]

    @property
    def where(self) -> str:
        return f"deal {self.deal} (dealing {self.dealing}), trick {self.trick}: "


@dataclass(frozen=True)
class Game:
    replay: Replay
    plays: list[Play]
    last_redeal: int  # 1-based dealing; tampering after it makes deal != dealing

    def first(self, wanted: Callable[[Play], bool]) -> Play:
        """The first play after the redeals that matches (the game is fixed, so it exists)."""
        for play in self.plays:
            if play.dealing > self.last_redeal and wanted(play):
                return play
        raise AssertionError("the recorded game has no such play; pick another SEED")

    def dealing(self, play: Play) -> Replay:
        return self.replay["deals"][play.dealing - 1]

    def trick(self, play: Play) -> Replay:
        trick: Replay = self.dealing(play)["tricks"][play.trick - 1]
        return trick


def record_game(seed: int) -> Game:
    state = GameState.new(seed, record_legal=True)
    rng = random.Random(seed)
    plays = []
    while not state.is_terminal():
        seat = state.current_player()
        obs = observe(state, seat)
        action = rng.choice(obs.legal_actions)
        if obs.phase is Phase.PLAY:
            so_far = obs.current_trick.plays
            plays.append(
                Play(
                    dealing=len(state.deals),
                    deal=obs.deal_number,
                    trick=len(obs.tricks) + 1,
                    index=len(so_far),
                    seat=seat,
                    hand=obs.hand,
                    legal=obs.legal_actions,
                    card=action,
                    led=so_far[0][1] if so_far else None,
                    trump=obs.trump,
                )
            )
        state.apply(action)
    replay = build_replay(state, NAMES).to_dict()
    redeals = [i + 1 for i, d in enumerate(replay["deals"]) if d.get("redeal")]
    assert redeals, "the recorded game should have a redeal"
    return Game(replay, plays, max(redeals))


@pytest.fixture(scope="module")
def game() -> Game:
    return record_game(SEED)


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


def tampered(tmp_path: Path, game: Game, change: Callable[[Replay], object]) -> Path:
    data = copy.deepcopy(game.replay)
    change(data)
    return write(tmp_path / "tampered.json", data)


def setter(*keys: str | int, value: object) -> Callable[[Replay], None]:
    """A change that sets ``data[k0][k1]...[kn] = value``."""

    def change(data: Replay) -> None:
        target: Any = data
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    return change


def trick_keys(play: Play) -> tuple[str | int, ...]:
    return ("deals", play.dealing - 1, "tricks", play.trick - 1)


def set_card(play: Play, card: int | str) -> Callable[[Replay], None]:
    """The play ``play`` shows ``card`` instead."""
    name = card if isinstance(card, str) else card_name(card)
    return setter(*trick_keys(play), "plays", play.index, 1, value=name)


def rejected(path: Path, location: str, *phrases: str) -> str:
    """Verify ``path``: it must fail with one ``error:`` line starting at ``location``."""
    result = run_arena("replay", "verify", path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout == ""
    line = error_line(result)
    assert line.startswith(f"error: {path}: {location}"), line
    for phrase in phrases:
        assert phrase in line, line
    return line


def test_untampered_game_verifies(tmp_path: Path, game: Game) -> None:
    path = write(tmp_path / "game.json", game.replay)
    result = run_arena("replay", "verify", path)
    assert result.returncode == 0, result.stderr
    totals = game.replay["result"]["totals"]
    dealings = len(game.replay["deals"])
    assert result.stdout == f"{path}: ok · {dealings} dealings · totals {totals[0]} {totals[1]}\n"
    assert result.stderr == ""


# ---------------------------------------------------------------- card play


def test_revoke(tmp_path: Path, game: Game) -> None:
    """Not following the led suit while holding it."""
    play = game.first(
        lambda p: (
            p.led is not None
            and not p.is_trump(p.led)
            and any(c // 13 == p.led // 13 for c in p.hand if c < BB)
            and any(c not in p.legal for c in p.hand)
        )
    )
    off_suit = next(c for c in play.hand if c not in play.legal)
    path = tampered(tmp_path, game, set_card(play, off_suit))
    rejected(path, play.where, f"seat {play.seat} may not play {card_name(off_suit)} now")


def test_trump_lead_before_trumps_are_broken(tmp_path: Path, game: Game) -> None:
    play = game.first(lambda p: p.index == 0 and any(c not in p.legal for c in p.trumps))
    trump = next(c for c in play.trumps if c not in play.legal)
    path = tampered(tmp_path, game, set_card(play, trump))
    rejected(path, play.where, f"seat {play.seat} may not play {card_name(trump)} now")


def test_big_blooper_led_but_not_the_highest_trump(tmp_path: Path, game: Game) -> None:
    play = game.first(lambda p: p.led == BB and len(p.trumps) >= 2)
    highest = LB if LB in play.trumps else max(play.trumps)
    assert play.legal == (highest,)
    lower = min(play.trumps)
    path = tampered(tmp_path, game, set_card(play, lower))
    rejected(path, play.where, f"seat {play.seat} may not play {card_name(lower)} now")


def test_little_blooper_led_but_not_the_lowest_trump(tmp_path: Path, game: Game) -> None:
    play = game.first(lambda p: p.led == LB and len(p.trumps) >= 2)
    higher = max(c for c in play.trumps if c not in play.legal)
    path = tampered(tmp_path, game, set_card(play, higher))
    rejected(path, play.where, f"seat {play.seat} may not play {card_name(higher)} now")


def test_card_played_twice(tmp_path: Path, game: Game) -> None:
    """A seat plays again a card it already played to an earlier trick of the dealing."""
    later = game.first(lambda p: p.trick >= 3)
    earlier = next(
        p
        for p in game.plays
        if p.dealing == later.dealing and p.trick < later.trick and p.seat == later.seat
    )
    path = tampered(tmp_path, game, set_card(later, earlier.card))
    rejected(path, later.where, f"seat {later.seat} does not hold {card_name(earlier.card)}")


def test_card_from_the_stock(tmp_path: Path, game: Game) -> None:
    play = game.first(lambda p: p.index == 2)
    stock = game.dealing(play)["stock"]
    path = tampered(tmp_path, game, set_card(play, stock[-1]))
    rejected(path, play.where, f"seat {play.seat} does not hold {stock[-1]}")


def test_card_from_another_hand(tmp_path: Path, game: Game) -> None:
    play = game.first(lambda p: p.trick == 1 and p.index == 1)
    other = (play.seat + 1) % 4  # plays after this seat: still holds its whole hand
    card = next(c for c in game.dealing(play)["hands"][other] if c not in ("BB", "LB"))
    path = tampered(tmp_path, game, set_card(play, card))
    rejected(path, play.where, f"seat {play.seat} does not hold {card}")


def test_play_out_of_turn(tmp_path: Path, game: Game) -> None:
    play = game.first(lambda p: p.trick == 2 and p.index == 1)
    wrong = (play.seat + 1) % 4
    path = tampered(tmp_path, game, setter(*trick_keys(play), "plays", play.index, 0, value=wrong))
    rejected(path, play.where, f"seat {wrong} plays out of turn")


def test_wrong_trick_winner(tmp_path: Path, game: Game) -> None:
    play = game.first(lambda p: p.trick == 2 and p.index == 3)
    winner = game.trick(play)["winner"]
    wrong = (winner + 1) % 4
    path = tampered(tmp_path, game, setter(*trick_keys(play), "winner", value=wrong))
    rejected(path, play.where, f"winner is {wrong}, should be {winner}")


def test_wrong_trick_leader(tmp_path: Path, game: Game) -> None:
    play = game.first(lambda p: p.trick == 3 and p.index == 0)
    wrong = (play.seat + 2) % 4
    path = tampered(tmp_path, game, setter(*trick_keys(play), "leader", value=wrong))
    rejected(path, play.where, f"leader is {wrong}, should be {play.seat}")


@pytest.mark.parametrize("how", ["a card missing", "a card too many"])
def test_wrong_legal_list(tmp_path: Path, game: Game, how: str) -> None:
    play = game.first(lambda p: p.index > 0 and len(p.legal) >= 2 and len(p.legal) < len(p.hand))
    allowed = sorted(card_name(c) for c in play.legal)
    if how == "a card missing":
        recorded = allowed[1:]
    else:
        recorded = [*allowed, next(card_name(c) for c in play.hand if c not in play.legal)]
    path = tampered(tmp_path, game, setter(*trick_keys(play), "legal", play.index, value=recorded))
    rejected(
        path,
        play.where,
        f"legal list for seat {play.seat} is {sorted(recorded)}, the rules allow {allowed}",
    )


@pytest.mark.parametrize("where", ["play seat", "trick winner"])
def test_seat_written_as_a_boolean(tmp_path: Path, game: Game, where: str) -> None:
    """JSON ``true``/``false`` is not a seat, even where Python would take it for 1/0."""
    if where == "play seat":
        play = game.first(lambda p: p.trick == 2 and p.index > 0 and p.seat in (0, 1))
        change = setter(*trick_keys(play), "plays", play.index, 0, value=bool(play.seat))
    else:
        play = game.first(
            lambda p: p.trick == 2 and p.index == 3 and game.trick(p)["winner"] in (0, 1)
        )
        change = setter(*trick_keys(play), "winner", value=bool(game.trick(play)["winner"]))
    rejected(tampered(tmp_path, game, change), play.where)


# ---------------------------------------------------------------- dealing level


def first_played_dealing(game: Game, wanted: Callable[[Replay], bool]) -> tuple[int, Replay]:
    """(1-based dealing, record) of the first played dealing after the redeals that fits."""
    for k, d in enumerate(game.replay["deals"], start=1):
        if k > game.last_redeal and not d.get("redeal") and wanted(d):
            return k, d
    raise AssertionError("no such dealing in the recorded game")


def test_bid_of_the_hand_size(tmp_path: Path, game: Game) -> None:
    """With n cards a number bid is 1..n-1: bidding n is over the limit."""
    k, d = first_played_dealing(game, lambda d: 2 <= d["hand_size"] <= 12)
    n, seat = d["hand_size"], d["bids"][1]["seat"]
    path = tampered(tmp_path, game, setter("deals", k - 1, "bids", 1, "bid", value=n))
    rejected(path, f"deal {d['number']} (dealing {k}): ", f"seat {seat} may not bid {n} now")


def test_bid_out_of_turn(tmp_path: Path, game: Game) -> None:
    k, d = first_played_dealing(game, lambda d: True)
    wrong = d["bids"][2]["seat"]
    path = tampered(tmp_path, game, setter("deals", k - 1, "bids", 1, "seat", value=wrong))
    rejected(path, f"deal {d['number']} (dealing {k}): ", f"seat {wrong} bids out of turn")


def test_wrong_first_leader(tmp_path: Path, game: Game) -> None:
    k, d = first_played_dealing(game, lambda d: True)
    leader = d["leader"]
    wrong = (leader + 1) % 4
    path = tampered(tmp_path, game, setter("deals", k - 1, "leader", value=wrong))
    rejected(path, f"deal {d['number']} (dealing {k}): ", f"leader is {wrong}, should be {leader}")


def test_wrong_points(tmp_path: Path, game: Game) -> None:
    k, d = first_played_dealing(game, lambda d: d["number"] >= 16)
    points = d["points"]
    wrong = [points[0] + 1, points[1]]
    path = tampered(tmp_path, game, setter("deals", k - 1, "points", value=wrong))
    rejected(path, f"deal {d['number']} (dealing {k}): ", f"points are {wrong}, should be {points}")


def test_wrong_totals(tmp_path: Path, game: Game) -> None:
    k, d = first_played_dealing(game, lambda d: d["number"] >= 17)
    totals = d["totals"]
    wrong = [totals[0], totals[1] - 5]
    path = tampered(tmp_path, game, setter("deals", k - 1, "totals", value=wrong))
    rejected(path, f"deal {d['number']} (dealing {k}): ", f"totals are {wrong}, should be {totals}")


def test_wrong_tricks_won(tmp_path: Path, game: Game) -> None:
    k, d = first_played_dealing(game, lambda d: d["number"] >= 18)
    won = d["tricks_won"]
    wrong = [won[0] + 1, *won[1:]]
    path = tampered(tmp_path, game, setter("deals", k - 1, "tricks_won", value=wrong))
    rejected(path, f"deal {d['number']} (dealing {k}): ", f"tricks_won should be {won}")


def swap_first_cards(k: int) -> Callable[[Replay], None]:
    """Seats 0 and 1 trade their first dealt card in dealing ``k``: still 54 cards, each once."""

    def change(data: Replay) -> None:
        hands = data["deals"][k - 1]["hands"]
        hands[0][0], hands[1][0] = hands[1][0], hands[0][0]

    return change


def test_hands_of_the_first_dealing_not_the_seeds(tmp_path: Path, game: Game) -> None:
    path = tampered(tmp_path, game, swap_first_cards(1))
    rejected(path, "deal 1 (dealing 1): ", f"the cards dealt are not those of seed {SEED}")


def test_hands_after_a_redeal_not_the_seeds(tmp_path: Path, game: Game) -> None:
    k = game.last_redeal  # dealt after the previous all-pass dealing
    number = game.replay["deals"][k - 1]["number"]
    path = tampered(tmp_path, game, swap_first_cards(k))
    rejected(
        path, f"deal {number} (dealing {k}): ", f"the cards dealt are not those of seed {SEED}"
    )


def test_hands_after_a_played_dealing_not_the_seeds(tmp_path: Path, game: Game) -> None:
    """The dealing is dealt when the previous one's last trick ends, but the violation is the
    new dealing's, and the message must name it (not the previous dealing's last trick)."""
    played, _ = first_played_dealing(game, lambda d: True)
    k = played + 1  # the dealing after a played one
    number = game.replay["deals"][k - 1]["number"]
    path = tampered(tmp_path, game, swap_first_cards(k))
    rejected(
        path, f"deal {number} (dealing {k}): ", f"the cards dealt are not those of seed {SEED}"
    )


def test_stock_order_not_the_seeds(tmp_path: Path, game: Game) -> None:
    def change(data: Replay) -> None:
        stock = data["deals"][0]["stock"]
        stock[-1], stock[-2] = stock[-2], stock[-1]

    path = tampered(tmp_path, game, change)
    rejected(path, "deal 1 (dealing 1): ", f"the cards dealt are not those of seed {SEED}")


# ---------------------------------------------------------------- whole replay


def test_wrong_result_winner(tmp_path: Path, game: Game) -> None:
    winner = game.replay["result"]["winner"]
    assert winner in (0, 1)
    path = tampered(tmp_path, game, setter("result", "winner", value=1 - winner))
    line = rejected(path, f"winner is {1 - winner}, should be {winner}")
    assert "deal " not in line


def test_result_winner_written_as_a_boolean(tmp_path: Path, game: Game) -> None:
    winner = game.replay["result"]["winner"]
    path = tampered(tmp_path, game, setter("result", "winner", value=bool(winner)))
    rejected(path, "winner is ")


def test_wrong_result_totals(tmp_path: Path, game: Game) -> None:
    totals = game.replay["result"]["totals"]
    wrong = [totals[0] + 1, totals[1]]
    path = tampered(tmp_path, game, setter("result", "totals", value=wrong))
    rejected(path, f"result totals are {wrong}, should be {totals}")


def test_truncated_game_without_forfeit(tmp_path: Path, game: Game) -> None:
    """The last 5 dealings cut off: the game goes on past the replay's end."""
    deals = game.replay["deals"]
    keep = len(deals) - 5
    last = deals[keep - 1]
    assert not last.get("redeal")
    path = tampered(tmp_path, game, setter("deals", value=deals[:keep]))
    line = rejected(path, f"deal {last['number']} (dealing {keep})")
    assert re.search(rf"\(dealing {keep}\)(, trick \d+)?: ", line), line
    assert f"ends after dealing {keep}" in line


def test_last_trick_missing_without_forfeit(tmp_path: Path, game: Game) -> None:
    deals = game.replay["deals"]
    last = deals[-1]
    path = tampered(tmp_path, game, lambda r: r["deals"][-1]["tricks"].pop())
    rejected(path, f"deal {last['number']} (dealing {len(deals)})")


def test_dealing_after_the_end(tmp_path: Path, game: Game) -> None:
    deals = game.replay["deals"]
    path = tampered(tmp_path, game, lambda r: r["deals"].append(copy.deepcopy(deals[-1])))
    rejected(path, "", "more deals follow")


@pytest.mark.parametrize("version", [3, 0, "2", None, True])
def test_wrong_version(tmp_path: Path, game: Game, version: object) -> None:
    path = tampered(tmp_path, game, setter("version", value=version))
    line = rejected(path, "not version 1 or 2")
    assert line == f"error: {path}: not version 1 or 2: 'version' is {version!r}"


def test_a_version_2_game_called_version_1_is_not_the_seeds(tmp_path: Path, game: Game) -> None:
    """The version says how the seed dealt: version 1's one generator deals other cards."""
    assert game.replay["version"] == 2
    path = tampered(tmp_path, game, setter("version", value=1))
    line = rejected(path, "")
    assert "is not the seed's" in line or f"are not those of seed {SEED}" in line


def test_not_json(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"format": "backalley-replay", "version": 1,', encoding="utf-8")
    rejected(path, "not JSON: ")


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    rejected(path, "not JSON: ")


@pytest.mark.parametrize("value", [[1, 2, 3], "a string", 42, None])
def test_not_an_object(tmp_path: Path, value: object) -> None:
    path = write(tmp_path / "list.json", value)
    line = rejected(path, "a replay is a JSON object")
    assert line == f"error: {path}: a replay is a JSON object"


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.json"
    line = rejected(path, "cannot read: ")
    assert "No such file" in line
    assert not path.exists()


def test_malformed_trick_is_one_line(tmp_path: Path, game: Game) -> None:
    """Wrong types deep inside are still one located line, never a traceback."""
    k, d = first_played_dealing(game, lambda d: True)
    path = tampered(tmp_path, game, setter("deals", k - 1, "tricks", 0, "plays", value="oops"))
    rejected(path, f"deal {d['number']} (dealing {k}), trick 1: ")


def test_each_bad_file_gets_its_line(tmp_path: Path, game: Game) -> None:
    """Several files: the good ones print ok, each bad one gets its own line, exit 2."""
    good = write(tmp_path / "good.json", game.replay)
    missing = tmp_path / "missing.json"
    bad = tampered(tmp_path, game, setter("version", value=7))
    result = run_arena("replay", "verify", good, missing, bad)
    assert result.returncode == 2
    assert result.stdout.splitlines() == [
        f"{good}: ok · {len(game.replay['deals'])} dealings · totals "
        + " ".join(str(t) for t in game.replay["result"]["totals"])
    ]
    errors = result.stderr.splitlines()
    assert len(errors) == 2, result.stderr
    assert errors[0].startswith(f"error: {missing}: cannot read: ")
    assert errors[1] == f"error: {bad}: not version 1 or 2: 'version' is 7"


# ---------------------------------------------------------------- forfeits


def forfeit_at(seed: int, stop: Callable[[GameState], bool]) -> GameState:
    """Play random legal actions until ``stop(state)``."""
    state = GameState.new(seed, record_legal=True)
    rng = random.Random(seed)
    while not stop(state):
        assert not state.is_terminal(), "the game ended before the forfeit point"
        state.apply(rng.choice(state.legal_actions()))
    return state


def mid_trick_with_the_leaders_to_move(state: GameState) -> bool:
    """Deal 6 or later, a trick half played, and the seat to move's team ahead on points."""
    if state.phase is not Phase.PLAY or state.current_deal.number < 6:
        return False
    obs = observe(state, state.current_player())
    ahead = obs.totals[obs.team] > obs.totals[1 - obs.team]
    return ahead and len(obs.current_trick.plays) == 2


def mid_bidding(state: GameState) -> bool:
    return (
        state.phase is Phase.BIDDING
        and state.current_deal.number == 9
        and (len(state.current_deal.bids) == 2)
    )


@pytest.mark.parametrize(
    ("stop", "reason"),
    [
        (mid_trick_with_the_leaders_to_move, "timeout"),
        (mid_bidding, "illegal"),
        (lambda state: True, "startup"),  # before the first bid
    ],
    ids=["mid-trick", "mid-bidding", "before-any-move"],
)
def test_forfeit_replay_verifies(
    tmp_path: Path, stop: Callable[[GameState], bool], reason: str
) -> None:
    state = forfeit_at(SEED, stop)
    seat = state.current_player()
    totals = list(state.totals)
    data = build_replay(
        state, NAMES, forfeit=Forfeit(seat, reason, "seat stopped answering")
    ).to_dict()
    path = write(tmp_path / "forfeit.json", data)
    result = run_arena("replay", "verify", path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    dealings = len(data["deals"])
    assert result.stdout == f"{path}: ok · {dealings} dealings · totals {totals[0]} {totals[1]}\n"
    assert data["result"]["winner"] == 1 - team_of(seat)  # whatever the totals say
    assert data["result"]["totals"] == totals
    assert data["result"]["forfeit"] == {
        "seat": seat,
        "team": team_of(seat),
        "reason": reason,
        "detail": "seat stopped answering",
    }
    assert data["deals"][-1]["points"] is None and data["deals"][-1]["totals"] is None


def test_forfeit_by_the_leading_team_loses(tmp_path: Path) -> None:
    state = forfeit_at(SEED, mid_trick_with_the_leaders_to_move)
    seat = state.current_player()
    assert state.totals[team_of(seat)] > state.totals[1 - team_of(seat)]
    data = build_replay(state, NAMES, forfeit=Forfeit(seat, "crash", "exit status 1")).to_dict()
    last_trick = data["deals"][-1]["tricks"][-1]
    assert len(last_trick["plays"]) == 2 and last_trick["winner"] is None
    assert data["result"]["winner"] == 1 - team_of(seat)
    # Claiming the forfeiting team won is caught.
    data["result"]["winner"] = team_of(seat)
    path = write(tmp_path / "forfeit.json", data)
    rejected(path, f"winner is {team_of(seat)}, should be {1 - team_of(seat)}")


def test_forfeit_with_unknown_reason(tmp_path: Path) -> None:
    state = forfeit_at(SEED, mid_bidding)
    data = build_replay(
        state, NAMES, forfeit=Forfeit(state.current_player(), "bored", "")
    ).to_dict()
    path = write(tmp_path / "forfeit.json", data)
    rejected(path, "unknown forfeit reason 'bored'")


def test_forfeit_after_the_game_ended(tmp_path: Path, game: Game) -> None:
    forfeit = {"seat": 1, "team": 1, "reason": "timeout", "detail": ""}

    def change(data: Replay) -> None:
        data["result"]["forfeit"] = forfeit
        data["result"]["winner"] = 0

    path = tampered(tmp_path, game, change)
    rejected(path, "a forfeit, but the game was played to the end")
