"use strict";
// The class a bot author extends, as the Python SDK's arena_sdk.Bot.

const { Random } = require("./random");

const HOOKS = ["onTrick", "onDealEnd", "onGameEnd"];

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

module.exports = { Bot };
