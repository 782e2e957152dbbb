"""The stdio bridge: a program that speaks JSON lines plays a whole game through it, and each
way a program can fail the protocol gets its own clear forfeit. Real games, in the process
sandbox, the bridge started by ``protocol = "stdio"`` in the bot's ``bot.toml``."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from arena.bots.limits import Limits
from arena.play.bot_specs import resolve_bot
from arena.play.tables import GameSettings, PlayedGame, game_replay, play_game
from arena.sandbox import open_sandbox

# A program in Python standing for any language: it reads the bridge's lines, answers with
# the first legal option, and misbehaves as FAULT says at the Nth decision.
PROGRAM = """\
import json, sys, time
FAULT, AT = {fault!r}, {at}
decisions = 0
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        assert message["limits"]["move_ms"] > 0 and message["seat"] in (0, 2)
        print(json.dumps({{"name": "child", "notifications": True}}), flush=True)
        continue
    if kind not in ("bid", "play"):
        assert kind in ("trick_ended", "deal_ended", "game_ended"), kind
        continue
    decisions += 1
    assert message["observation"]["hand"], message
    answer = {{"bid" if kind == "bid" else "card": message["legal"][0]}}
    if FAULT == "notes":  # a note on each answer: long at the first, not a string at the second
        note = "x" * 500 if decisions == 1 else 42 if decisions == 2 else ""
        answer["note"] = note or f"{{kind}} {{decisions}}"
    if decisions == AT:
        if FAULT == "garbage":
            print("thinking hard...", flush=True)
            continue
        if FAULT == "exit":
            sys.exit(3)
        if FAULT == "late":
            time.sleep(2)
        if FAULT == "illegal":
            answer = {{"card": "XX"}} if kind == "play" else {{"bid": "13"}}
        if FAULT == "wrong key":
            answer = {{"answer": message["legal"][0]}}
    print(json.dumps(answer), flush=True)
    print(f"{{kind}} answered", file=sys.stderr)
"""


def stdio_bot(tmp_path: Path, fault: str = "", at: int = 0) -> Path:
    bot = tmp_path / f"bot-{fault.replace(' ', '-') or 'good'}"
    bot.mkdir()
    (bot / "child.py").write_text(PROGRAM.format(fault=fault, at=at))
    (bot / "bot.toml").write_text('run = ["python3", "child.py"]\nprotocol = "stdio"\n')
    return bot


def play_one(bot: Path, tmp_path: Path) -> PlayedGame:
    """One game, the bot in seats 0 and 2."""
    sandbox = open_sandbox("process")
    limits = Limits(move_ms=300, bank_ms=500)
    try:
        with contextlib.ExitStack() as unpacked:
            own = resolve_bot(str(bot), unpacked)
            other = resolve_bot("random", unpacked)
            settings = GameSettings(limits=limits, logs_dir=tmp_path / f"{bot.name}-logs")
            game = play_game([own, other, own, other], 11, sandbox, settings)
    finally:
        sandbox.close()
    return game


def play(bot: Path, tmp_path: Path) -> tuple[str, str, str]:
    """One game, the bot in seats 0 and 2: the forfeit's reason and detail ("" if none),
    and seat 0's log."""
    game = play_one(bot, tmp_path)
    forfeit = game.outcome.forfeit
    log = game.logs[0].read_text(errors="replace")
    if forfeit is None:
        return "", "", log
    assert forfeit.seat in (0, 2), forfeit
    return forfeit.reason, forfeit.detail, log


def test_a_program_plays_a_whole_game_through_the_bridge(tmp_path: Path) -> None:
    reason, detail, log = play(stdio_bot(tmp_path), tmp_path)
    assert (reason, detail) == ("", "")
    assert "play answered" in log  # its stderr is the bot's log


def test_a_program_s_notes_reach_the_replay_cut_as_the_sdk_s(tmp_path: Path) -> None:
    game = play_one(stdio_bot(tmp_path, "notes"), tmp_path)
    assert game.outcome.forfeit is None
    replay = game_replay(game)
    noted: dict[int, list[str | None]] = {0: [], 2: []}
    for dealing in replay.deals:
        for b in dealing.bids:
            noted.setdefault(b.seat, []).append(b.note)
        for trick in dealing.tricks:
            notes = trick.notes or (None,) * len(trick.plays)
            for (seat, _), note in zip(trick.plays, notes, strict=True):
                noted.setdefault(seat, []).append(note)
    for seat in (0, 2):  # each seat is its own program, with its own count of decisions
        mine = noted[seat]
        assert mine[0] == "x" * 160  # cut to the referee's length
        assert mine[1] is None  # 42 is no note: dropped, and no fault
        assert mine[2] in ("bid 3", "play 3")
        assert sum(note is not None for note in mine) == 100  # the game's cap of noted decisions
    assert not any(noted[1] + noted[3])  # the other bots noted nothing


@pytest.mark.parametrize(
    ("fault", "at", "reason", "said"),
    [
        ("garbage", 3, "protocol", "printed 'thinking hard...' where a JSON answer to"),
        ("wrong key", 4, "protocol", '{"answer":'),
        ("exit", 2, "crash", "exit status 3 during"),
        ("late", 2, "timeout", "no answer to"),
        ("illegal", 2, "illegal", "not one of the legal"),
    ],
)
def test_each_fault_of_a_program_has_a_clear_reason(
    tmp_path: Path, fault: str, at: int, reason: str, said: str
) -> None:
    got, detail, log = play(stdio_bot(tmp_path, fault, at), tmp_path)
    assert got == reason, detail
    assert said in detail.replace('" ', '"'), detail
    if fault in ("garbage", "exit"):
        assert "stdio bridge:" in log  # the bridge says in the bot's log what it saw


def test_garbage_before_hello_is_a_startup_fault(tmp_path: Path) -> None:
    bot = tmp_path / "chatty"
    bot.mkdir()
    (bot / "child.py").write_text("print('hello, referee!', flush=True)\ninput()\n")
    (bot / "bot.toml").write_text('run = ["python3", "child.py"]\nprotocol = "stdio"\n')
    reason, detail, _ = play(bot, tmp_path)
    assert reason == "startup"
    assert "refused Hello: the bot's program printed 'hello, referee!'" in detail


def test_the_bridge_refuses_to_start_without_a_command() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "arena_sdk.stdio_bridge", "--socket", "x"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("error: usage: python3 -m arena_sdk.stdio_bridge")
