"""The checked-in golden replays: they verify, they reproduce byte for byte, and each one
really holds the feature its name promises (see tests/golden/README.md)."""

from __future__ import annotations

import difflib
import json
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.engine.replay import ForfeitReason, ReplayError
from arena.engine.replay import Replay as TypedReplay
from arena.referee.faults import (
    CrashFault,
    IllegalFault,
    ProtocolFault,
    StartupFault,
    TimeoutFault,
)
from tests.cli.runner import run_arena

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
FILES = sorted(GOLDEN.glob("*.json"))  # written by today's arena play (replay version 2)
V1_FILES = sorted((GOLDEN / "v1").glob("*.json"))  # version 1's: still read and verified
JOKERS = ("BB", "LB")
OTHER_JOKER = {"BB": "LB", "LB": "BB"}

Replay = dict[str, Any]


def load(path: Path) -> Replay:
    data: Replay = json.loads(path.read_text(encoding="utf-8"))
    return data


def all_passed(dealing: Replay) -> bool:
    return len(dealing["bids"]) == 4 and all(b["bid"] == "pass" for b in dealing["bids"])


def board_claims(dealing: Replay) -> list[Replay]:
    return [b for b in dealing["bids"] if b["bid"] == "board"]


def played_cards(dealing: Replay) -> list[tuple[int, str]]:
    return [(seat, card) for trick in dealing["tricks"] for seat, card in trick["plays"]]


def team_tricks(dealing: Replay) -> list[int]:
    won = dealing["tricks_won"]
    return [won[0] + won[2], won[1] + won[3]]


def play_command(data: Replay, replay: Path) -> list[str]:
    """The ``arena play`` arguments that must reproduce ``data``."""
    bots = [p["name"] for p in data["players"]]
    return [
        "play",
        *bots,
        "--seed",
        str(data["seed"]),
        "--max-redeals",
        str(data["rules"]["max_redeals"]),
        "--record-legal",
        "--replay",
        str(replay),
    ]


# ---------------------------------------------------------------- features, one per file


def check_plain(data: Replay) -> None:
    deals = data["deals"]
    assert [d["number"] for d in deals] == list(range(1, 26))
    for d in deals:
        assert "redeal" not in d
        assert d["turned"] not in JOKERS and d["trump"] == d["turned"][1]
        assert d["joker_swap"] is None
        assert len(board_claims(d)) <= 1
        assert not all_passed(d)
    assert data["rules"] == {"max_redeals": 5}
    totals = data["result"]["totals"]
    assert totals[0] != totals[1]
    assert data["result"]["winner"] == (0 if totals[0] > totals[1] else 1)


def check_redeal(data: Replay) -> None:
    deals = data["deals"]
    redeals = [i for i, d in enumerate(deals) if d.get("redeal")]
    assert redeals, "no redealt dealing"
    for i in redeals:
        void, again = deals[i], deals[i + 1]
        assert void["redeal"] is True
        assert all_passed(void)
        assert void["tricks"] == [] and void["points"] is None and void["totals"] is None
        assert again["number"] == void["number"] and again["hand_size"] == void["hand_size"]
        assert again["dealer"] == (void["dealer"] + 1) % 4
    assert len(deals) == 25 + len(redeals)
    numbers = [d["number"] for d in deals if not d.get("redeal")]
    assert numbers == list(range(1, 26))


def check_joker_swap(data: Replay) -> None:
    swapped = [d for d in data["deals"] if d["joker_swap"] is not None]
    assert swapped, "no joker swap"
    for d in swapped:
        swap = d["joker_swap"]
        assert d["turned"] in JOKERS and d["trump"] is None
        assert d["stock"][0] == d["turned"]
        assert swap["discarded"] == OTHER_JOKER[d["turned"]]
        assert swap["discarded"] in d["hands"][swap["seat"]]
        assert swap["drawn"] == d["stock"][1]
    played = [d for d in swapped if not d.get("redeal")]
    assert played, "no joker swap in a dealing that was played"
    for d in played:
        swap = d["joker_swap"]
        plays = played_cards(d)
        assert (swap["seat"], swap["drawn"]) in plays  # the drawn card joins the hand
        assert not [card for _, card in plays if card in JOKERS]  # no joker is in play


def check_double_board(data: Replay) -> None:
    several = [d for d in data["deals"] if len(board_claims(d)) >= 2]
    assert several, "no dealing with two or more board claims"
    for d in several:
        claims = board_claims(d)
        assert [b["board_level"] for b in claims] == list(range(1, len(claims) + 1))
        n = d["hand_size"]
        tricks = team_tricks(d)
        for team in (0, 1):
            levels = [b["board_level"] for b in claims if b["seat"] % 2 == team]
            if levels:
                value = 10 * n * max(levels)
                assert d["points"][team] == (value if tricks[team] == n else -value)


def check_no_trump_no_swap(data: Replay) -> None:
    found = [d for d in data["deals"] if d["turned"] in JOKERS and d["joker_swap"] is None]
    assert found, "no joker turned with the other joker in the stock"
    for d in found:
        assert d["trump"] is None
        assert OTHER_JOKER[d["turned"]] in d["stock"][1:]
        assert not [c for hand in d["hands"] for c in hand if c in JOKERS]
        assert not [card for _, card in played_cards(d) if card in JOKERS]
    assert any(not d.get("redeal") for d in found)


def check_max_redeals0(data: Replay) -> None:
    assert data["rules"] == {"max_redeals": 0}
    deals = data["deals"]
    assert not [d for d in deals if "redeal" in d]
    assert [d["number"] for d in deals] == list(range(1, 26))
    all_pass = [d for d in deals if all_passed(d)]
    assert all_pass, "no all-pass dealing"
    for d in all_pass:
        assert len(d["tricks"]) == d["hand_size"]
        assert d["leader"] == (d["dealer"] + 1) % 4  # everyone bid 0: the dealer's left
        assert d["points"] == team_tricks(d)  # contract 0: one point per trick


def check_draw(data: Replay) -> None:
    totals = data["result"]["totals"]
    assert totals[0] == totals[1]
    assert data["result"]["winner"] is None
    assert data["result"]["forfeit"] is None
    assert data["deals"][-1]["totals"] == totals


FEATURES: dict[str, Callable[[Replay], None]] = {
    "plain_seed213_random.json": check_plain,
    "redeal_seed5_random.json": check_redeal,
    "joker_swap_seed4_random.json": check_joker_swap,
    "double_board_seed1_random.json": check_double_board,
    "no_trump_no_swap_seed0_random.json": check_no_trump_no_swap,
    "max_redeals0_all_pass_played_seed5_random.json": check_max_redeals0,
    "draw_seed303_random.json": check_draw,
}
V1_FEATURES: dict[str, Callable[[Replay], None]] = {
    "plain_seed653_random.json": check_plain,
    "redeal_seed3_random.json": check_redeal,
    "joker_swap_seed0_random.json": check_joker_swap,
    "double_board_seed2_random.json": check_double_board,
    "no_trump_no_swap_seed4_random.json": check_no_trump_no_swap,
    "max_redeals0_all_pass_played_seed3_random.json": check_max_redeals0,
    "draw_seed863_random.json": check_draw,
}
EVERY = [*(("", n, 2) for n in sorted(FEATURES)), *(("v1", n, 1) for n in sorted(V1_FEATURES))]


# ---------------------------------------------------------------- tests


def test_every_golden_file_has_a_feature_check() -> None:
    assert sorted(FEATURES) == [f.name for f in FILES]
    assert sorted(V1_FEATURES) == [f.name for f in V1_FILES]


def test_golden_files_pass_verify() -> None:
    """Today's and version 1's: a replay written before its seeds dealt one way verifies."""
    result = run_arena("replay", "verify", *FILES, *V1_FILES)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    expected = []
    for path in [*FILES, *V1_FILES]:
        data = load(path)
        totals = data["result"]["totals"]
        expected.append(
            f"{path}: ok · {len(data['deals'])} dealings · totals {totals[0]} {totals[1]}"
        )
    assert result.stdout.splitlines() == expected


@pytest.mark.parametrize(("folder", "name", "version"), EVERY)
def test_golden_file_has_its_feature(folder: str, name: str, version: int) -> None:
    data = load(GOLDEN / folder / name)
    assert data["format"] == "backalley-replay" and data["version"] == version
    assert data["result"]["forfeit"] is None
    for d in data["deals"]:  # written with --record-legal: one legal list per play
        for trick in d["tricks"]:
            assert len(trick["legal"]) == len(trick["plays"])
    (V1_FEATURES if folder else FEATURES)[name](data)


@pytest.mark.parametrize("name", sorted(FEATURES))
def test_golden_file_reproduces_byte_for_byte(name: str, tmp_path: Path) -> None:
    golden = GOLDEN / name
    again = tmp_path / name
    result = run_arena(*play_command(load(golden), again))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == f"replay written to {again}"
    produced, expected = again.read_bytes(), golden.read_bytes()
    if produced != expected:
        diff = difflib.unified_diff(
            expected.decode().splitlines(),
            produced.decode().splitlines(),
            "golden/" + name,
            "re-run",
            lineterm="",
        )
        pytest.fail("the same command now writes another game:\n" + "\n".join(list(diff)[:40]))


@pytest.mark.parametrize(("folder", "name", "version"), EVERY)
def test_golden_file_round_trips_through_the_typed_replay(
    folder: str, name: str, version: int
) -> None:
    """Read as a ``Replay`` and written again as ``arena play`` writes: the same bytes."""
    text = (GOLDEN / folder / name).read_text(encoding="utf-8")
    typed = TypedReplay.from_dict(json.loads(text))
    assert json.dumps(typed.to_dict(), indent=1) + "\n" == text
    assert TypedReplay.from_dict(typed.to_dict()) == typed
    assert typed.version == version


def test_a_forfeit_round_trips_with_its_reason_and_place() -> None:
    data = load(GOLDEN / "plain_seed213_random.json")
    data["deals"] = data["deals"][:1]
    data["result"]["forfeit"] = {
        "seat": 2, "team": 0, "reason": "timeout", "detail": "no answer in 1000 ms",
        "deal": 1, "dealing": 1, "trick": 3, "step": "play", "situation": "deal 1 ...",
    }  # fmt: skip
    typed = TypedReplay.from_dict(data)
    assert typed.forfeit is not None and typed.forfeit.reason is ForfeitReason.TIMEOUT
    assert typed.forfeit.place is not None and typed.forfeit.place.trick == 3
    assert json.dumps(typed.to_dict()) == json.dumps(data)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("deals"), "malformed replay: the replay: KeyError: 'deals'"),
        (lambda d: d["players"].__setitem__(0, 7), "malformed replay: a player is not a JSON"),
        (lambda d: d["result"].update(forfeit={"seat": 1, "reason": "bored"}),
         "malformed replay: the forfeit: ValueError: 'bored'"),
    ],
)  # fmt: skip
def test_a_replay_of_another_shape_is_a_replay_error(
    change: Callable[[Replay], object], message: str
) -> None:
    data = load(GOLDEN / "draw_seed303_random.json")
    change(data)
    with pytest.raises(ReplayError) as caught:
        TypedReplay.from_dict(data)
    assert str(caught.value).startswith(message)


def test_the_faults_raise_the_reasons_replays_record() -> None:
    reasons = {fault.reason for fault in (TimeoutFault, CrashFault, IllegalFault, ProtocolFault,
                                          StartupFault)}  # fmt: skip
    assert reasons == set(ForfeitReason)


def readme_commands() -> dict[str, list[str]]:
    """The README's ``arena play`` commands, by the golden file each one writes."""
    commands = {}
    for line in (GOLDEN / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("arena play "):
            args = shlex.split(line)[1:]
            target = Path(args[args.index("--replay") + 1])
            assert target.parent == Path("tests/golden"), line
            commands[target.name] = args
    return commands


def test_readme_has_one_command_per_golden_file() -> None:
    assert sorted(readme_commands()) == [f.name for f in FILES]


@pytest.mark.parametrize("name", sorted(FEATURES))
def test_readme_command_matches_the_replay(name: str) -> None:
    """The README's command, read the way ``arena play`` reads it, is the replay's."""
    args = readme_commands()[name]
    bots = args[1 : next(i for i, a in enumerate(args) if a.startswith("--"))]
    options = args[1 + len(bots) :]
    assert "--record-legal" in options
    options.remove("--record-legal")
    pairs = dict(zip(options[::2], options[1::2], strict=True))
    assert set(pairs) <= {"--seed", "--max-redeals", "--replay"}
    data = load(GOLDEN / name)
    assert bots == [p["name"] for p in data["players"]]
    assert int(pairs["--seed"]) == data["seed"]
    assert int(pairs.get("--max-redeals", "5")) == data["rules"]["max_redeals"]
