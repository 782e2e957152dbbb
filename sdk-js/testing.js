"use strict";
// Observations for unit tests of a bot, from a compact description (lib/testing.js).
module.exports = require("./lib/testing");
