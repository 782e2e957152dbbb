"use strict";
// Cards and bids as values, as the Python SDK's arena_sdk.cards has them.
//
// Cards are made once per kind of deal (by trump), so equal cards of one deal are the same
// object: `obs.legalPlays.includes(card)` works, and so does comparing names.

const SUITS = "SHDC";
const RANKS = "23456789TJQKA";
const JOKERS = Object.freeze(["BB", "LB"]);
const ALL_CARDS = Object.freeze([
  ...[...SUITS].flatMap((s) => [...RANKS].map((r) => r + s)),
  ...JOKERS,
]);

/** Not one of the 54 card names. */
class CardError extends Error {
  constructor(message) {
    super(message);
    this.name = "CardError";
  }
}

/** One card; `isTrump` says whether it is trump in its deal. */
class Card {
  constructor(name, isTrump) {
    this.name = name;
    this.isTrump = isTrump;
    Object.freeze(this);
  }

  /** The card called `name` in a deal whose trump suit is `trump` (null: no trump). */
  static parse(name, trump = null) {
    const card = BY_TRUMP.get(trump ?? null)?.get(name);
    if (card === undefined) {
      throw new CardError(
        `not a card: ${JSON.stringify(name)} (expected e.g. 'TS', 'AH', 'BB', 'LB')`,
      );
    }
    return card;
  }

  get isJoker() {
    return JOKERS.includes(this.name);
  }

  /** "2" ... "A"; "BB" or "LB" for a joker. */
  get rank() {
    return this.isJoker ? this.name : this.name[0];
  }

  /** "S", "H", "D" or "C"; null for a joker (it counts as trump). */
  get suit() {
    return this.isJoker ? null : this.name[1];
  }

  /** 0 for a two ... 12 for an ace; 13 for LB and 14 for BB. */
  get rankValue() {
    if (this.isJoker) return this.name === "BB" ? 14 : 13;
    return RANKS.indexOf(this.name[0]);
  }

  /** Whether `other` (a Card or a name) is this card. */
  equals(other) {
    return other instanceof Card ? other.name === this.name : other === this.name;
  }

  toString() {
    return this.name;
  }

  toJSON() {
    return this.name;
  }
}

// Every card in every kind of deal, made once: parsing is a lookup.
const BY_TRUMP = new Map(
  [null, ...SUITS].map((trump) => [
    trump,
    new Map(
      ALL_CARDS.map((name) => [
        name,
        new Card(name, trump !== null && (JOKERS.includes(name) || name[1] === trump)),
      ]),
    ),
  ]),
);

/** A bid: pass, a number of tricks, or board (all the tricks, with partner). */
class Bid {
  constructor(kind, number = 0) {
    this.kind = kind; // "pass", "number" or "board"
    this.number = number; // tricks, for kind "number"
    Object.freeze(this);
  }

  /** The bid of `n` tricks (the same object for the same n, 1..12). */
  static numberOf(n) {
    return NUMBERS[n] ?? new Bid("number", n);
  }

  /** "pass", "board", or a number of tricks. */
  static parse(value) {
    if (value instanceof Bid) return value;
    if (value === "pass") return Bid.PASS;
    if (value === "board") return Bid.BOARD;
    if (Number.isInteger(value)) return Bid.numberOf(value);
    throw new TypeError(
      `not a bid: ${JSON.stringify(value)} (expected 'pass', 'board' or a number)`,
    );
  }

  /** What this bid adds to a numeric team contract (pass and board: 0). */
  get tricks() {
    return this.kind === "number" ? this.number : 0;
  }

  /** Whether `other` (a Bid, "pass", "board" or a number) is this bid. */
  equals(other) {
    if (other instanceof Bid) return other.kind === this.kind && other.number === this.number;
    return this.kind === "number" ? other === this.number : other === this.kind;
  }

  toString() {
    return this.kind === "number" ? String(this.number) : this.kind;
  }

  toJSON() {
    return this.kind === "number" ? this.number : this.kind;
  }
}

Bid.PASS = new Bid("pass");
Bid.BOARD = new Bid("board");
const NUMBERS = Object.fromEntries(
  Array.from({ length: 12 }, (_, i) => [i + 1, new Bid("number", i + 1)]),
);

module.exports = { ALL_CARDS, Bid, Card, CardError, JOKERS, RANKS, SUITS };
