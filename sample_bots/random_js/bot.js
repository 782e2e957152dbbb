// A bot that bids and plays uniformly at random among the legal options, in JavaScript.
//
// Its randomness comes from this.rng, which the referee seeds for each game, so it plays a
// given game the same way every time.
"use strict";

const { Bot, run } = require("backalley-sdk");

class RandomBot extends Bot {
  constructor() {
    super();
    this.name = "random_js";
  }

  bid(obs) {
    return this.rng.choice(obs.legalBids);
  }

  play(obs) {
    return this.rng.choice(obs.legalPlays);
  }
}

if (require.main === module) run(new RandomBot());

module.exports = { RandomBot };
