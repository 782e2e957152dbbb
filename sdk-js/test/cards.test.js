"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { ALL_CARDS, Bid, Card, CardError } = require("..");

test("a card knows its rank, suit and whether it is trump in its deal", () => {
  const ten = Card.parse("TS", "S");
  assert.deepEqual([ten.rank, ten.suit, ten.isTrump, String(ten)], ["T", "S", true, "TS"]);
  assert.equal(Card.parse("TS", "H").isTrump, false);
  assert.equal(Card.parse("TS").isTrump, false);
  const big = Card.parse("BB", "H");
  assert.deepEqual([big.suit, big.rankValue, big.isJoker, big.isTrump], [null, 14, true, true]);
  assert.equal(Card.parse("LB", "D").rankValue, 13);
  assert.equal(Card.parse("2C").rankValue, 0);
  assert.equal(Card.parse("AC").rankValue, 12);
});

test("equal cards of one deal are one object, and equal their names", () => {
  assert.equal(Card.parse("AS", "H"), Card.parse("AS", "H"));
  assert.ok(Card.parse("AS").equals("AS"));
  assert.ok(Card.parse("AS").equals(Card.parse("AS", "S")));
  assert.equal(ALL_CARDS.length, 54);
});

test("a name that is not a card is refused, saying what was expected", () => {
  assert.throws(() => Card.parse("1S"), CardError);
  assert.throws(() => Card.parse("AS", "X"), /not a card: "AS"/);
});

test("bids parse from pass, board and numbers", () => {
  assert.equal(Bid.parse("pass"), Bid.PASS);
  assert.equal(Bid.parse("board"), Bid.BOARD);
  assert.equal(Bid.parse(3), Bid.numberOf(3));
  assert.deepEqual([String(Bid.numberOf(3)), String(Bid.PASS)], ["3", "pass"]);
  assert.equal(Bid.numberOf(4).tricks, 4);
  assert.equal(Bid.BOARD.tricks, 0);
  assert.ok(Bid.numberOf(2).equals(2) && Bid.PASS.equals("pass") && !Bid.PASS.equals(0));
  assert.throws(() => Bid.parse("two"), /not a bid: "two"/);
});
