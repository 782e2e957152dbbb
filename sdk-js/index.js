"use strict";
/**
 * Write a Back Alley bot in JavaScript: extend Bot, answer bid(obs) and play(obs), call run.
 *
 *   const { Bot, run } = require("backalley-sdk");
 *   class MyBot extends Bot {
 *     bid(obs) { return obs.legalBids[0]; }
 *     play(obs) { return obs.legalPlays[0]; }
 *   }
 *   if (require.main === module) run(new MyBot());
 */

const { Bot } = require("./lib/bot");
const { ALL_CARDS, Bid, Card, CardError } = require("./lib/cards");
const { Observation } = require("./lib/observation");
const { Random } = require("./lib/random");
const { IllegalDecisionError, run } = require("./lib/server");
const { version } = require("./package.json");

module.exports = {
  ALL_CARDS, Bid, Bot, Card, CardError, IllegalDecisionError, Observation, Random, run, version,
};
