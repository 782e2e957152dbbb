"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { Bid, Card, Observation } = require("..");
const { bidRequest, followRequest } = require("./helpers");

test("who and where", () => {
  const obs = new Observation(followRequest());
  assert.deepEqual(
    [obs.seat, obs.team, obs.partner, obs.opponents, obs.dealer, obs.dealNumber, obs.handSize],
    [0, 0, 2, [1, 3], 3, 22, 4],
  );
  assert.deepEqual([obs.totals, obs.timeLeftMs, obs.redealsInRow], [[120, -40], 9000, 0]);
  assert.equal(obs.isBidding, false);
});

test("the cards, as values of the deal's trump", () => {
  const obs = new Observation(followRequest());
  assert.equal(obs.trump, "H");
  assert.deepEqual(obs.hand.map(String), ["AS", "KD", "3D", "2H"]);
  assert.ok(obs.hand[3].isTrump);
  assert.equal(obs.turned, Card.parse("7H", "H"));
  assert.equal(obs.jokerSwap, null);
  assert.deepEqual(obs.legalPlays.map(String), ["KD", "3D"]);
  assert.ok(obs.legalPlays.includes(obs.hand[1]), "one object per card of a deal");
  assert.deepEqual(obs.legalBids, []);
});

test("bids, contracts, tricks and the trick in play", () => {
  const obs = new Observation(followRequest());
  assert.deepEqual(obs.bids.map((b) => String(b.bid)), ["1", "pass", "1", "board"]);
  assert.deepEqual(obs.contract(0), { tricks: 2, boardLevel: 0, isBoard: false });
  assert.deepEqual(obs.contract(1), { tricks: 0, boardLevel: 1, isBoard: true });
  assert.equal(obs.tricks.length, 1);
  assert.equal(obs.tricks[0].winner, 1);
  assert.equal(obs.currentTrick.winner, null);
  assert.equal(obs.currentTrick.led, Card.parse("QD", "H"));
  assert.deepEqual([obs.trumpsBroken, obs.tricksWon, obs.teamTricks(1)], [true, [0, 1, 0, 0], 1]);
  assert.deepEqual(obs.cardsPlayed.map(String), ["QS", "AH", "2C", "3S", "QD"]);
  assert.deepEqual(obs.winning, { seat: 3, card: Card.parse("QD", "H") });
});

test("what can be inferred: unseen cards, voids, power", () => {
  const obs = new Observation(followRequest());
  // 54 cards less the hand (4), the played (5) and the turned card.
  assert.equal(obs.unseen.size, 44);
  assert.ok(!obs.unseen.has(Card.parse("QS", "H")) && obs.unseen.has(Card.parse("BB", "H")));
  assert.deepEqual([...obs.voids[2]], ["S"]); // discarded a club on a spade lead
  assert.deepEqual([...obs.voids[1]], ["S"]); // trumped it
  assert.equal(obs.voids[0].size, 0);
  const [kd, threeD] = obs.legalPlays;
  assert.ok(obs.power(kd) > obs.power(obs.winning.card) && obs.power(threeD) < obs.power(kd));
  assert.equal(obs.power(obs.hand[0]), -1); // a spade does not follow diamonds
  assert.ok(obs.power(obs.hand[3]) >= 100); // a trump beats them all
  assert.ok(obs.follows(kd, obs.currentTrick.led));
  assert.match(String(obs), /seat 0 deal 22 \(4 cards\) to play, hand AS KD 3D 2H/);
});

test("a bid decision: the legal bids, and jokers out of a no-trump deal's unseen", () => {
  const obs = new Observation(bidRequest());
  assert.equal(obs.isBidding, true);
  assert.deepEqual(obs.legalBids, [Bid.PASS, Bid.numberOf(1), Bid.numberOf(2), Bid.BOARD]);
  assert.deepEqual(obs.legalPlays, []);
  assert.equal(obs.winning, null);
  assert.ok(obs.hand[2].isTrump); // BB
  assert.equal(obs.contract(0).tricks, 0);
});
