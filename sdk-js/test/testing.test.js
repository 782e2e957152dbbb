"use strict";
// The builder's documented examples; tests/sdk_js/test_testing_js.py checks it against the
// Python SDK's on every decision of random games.
const test = require("node:test");
const assert = require("node:assert/strict");
const { observation } = require("../testing");

test("a bid, a follow and a later trick, as the Python SDK's doctest has them", () => {
  let obs = observation("AS KD 3C", { trump: "H", bids: "1 pass" });
  assert.deepEqual([obs.seat, obs.legalBids.map(String)], [0, ["pass", "1", "2", "board"]]);
  obs = observation("AS KD 3D", { trump: "H", bids: "1 pass 2 pass", trick: "QD" });
  assert.deepEqual(obs.legalPlays.map(String), ["KD", "3D"]);
  obs = observation("KD 3D", { trump: "H", bids: "1 pass 2 pass", tricks: ["QS 2S AS 5H"], trick: "QD" });
  assert.deepEqual([obs.tricksWon, obs.trumpsBroken], [[0, 0, 0, 1], true]);
});

test("a description no deal can reach is refused, saying why", () => {
  assert.throws(() => observation("AS AS"), /a card is given twice: AS/);
  assert.throws(() => observation("AS KD", { trick: "QD" }), /all four before a trick/);
});
