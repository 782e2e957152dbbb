"""The conformance check (``arena check-bot``): one bot, in any language, driven through
scripted positions, each rule of the protocol it breaks named.

The bot plays seat 0 of the first ``DEALS`` deals of a seeded game (every call the referee
makes: Hello, Bid, Play, and Notify of a trick, a deal and the game ended); the other seats
are scripted. Its calls are made by the referee's own ``RemotePlayer``, so a fault is
decided exactly as in a game (``referee/remote.py``); here it is only named by the rule it
breaks, and the check goes on: an illegal or malformed answer is replaced by a scripted one,
and a bot that crashed or timed out is started again (at most ``RESTARTS`` times) and asked
the next position.
"""

from __future__ import annotations

import contextlib
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from arena.bots.limits import Limits
from arena.engine import GameState, Observation, Phase, Rules, observe
from arena.engine.events import DealEnded, Event, GameEnded, TrickEnded
from arena.engine.seeds import bot_seed
from arena.engine.situation import fault_place
from arena.play.attached import AttachedBot
from arena.play.bot_specs import BotSpec
from arena.play.tables import SeatedBot
from arena.referee import BotFault, CrashFault, IllegalFault, StartupFault, TimeoutFault
from arena.sandbox import RunningBot, Sandbox
from arena.sandbox.leftovers import scratch_dir

SEAT = 0
DEALS = 2  # 13 and 12 cards: every kind of call, leading and following, in a few seconds
RESTARTS = 2  # a bot that dies at every call: three starts tell as much as more


@dataclass(frozen=True)
class Rule:
    name: str
    says: str  # what a bot must do
    calls: tuple[str, ...]  # the calls that check it


RULES = (
    Rule(
        "hello",
        "starts, serves its socket and answers Hello (protocol version 1) in time",
        ("hello",),
    ),
    Rule("legal-bid", "answers every Bid with one of the request's legal bids", ("bid",)),
    Rule("legal-play", "answers every Play with one of the request's legal plays", ("play",)),
    Rule(
        "well-formed",
        "answers with messages the referee can read (a card's name, a bid)",
        ("bid", "play"),
    ),
    Rule(
        "in-time",
        "answers every call within the move time and what is left of its bank",
        ("bid", "play"),
    ),
    Rule(
        "no-crash",
        "neither dies nor fails a call (an error status, an exception)",
        ("bid", "play"),
    ),
    Rule(
        "notifications",
        "answers Notify (trick, deal and game ended) when it asked for them",
        ("notify",),
    ),
)
RULE_NAMES = tuple(rule.name for rule in RULES)


def rule_broken(fault: BotFault, call: str) -> str:
    """The rule a fault (as the referee decided it) breaks, in a ``call`` of ``CALLS``."""
    if isinstance(fault, StartupFault) or call == "hello":
        return "hello"
    if isinstance(fault, TimeoutFault):
        return "in-time"
    if isinstance(fault, CrashFault):
        return "no-crash"
    if isinstance(fault, IllegalFault):
        return "legal-bid" if call == "bid" else "legal-play"
    return "notifications" if call == "notify" else "well-formed"


CALLS = ("hello", "bid", "play", "notify")


@dataclass(frozen=True)
class Finding:
    rule: str
    fault: BotFault
    where: str  # the situation, as a forfeit's "where" line says it
    log: bytes  # the bot's output until then (capped): its traceback, if it wrote one


@dataclass
class Report:
    """What the check found: the first fault under each rule, and what it asked."""

    findings: dict[str, Finding] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CALLS, 0))
    answered: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CALLS, 0))
    starts: int = 0
    wants_notifications: bool = False
    unfinished: str = ""  # why the positions were not all asked, if they were not

    @property
    def passed(self) -> bool:
        return not self.findings and not self.unfinished

    def record(self, rule: str, fault: BotFault, where: str, log: bytes) -> None:
        self.findings.setdefault(rule, Finding(rule, fault, where, log))

    def verdict(self, rule: Rule) -> str:
        """``ok``, ``FAIL``, ``not asked`` (a bot that wants no notifications is sent none,
        as in a game) or ``not checked`` (no call of the rule's was answered)."""
        if rule.name in self.findings:
            return "FAIL"
        if any(self.answered[call] for call in rule.calls):
            return "ok"
        if rule.name == "notifications" and not self.wants_notifications and self.calls["bid"]:
            return "not asked"
        return "not checked"


class _Session:
    """One start of the bot: started, greeted, asked until a fault ends it."""

    def __init__(self, spec: BotSpec, running: RunningBot, limits: Limits) -> None:
        self.channels: list[grpc.Channel] = []
        self.sockets: list[int] = []
        self.running = running
        self.seated = SeatedBot(SEAT, spec, running, limits, self.channels, self.sockets)

    def close(self) -> None:
        self.running.stop()
        for channel in self.channels:
            channel.close()
        for fd in self.sockets:
            os.close(fd)


def check_bot(
    spec: BotSpec,
    sandbox: Sandbox | None,  # None for a bot already running (spec.address)
    limits: Limits,
    seed: int,
    logs: Path | None = None,
) -> Report:
    """Drive the bot ``spec`` names through the scripted positions of game ``seed``; its
    output is kept in ``logs``, if given, one file per start."""
    report = Report()
    rules = Rules()
    scratch = scratch_dir()
    root = Path(scratch.name)
    sessions: list[_Session] = []

    def session() -> _Session | None:
        """A freshly started and greeted bot, or None (the fault recorded)."""
        if report.starts > RESTARTS:
            report.unfinished = f"stopped after {RESTARTS} restarts"
            return None
        if report.starts and spec.address is not None:
            report.unfinished = "a bot already running is not started again"
            return None
        report.starts += 1
        running = _start(spec, sandbox, root / f"start{report.starts}", limits)
        made = _Session(spec, running, limits)
        sessions.append(made)
        report.calls["hello"] += 1
        try:
            made.seated.hello(bot_seed(seed, SEAT), rules)
        except BotFault as fault:
            report.record(rule_broken(fault, "hello"), fault, "before deal 1", running.output())
            _keep_log(made, logs, report.starts)
            report.unfinished = "it never answered Hello"
            return None
        player = made.seated.player
        assert player is not None
        report.answered["hello"] += 1
        report.wants_notifications = player.wants_notifications
        return made

    try:
        current = session()
        state = GameState.new(seed, rules)
        script = random.Random(seed)
        for call, obs, event in _positions(state, script):
            if current is None:
                break
            try:
                if event is not None:
                    if "notifications" in report.findings:
                        continue  # a bot that cannot hear them: one fault tells it
                    if report.wants_notifications:
                        report.calls["notify"] += 1
                    current.seated.notify(event)
                    report.answered["notify"] += report.wants_notifications
                    continue
                assert obs is not None
                report.calls[call] += 1
                state.apply(current.seated.choose(obs))
                report.answered[call] += 1
            except BotFault as fault:
                where = fault_place(state, SEAT, spec.label, fault.answer).situation
                report.record(rule_broken(fault, call), fault, where, current.running.output())
                if obs is not None:
                    state.apply(script.choice(obs.legal_actions))
                if isinstance(fault, CrashFault | TimeoutFault):
                    _keep_log(current, logs, report.starts)
                    current.close()
                    current = session()
        if current is not None:
            _keep_log(current, logs, report.starts)
    finally:
        for made in sessions:
            with contextlib.suppress(Exception):
                made.close()
        scratch.cleanup()
    return report


def _start(spec: BotSpec, sandbox: Sandbox | None, workdir: Path, limits: Limits) -> RunningBot:
    if spec.address is not None or sandbox is None:
        return AttachedBot(spec.address or "")
    return sandbox.start(spec.directory, workdir, limits)


def _keep_log(made: _Session, logs: Path | None, start: int) -> None:
    if logs is not None:
        logs.mkdir(parents=True, exist_ok=True)
        (logs / f"start{start}.log").write_bytes(made.running.output())


def _positions(
    state: GameState, script: random.Random
) -> Iterator[tuple[str, Observation | None, Event | None]]:
    """The calls to make, as the game goes: ``("bid"|"play", obs, None)`` for the bot's
    decisions (the caller applies its answer), ``("notify", None, event)`` for what it is
    told. The other seats' moves are the script's, applied here."""
    while state.current_deal.number <= DEALS and not state.is_terminal():
        record = state.current_deal
        tricks = len(record.tricks)
        seat = state.current_player()
        if seat == SEAT:
            obs = observe(state, SEAT)
            yield ("bid" if obs.phase is Phase.BIDDING else "play"), obs, None
        else:
            state.apply(script.choice(state.legal_actions()))
        if len(record.tricks) > tricks:
            yield "notify", None, TrickEnded(record.number, record.tricks[-1], record.trump)
        if state.current_deal is not record or state.is_terminal():
            yield "notify", None, DealEnded(record)
    a, b = state.totals
    winner = None if a == b else (0 if a > b else 1)
    yield "notify", None, GameEnded((a, b), winner, "normal")
