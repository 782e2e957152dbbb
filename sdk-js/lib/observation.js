"use strict";
// What a bot sees when it must act: a read-only view of one seat's observation, as the
// Python SDK's arena_sdk.observation has it (camelCase names). Built lazily from the
// protocol message: a bot that only reads legalPlays pays for nothing else.

const { ALL_CARDS, Bid, Card } = require("./cards");

const SEATS = 4;

/** A bid message ({kind: "BID_KIND_PASS", number}) as a Bid. */
function bidFromMessage(msg) {
  switch (msg.kind) {
    case "BID_KIND_PASS":
      return Bid.PASS;
    case "BID_KIND_BOARD":
      return Bid.BOARD;
    case "BID_KIND_NUMBER":
      return Bid.numberOf(msg.number);
    default:
      throw new Error(`unknown bid kind ${msg.kind}`);
  }
}

/** A trick message as {leader, plays: [{seat, card}], winner (null while in play), led}. */
function trickFromMessage(msg, trump) {
  const plays = Object.freeze(
    (msg.plays ?? []).map((p) => Object.freeze({ seat: p.seat, card: Card.parse(p.card, trump) })),
  );
  const winner = msg.winner === undefined || msg.winner === null ? null : msg.winner;
  return Object.freeze({ leader: msg.leader, plays, winner, led: plays[0]?.card ?? null });
}

/** Defines `name` on `cls` as a getter computed once per instance. */
function cached(cls, name, compute) {
  Object.defineProperty(cls.prototype, name, {
    get() {
      const value = compute.call(this);
      Object.defineProperty(this, name, { value });
      return value;
    },
  });
}

/** One seat's view of the game at a decision. Seats 0-3 clockwise; teams {0,2}, {1,3}. */
class Observation {
  constructor(request) {
    this._request = request;
    this._obs = request.observation;
  }

  _card(name) {
    return Card.parse(name, this.trump);
  }

  // ---------------------------------------------------------------- who and where

  get seat() {
    return this._obs.seat;
  }

  get team() {
    return this._obs.seat % 2;
  }

  get partner() {
    return (this._obs.seat + 2) % SEATS;
  }

  /** The two opponents' seats, left one first. */
  get opponents() {
    return [(this._obs.seat + 1) % SEATS, (this._obs.seat + 3) % SEATS];
  }

  get dealer() {
    return this._obs.dealer;
  }

  /** 1..25. */
  get dealNumber() {
    return this._obs.dealNumber;
  }

  get handSize() {
    return this._obs.handSize;
  }

  /** All-pass redeals just before this deal (see Bot.rules.max_redeals). */
  get redealsInRow() {
    return this._obs.redealsInRow;
  }

  /** What is left of this bot's time bank for the game. */
  get timeLeftMs() {
    return this._obs.timeLeftMs;
  }

  /** Scores per team before this deal. */
  get totals() {
    const t = this._obs.totals ?? [];
    return [t[0] ?? 0, t[1] ?? 0];
  }

  get trumpsBroken() {
    return this._obs.trumpsBroken;
  }

  /** Whether this is a bid decision (else a play). */
  get isBidding() {
    return (this._request.legalBids ?? []).length > 0;
  }

  /** The team's contract from the bids so far: {tricks, boardLevel, isBoard}. */
  contract(team) {
    const mine = this.bids.filter((b) => b.seat % 2 === team);
    const boardLevel = Math.max(0, ...mine.map((b) => b.boardLevel));
    const tricks = mine.reduce((sum, b) => sum + b.bid.tricks, 0);
    return Object.freeze({ tricks, boardLevel, isBoard: boardLevel > 0 });
  }

  teamTricks(team) {
    return this.tricksWon[team] + this.tricksWon[team + 2];
  }

  /** Whether `card` follows the suit of `led` (any trump follows a trump lead). */
  follows(card, led) {
    return led.isTrump ? card.isTrump : card.suit === led.suit;
  }

  /** How strongly `card` contends for a trick led by `led` (default: the current trick's
   * lead; a card that would lead counts as its own lead). Higher wins. */
  power(card, led = null) {
    const lead = led ?? this.currentTrick.led ?? card;
    if (card.isTrump) return 100 + card.rankValue;
    return this.follows(card, lead) ? card.rankValue : -1;
  }

  toString() {
    const what = this.isBidding ? "bid" : "play";
    return (
      `<Observation seat ${this.seat} deal ${this.dealNumber} (${this.handSize} cards)` +
      ` to ${what}, hand ${this.hand.join(" ")}>`
    );
  }
}

/** "S", "H", "D", "C", or null in a no-trump deal. */
cached(Observation, "trump", function () {
  return this._obs.trump || null;
});
cached(Observation, "hand", function () {
  return Object.freeze((this._obs.hand ?? []).map((n) => this._card(n)));
});
cached(Observation, "turned", function () {
  return this._card(this._obs.turned);
});
/** After a turned joker: {seat, discarded, drawn (null unless this seat swapped)}, else null. */
cached(Observation, "jokerSwap", function () {
  const swap = this._obs.jokerSwap;
  if (!swap) return null;
  const drawn = swap.drawn ? this._card(swap.drawn) : null;
  return Object.freeze({ seat: swap.seat, discarded: this._card(swap.discarded), drawn });
});
/** This deal's bids so far, in bidding order: [{seat, bid, boardLevel}]. */
cached(Observation, "bids", function () {
  return Object.freeze(
    (this._obs.bids ?? []).map((b) =>
      Object.freeze({ seat: b.seat, bid: bidFromMessage(b.bid), boardLevel: b.bid.boardLevel }),
    ),
  );
});
/** This deal's completed tricks. */
cached(Observation, "tricks", function () {
  return Object.freeze((this._obs.tricks ?? []).map((t) => trickFromMessage(t, this.trump)));
});
cached(Observation, "currentTrick", function () {
  return trickFromMessage(this._obs.currentTrick ?? { leader: 0, plays: [] }, this.trump);
});
/** Per seat, this deal. */
cached(Observation, "tricksWon", function () {
  const won = this._obs.tricksWon ?? [];
  return Object.freeze(Array.from({ length: SEATS }, (_, s) => won[s] ?? 0));
});
/** Every card played this deal, in order, the current trick included. */
cached(Observation, "cardsPlayed", function () {
  return Object.freeze(
    [...this.tricks, this.currentTrick].flatMap((t) => t.plays.map((p) => p.card)),
  );
});
/** Cards this seat has not seen (a Set): in other hands or the stock. Jokers of a no-trump
 * deal are out of play, so they are never unseen. */
cached(Observation, "unseen", function () {
  const seen = new Set([...this.hand, ...this.cardsPlayed].map((c) => c.name));
  seen.add(this.turned.name);
  if (this.jokerSwap !== null) seen.add(this.jokerSwap.discarded.name);
  if (this.trump === null) ["BB", "LB"].forEach((j) => seen.add(j));
  return new Set(ALL_CARDS.filter((n) => !seen.has(n)).map((n) => this._card(n)));
});
/** Suits each seat has shown it lacks by not following them: an array by seat of Sets of
 * suit letters. Failing to follow a trump lead voids the trump suit (and the jokers). */
cached(Observation, "voids", function () {
  const out = Array.from({ length: SEATS }, () => new Set());
  for (const trick of [...this.tricks, this.currentTrick]) {
    if (trick.plays.length === 0) continue;
    const led = trick.led;
    const suit = led.isTrump ? this.trump : led.suit;
    for (const play of trick.plays.slice(1)) {
      if (suit && !this.follows(play.card, led)) out[play.seat].add(suit);
    }
  }
  return Object.freeze(out);
});
/** The play winning the current trick so far ({seat, card}), null before the lead. */
cached(Observation, "winning", function () {
  const plays = this.currentTrick.plays;
  if (plays.length === 0) return null;
  return plays.reduce((best, p) => (this.power(p.card) > this.power(best.card) ? p : best));
});
/** Empty unless this is a bid decision. */
cached(Observation, "legalBids", function () {
  return Object.freeze((this._request.legalBids ?? []).map(bidFromMessage));
});
/** Empty unless this is a play decision. */
cached(Observation, "legalPlays", function () {
  return Object.freeze((this._request.legalPlays ?? []).map((n) => this._card(n)));
});

module.exports = { Observation, bidFromMessage, trickFromMessage };
