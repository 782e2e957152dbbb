"""Replays built and verified: a played game as a ``Replay``, and the rules run again over one.

``build_replay`` turns a played ``GameState`` into a ``Replay`` (``replay_format``: the
documented JSON, docs/replay.md); ``verify_replay`` re-runs the rules over such JSON and raises
``ReplayError`` naming the first violation (which dealing, deal and trick); ``read_replay``
verifies and types it. Reading and writing files is the caller's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .bids import BOARD, BidError, bid_name, parse_bid
from .cards import DECK_SIZE, SUITS, CardError, card_name, cards_of, parse_card
from .notes import NotePlace
from .replay_format import (
    FORFEIT_REASONS,
    FORMAT,
    VERSION,
    VERSIONS,
    BidRecord,
    Dealing,
    Forfeit,
    ForfeitReason,
    GameResult,
    JokerSwap,
    NotesCut,
    Player,
    Replay,
    ReplayError,
    ThinkTime,
    TrickRecord,
)
from .rules import SEATS, Rules, RulesError, team_of
from .seeds import DealSource, first_dealer, seeded_deals, version1_dealing
from .state import DealRecord, GameState, IllegalActionError, Trick

__all__ = [
    "FORFEIT_REASONS", "FORMAT", "VERSION", "VERSIONS", "Forfeit", "ForfeitReason", "NotesCut",
    "Replay", "ReplayError", "ThinkTime", "build_replay", "read_replay", "verify_replay",
]  # fmt: skip

# ---------------------------------------------------------------------- writing


Notes = Mapping[NotePlace, str]


def _trick(trick: Trick, dealing: int, number: int, notes: Notes) -> TrickRecord:
    legal = None
    if trick.legal is not None:
        legal = tuple(tuple(card_name(c) for c in allowed) for allowed in trick.legal)
    plays = tuple((trick.seat_of(i), card_name(c)) for i, c in enumerate(trick.cards))
    noted = None
    if notes:
        noted = tuple(notes.get(NotePlace(dealing, number, i)) for i in range(len(plays)))
        if all(n is None for n in noted):
            noted = None
    return TrickRecord(trick.leader, plays, trick.winner, legal, noted)


def _dealing(record: DealRecord, current: Trick | None, dealing: int, notes: Notes) -> Dealing:
    levels = 0
    bids = []
    for i, (seat, action) in enumerate(record.bids):
        level = None
        if action == BOARD:
            levels += 1
            level = levels
        note = notes.get(NotePlace(dealing, None, i)) if notes else None
        bids.append(BidRecord(seat, bid_name(action), level, note))
    swap = record.joker_swap
    tricks = [_trick(t, dealing, k, notes) for k, t in enumerate(record.tricks)]
    if current is not None and current.cards:  # the unfinished trick of a forfeited game
        tricks.append(_trick(current, dealing, len(tricks), notes))
    return Dealing(
        number=record.number,
        hand_size=record.hand_size,
        dealer=record.dealer,
        hands=tuple(tuple(card_name(c) for c in cards_of(h)) for h in record.hands),
        stock=tuple(card_name(c) for c in record.stock),
        turned=card_name(record.turned),
        trump=None if record.trump is None else SUITS[record.trump],
        joker_swap=None
        if swap is None
        else JokerSwap(swap.seat, card_name(swap.discarded), card_name(swap.drawn)),
        bids=tuple(bids),
        leader=record.leader,
        tricks=tuple(tricks),
        tricks_won=tuple(record.tricks_won),
        points=record.points and (record.points[0], record.points[1]),
        totals=record.totals and (record.totals[0], record.totals[1]),
        redeal=record.redeal,
    )


def build_replay(
    state: GameState,
    names: Sequence[str],
    *,
    forfeit: Forfeit | None = None,
    think: Sequence[ThinkTime | None] | None = None,
    notes: Notes | None = None,
    notes_cut: Sequence[NotesCut | None] | None = None,
) -> Replay:
    """The replay of ``state`` (a finished game, or one ended by ``forfeit``); ``think``, by
    seat, adds each player's think time; ``notes`` the bots' notes on their decisions, by
    place, and ``notes_cut``, by seat, what the referee cut of them."""
    if forfeit is None and not state.is_terminal():
        raise ValueError("a replay needs a finished game or a forfeit")
    last = len(state.deals) - 1
    notes = notes or {}
    deals = tuple(
        _dealing(r, state.trick if i == last and not state.is_terminal() else None, i, notes)
        for i, r in enumerate(state.deals)
    )
    winner = state.winner() if forfeit is None else 1 - team_of(forfeit.seat)
    spent = [None] * SEATS if think is None else list(think)
    cut = [None] * SEATS if notes_cut is None else list(notes_cut)
    players = tuple(
        Player(s, names[s], spent[s], cut[s] if cut[s] != NotesCut() else None)
        for s in range(SEATS)
    )
    totals = (state.totals[0], state.totals[1])
    return Replay(
        state.seed, state.rules, players, state.first_dealer, deals,
        GameResult(totals, winner, forfeit),
    )  # fmt: skip


# ---------------------------------------------------------------------- verifying


def _field(data: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(data, dict) or key not in data:
        raise ReplayError(f"{where} has no '{key}'")
    value = data[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise ReplayError(f"{where} '{key}' has the wrong type: {value!r}")
    return value


def _cards(names: Any, where: str) -> list[int]:
    if not isinstance(names, list):
        raise ReplayError(f"{where} is not a list of cards")
    try:
        return [parse_card(n) for n in names]
    except CardError as e:
        raise ReplayError(f"{where}: {e}") from None


class _Verifier:
    def __init__(self, replay: Any) -> None:
        if not isinstance(replay, dict):
            raise ReplayError("a replay is a JSON object")
        if replay.get("format") != FORMAT:
            raise ReplayError(f"'format' is {replay.get('format')!r}, expected {FORMAT!r}")
        self.version = replay.get("version")
        if self.version not in VERSIONS or isinstance(self.version, bool):
            wanted = " or ".join(map(str, VERSIONS))
            raise ReplayError(f"not version {wanted}: 'version' is {self.version!r}")
        try:
            self.rules = Rules.from_dict(_field(replay, "rules", dict, "the replay"))
        except (RulesError, TypeError) as e:
            raise ReplayError(f"'rules': {e}") from None
        players = _field(replay, "players", list, "the replay")
        expected = [{"seat": s, "team": team_of(s)} for s in range(SEATS)]
        got = [
            {"seat": p.get("seat"), "team": p.get("team")} for p in players if isinstance(p, dict)
        ]
        if not same(got, expected):
            raise ReplayError("'players' must list seats 0..3 in order with teams 0, 1, 0, 1")
        self.seed = replay.get("seed")
        if self.seed is not None and (not isinstance(self.seed, int) or self.seed < 0):
            raise ReplayError(f"'seed' must be an int >= 0 or null, got {self.seed!r}")
        self.first_dealer = _field(replay, "first_dealer", int, "the replay")
        if not 0 <= self.first_dealer < SEATS:
            raise ReplayError(f"'first_dealer' must be 0..3, got {self.first_dealer}")
        self.records = _field(replay, "deals", list, "the replay")
        self.result = _field(replay, "result", dict, "the replay")
        self.seeded: DealSource | None = None
        if self.seed is not None:
            if self.version == 1:
                dealer, self.seeded = version1_dealing(self.seed)
            else:
                dealer, self.seeded = first_dealer(self.seed), seeded_deals(self.seed)
            if dealer != self.first_dealer:
                raise ReplayError(f"'first_dealer' {self.first_dealer} is not the seed's")
        self.dealing = 0  # 1-based index of the dealing being checked

    def _deal_source(self, dealer: int, hand_size: int) -> tuple[list[list[int]], list[int]]:
        index = self.dealing  # the engine asks for the next dealing
        if index >= len(self.records):
            raise ReplayError(f"the game goes on, but the replay ends after dealing {index}")
        rec = self.records[index]
        where = dict(dealing=index + 1, deal=rec.get("number") if isinstance(rec, dict) else None)
        try:
            if _field(rec, "dealer", int, "the dealing") != dealer:
                raise ReplayError(f"dealer is {rec['dealer']}, but the deal passes to {dealer}")
            if _field(rec, "hand_size", int, "the dealing") != hand_size:
                raise ReplayError(f"hand_size is {rec['hand_size']}, the schedule says {hand_size}")
            raw_hands = _field(rec, "hands", list, "the dealing")
            if len(raw_hands) != SEATS:
                raise ReplayError("'hands' must hold 4 hands")
            hands = [_cards(h, f"hands[{s}]") for s, h in enumerate(raw_hands)]
            stock = _cards(rec.get("stock"), "stock")
            for s, h in enumerate(hands):
                if len(h) != hand_size:
                    raise ReplayError(f"seat {s} was dealt {len(h)} cards, not {hand_size}")
            every = [c for h in hands for c in h] + stock
            if sorted(every) != list(range(DECK_SIZE)):
                raise ReplayError("hands and stock are not the 54 cards, each once")
            if self.seeded is not None:
                seeded_hands, seeded_stock = self.seeded(dealer, hand_size)
                same = all(sorted(a) == sorted(b) for a, b in zip(hands, seeded_hands, strict=True))
                if not same or list(seeded_stock) != stock:
                    raise ReplayError(f"the cards dealt are not those of seed {self.seed}")
        except ReplayError as e:
            raise ReplayError(str(e), **where) from None
        self.dealing = index + 1
        return hands, stock

    def run(self) -> GameState:
        state = GameState(self.rules, self.first_dealer, self._deal_source, seed=self.seed)
        forfeit = self.result.get("forfeit")
        for i, rec in enumerate(self.records):
            if state.is_terminal():
                raise ReplayError(f"the game is over after dealing {i}, but more deals follow")
            number = rec.get("number")
            try:
                self._check_dealing(state, state.deals[i], rec)
            except ReplayError as e:
                if e.located:
                    raise
                raise ReplayError(str(e), dealing=i + 1, deal=number) from None
            except _TrickViolation as e:
                raise ReplayError(e.message, dealing=i + 1, deal=number, trick=e.trick) from None
            stopped = i == len(self.records) - 1 and forfeit is not None
            if not stopped:
                try:
                    self._check_scores(state.deals[i], rec)
                except ReplayError as e:
                    raise ReplayError(str(e), dealing=i + 1, deal=number) from None
        self._check_result(state, forfeit)
        return state

    def _check_dealing(self, state: GameState, engine: DealRecord, rec: dict[str, Any]) -> None:
        expect(
            same(rec.get("number"), engine.number),
            f"number is {rec.get('number')!r}, not {engine.number}",
        )
        expect(
            same(rec.get("turned"), card_name(engine.turned)),
            "'turned' is not the top of the stock",
        )
        trump = None if engine.trump is None else SUITS[engine.trump]
        expect(
            same(rec.get("trump"), trump),
            f"trump is {rec.get('trump')!r}, the turned card makes it {trump!r}",
        )
        swap = engine.joker_swap
        want_swap = swap and {"seat": swap.seat, "discarded": card_name(swap.discarded),
                              "drawn": card_name(swap.drawn)}  # fmt: skip
        expect(same(rec.get("joker_swap"), want_swap), f"joker_swap should be {want_swap}")
        bids = _field(rec, "bids", list, "the dealing")
        level = 0
        for bid in bids:
            seat = _field(bid, "seat", int, "a bid")
            expect(seat == state.current_player(), f"seat {seat} bids out of turn")
            try:
                action = parse_bid(bid.get("bid"))
            except BidError as e:
                raise ReplayError(f"seat {seat}: {e}") from None
            try:
                state.apply(action)
            except IllegalActionError as e:
                raise ReplayError(str(e)) from None
            if action == BOARD:
                level += 1
                expect(same(bid.get("board_level"), level), f"seat {seat}'s board is level {level}")
        if rec.get("redeal"):
            expect(engine.redeal, "marked as a redeal, but it was not all passes")
            expect(not rec.get("tricks"), "a redeal has no tricks")
            return
        expect(not engine.redeal or len(bids) < SEATS, "all four passed: this is a redeal")
        if len(bids) < SEATS:
            return  # a forfeit during bidding
        expect(
            same(rec.get("leader"), engine.leader),
            f"leader is {rec.get('leader')}, should be {engine.leader}",
        )
        tricks = _field(rec, "tricks", list, "the dealing")
        for t, trick in enumerate(tricks, start=1):
            try:
                self._check_trick(state, engine, t, trick)
            except ReplayError as e:
                if e.located:
                    raise
                raise _TrickViolation(str(e), t) from None

    def _check_trick(self, state: GameState, engine: DealRecord, number: int, trick: Any) -> None:
        leader = _field(trick, "leader", int, "the trick")
        expect(
            leader == state.current_player(),
            f"leader is {leader}, should be {state.current_player()}",
        )
        plays = _field(trick, "plays", list, "the trick")
        legal = trick.get("legal")
        expect(len(plays) <= SEATS, "a trick has at most four plays")
        for i, play in enumerate(plays):
            if not (isinstance(play, list) and len(play) == 2):
                raise ReplayError(f"play {i + 1} is not [seat, card]")
            seat, name = play
            expect(same(seat, state.current_player()), f"seat {seat} plays out of turn")
            card = _cards([name], f"seat {seat}'s play")[0]
            if legal is not None:
                allowed = sorted(card_name(c) for c in cards_of(state.legal_mask()))
                recorded = sorted(legal[i]) if i < len(legal) else None
                expect(
                    same(recorded, allowed),
                    f"legal list for seat {seat} is {recorded}, the rules allow {allowed}",
                )
            try:
                state.apply(card)
            except IllegalActionError as e:
                raise ReplayError(str(e)) from None
        if len(plays) == SEATS:
            winner = engine.tricks[number - 1].winner
            expect(
                same(trick.get("winner"), winner),
                f"winner is {trick.get('winner')}, should be {winner}",
            )

    def _check_scores(self, engine: DealRecord, rec: dict[str, Any]) -> None:
        if engine.redeal:
            return
        expect(
            same(rec.get("tricks_won"), engine.tricks_won),
            f"tricks_won should be {engine.tricks_won}",
        )
        points = engine.points and list(engine.points)
        expect(
            same(rec.get("points"), points), f"points are {rec.get('points')}, should be {points}"
        )
        totals = engine.totals and list(engine.totals)
        expect(
            same(rec.get("totals"), totals), f"totals are {rec.get('totals')}, should be {totals}"
        )

    def _check_result(self, state: GameState, forfeit: Any) -> None:
        totals = self.result.get("totals")
        expect(same(totals, state.totals), f"result totals are {totals}, should be {state.totals}")
        if forfeit is None:
            expect(
                state.is_terminal(),
                f"the replay ends after {len(self.records)} dealings without a result",
            )
            winner = state.winner()
        else:
            expect(not state.is_terminal(), "a forfeit, but the game was played to the end")
            seat = _field(forfeit, "seat", int, "the forfeit")
            expect(
                0 <= seat < SEATS and same(forfeit.get("team"), team_of(seat)),
                "forfeit seat/team mismatch",
            )
            expect(
                forfeit.get("reason") in FORFEIT_REASONS,
                f"unknown forfeit reason {forfeit.get('reason')!r}",
            )
            winner = 1 - team_of(seat)
        expect(
            same(self.result.get("winner"), winner),
            f"winner is {self.result.get('winner')!r}, should be {winner!r}",
        )


class _TrickViolation(Exception):
    def __init__(self, message: str, trick: int) -> None:
        self.message = message
        self.trick = trick


def same(recorded: Any, expected: Any) -> bool:
    """JSON equality that tells ``true`` from ``1`` (Python's ``==`` does not)."""
    if isinstance(expected, list | tuple):
        return (
            isinstance(recorded, list)
            and len(recorded) == len(expected)
            and all(same(r, e) for r, e in zip(recorded, expected, strict=True))
        )
    if isinstance(expected, dict):
        return (
            isinstance(recorded, dict)
            and recorded.keys() == expected.keys()
            and all(same(recorded[k], v) for k, v in expected.items())
        )
    return type(recorded) is type(expected) and recorded == expected


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise ReplayError(message)


def read_replay(data: Any) -> tuple[Replay, GameState]:
    """A replay's JSON, verified (``verify_replay``) and typed."""
    state = verify_replay(data)
    return Replay.from_dict(data), state


def verify_replay(replay: Any) -> GameState:
    """Re-run the rules over a replay dict; raise ``ReplayError`` at the first violation.
    Returns the game as re-run (its ``deals`` are what a viewer shows)."""
    try:
        return _Verifier(replay).run()
    except (TypeError, KeyError, AttributeError, IndexError) as e:
        raise ReplayError(f"malformed replay: {type(e).__name__}: {e}") from None
