"use strict";
// The class a bot author extends, as the Python SDK's arena_sdk.Bot.

const { Random } = require("./random");

const HOOKS = ["onTrick", "onDealEnd", "onGameEnd"];
// What the referee keeps of a bot's notes (docs/sdk.md), as the Python SDK's bot.py.
const NOTE_MAX_CHARS = 160;
const NOTES_PER_GAME = 100;

/** The first `n` characters of `text` (code points, as the referee counts them). */
function cut(text, n) {
  const chars = Array.from(text);
  return chars.length <= n ? text : chars.slice(0, n).join("");
}

/**
 * Extend it and answer `bid(obs)` and `play(obs)` (either may return a Promise); the hooks
 * are optional. `this.rng` is seeded by the referee for each game, so a bot that draws its
 * randomness from it plays a given game the same way every time. `this.seat`,
 * `this.limits` ({moveMs, bankMs}) and `this.rules` (the game's rule parameters, e.g.
 * {max_redeals: 5}) are set before the first decision.
 */
class Bot {
  constructor() {
    // What the bot calls itself in Hello; the class name if empty.
    this.name = "";
    this.rng = new Random(0);
    this.seat = -1;
    this.limits = Object.freeze({ moveMs: 1000, bankMs: 10000 });
    this.rules = {};
    this._noteParts = []; // this decision's notes so far
    this._notesSent = 0; // noted decisions this game
  }

  /**
   * Attach `text` to the decision being made (call it from `bid` or `play`): the replay
   * shows it beside that step, to you (the bot's owner) and to operators only. Several
   * notes in one decision are joined with " · "; plain text, cut to 160 characters; after
   * 100 noted decisions in a game the rest are dropped.
   */
  note(text) {
    const parts = this._noteParts;
    const kept = parts.reduce((sum, part) => sum + part.length, 0);
    // Beyond the cap nothing more is kept: a note in a loop grows nothing.
    if (this._notesSent < NOTES_PER_GAME && kept <= NOTE_MAX_CHARS) {
      parts.push(cut(String(text), NOTE_MAX_CHARS + 1));
    }
  }

  /** The note of the decision just made ("" if none), counted against the game's cap. */
  _takeNote() {
    const parts = this._noteParts;
    this._noteParts = [];
    const text = cut(parts.filter((part) => part).join(" · "), NOTE_MAX_CHARS);
    if (text) this._notesSent += 1;
    return text;
  }

  /** Return one of `obs.legalBids` (a Bid, "pass", "board" or a number of tricks). */
  bid(obs) {
    throw new Error("a bot must define bid(obs)");
  }

  /** Return one of `obs.legalPlays` (a Card or its name, "TS"). */
  play(obs) {
    throw new Error("a bot must define play(obs)");
  }

  /** A new game begins; this.seat, this.limits and this.rng are set. */
  onGameStart(seat, limits) {}

  /** A trick was completed: {leader, plays: [{seat, card}], winner}. */
  onTrick(trick) {}

  /** A deal was scored, or redealt after four passes:
   * {dealNumber, redeal, tricksWon (per seat), points, totals (per team)}. */
  onDealEnd(result) {}

  /** The game is over: {totals, winner (a team, null for a draw), reason}. */
  onGameEnd(result) {}

  /** Whether this bot overrides a hook; if not, the referee need not call them. */
  wantsNotifications() {
    return HOOKS.some((hook) => this[hook] !== Bot.prototype[hook]);
  }
}

module.exports = { Bot, NOTE_MAX_CHARS, NOTES_PER_GAME };
