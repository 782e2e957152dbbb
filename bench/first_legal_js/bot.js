// The cheapest legal bot, in JavaScript: the first legal option, always.
"use strict";

const { Bot, run } = require("backalley-sdk");

class FirstLegal extends Bot {
  constructor() {
    super();
    this.name = "first-legal-js";
  }

  bid(obs) {
    return obs.legalBids[0];
  }

  play(obs) {
    return obs.legalPlays[0];
  }
}

if (require.main === module) run(new FirstLegal());
