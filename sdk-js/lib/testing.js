"use strict";
// Observations for unit tests of a bot's bid and play, from a compact description: the
// Python SDK's arena_sdk.testing.observation, the same rules and the same checks (a test of
// this package compares the two on the same descriptions).
//
//   const { observation } = require("backalley-sdk/testing");
//   const obs = observation("AS KD 3D", { trump: "H", bids: "1 pass 2 pass", trick: "QD" });
//   obs.legalPlays.map(String)   // ["KD", "3D"]

const { Card } = require("./cards");
const { Observation } = require("./observation");

const SEATS = 4;
const RANKS = "23456789TJQKA";
const JOKERS = ["BB", "LB"];

/**
 * The observation of `seat` holding `hand` ("AS KD 3C" or a list) with `trump` ("S", "H",
 * "D", "C" or null), after `bids` ("1 pass board" or a list), and, once all four have bid,
 * the deal's completed `tricks` (["QS 2S AS 5H", ...], each from its leader) and the
 * `trick` in play so far ("QD 2D"). The deal's size is `handSize` if given, else the hand's
 * cards plus the tricks. Throws for a description no deal can reach.
 */
function observation(
  hand,
  { trump = "S", bids = "", tricks = [], trick = "", seat = 0, handSize = null, totals = [0, 0] } = {},
) {
  const cards = cardList(hand);
  const played = cardList(trick);
  if (typeof tricks === "string") {
    throw new Error("tricks is a list of tricks, each its four cards: ['QS 2S AS 5H', ...]");
  }
  const done = tricks.map(cardList);
  const bidList = (typeof bids === "string" ? bids.split(/\s+/).filter(Boolean) : bids).map(bidOf);
  if (!(Number.isInteger(seat) && seat >= 0 && seat < SEATS)) throw new Error(`seat is 0-3, got ${seat}`);
  const n = dealSize(cards.length, done.length, handSize);
  const seen = [...cards, ...played, ...done.flat()];
  check(seen, played, done, bidList, trump, n);
  const bidding = bidList.length < SEATS;
  // Seats relative to the first trick's leader (0): each trick's winner leads the next.
  let leader = 0;
  const won = [0, 0, 0, 0];
  const history = [];
  for (const t of done) {
    const winner = (leader + winningIndex(t, trump)) % SEATS;
    history.push([leader, t, winner]);
    won[winner] += 1;
    leader = winner;
  }
  const first = bidding ? bidList.length : leaderIndex(bidList) + leader + played.length;
  const dealer = mod(seat - 1 - first, SEATS);
  const leader0 = (dealer + 1 + (bidding ? 0 : leaderIndex(bidList))) % SEATS;
  const current = mod(seat - played.length, SEATS);
  const broken = seen.some((c) => !cards.includes(c) && isTrump(c, trump));
  let level = 0;
  const bidMessages = bidList.map((b, j) => {
    level += b === "board" ? 1 : 0;
    return { seat: (dealer + 1 + j) % SEATS, bid: bidMessage(b, level) };
  });
  const obs = {
    seat, dealNumber: 14 - n, handSize: n, dealer, hand: cards, turned: turned(trump, seen),
    trump: trump ?? "", jokerSwap: null, bids: bidMessages, tricks: [],
    currentTrick: { leader: 0, plays: [] }, trumpsBroken: broken,
    tricksWon: Array.from({ length: SEATS }, (_, s) => won[mod(s - leader0, SEATS)]),
    totals: [...totals], redealsInRow: 0, timeLeftMs: 0,
  };
  if (bidding) {
    const legalBids = [bidMessage("pass", 0)];
    for (let k = 1; k < n; k++) legalBids.push(bidMessage(k, 0));
    legalBids.push(bidMessage("board", 0));
    return new Observation({ observation: obs, legalBids, legalPlays: [] });
  }
  obs.tricks = history.map(([lead, t, winner]) => ({
    leader: (leader0 + lead) % SEATS,
    plays: t.map((card, i) => ({ seat: (leader0 + lead + i) % SEATS, card })),
    winner: (leader0 + winner) % SEATS,
  }));
  obs.currentTrick = {
    leader: current,
    plays: played.map((card, i) => ({ seat: (current + i) % SEATS, card })),
  };
  const claimed = bidList.some((b, j) => b === "board" && (dealer + 1 + j) % SEATS === seat);
  const legalPlaysOf = legalPlays(cards, played, trump, broken, claimed);
  return new Observation({ observation: obs, legalBids: [], legalPlays: legalPlaysOf });
}

/** The cards of `hand` the rules allow after `trick` (docs/rules.md, "Play"). */
function legalPlays(hand, trick, trump, trumpsBroken, claimedBoard) {
  const trumps = hand.filter((c) => isTrump(c, trump));
  if (trick.length === 0) {
    if (trumps.length && trumps.length < hand.length && !trumpsBroken && !claimedBoard) {
      return hand.filter((c) => !isTrump(c, trump));
    }
    return [...hand];
  }
  const led = trick[0];
  if (JOKERS.includes(led)) {
    if (!trumps.length) return [...hand];
    const byStrength = (a, b) => strength(a) - strength(b);
    if (led === "BB") return [[...trumps].sort(byStrength).at(-1)];
    const plain = trumps.filter((c) => !JOKERS.includes(c)).sort(byStrength);
    return plain.length ? [plain[0]] : ["BB"];
  }
  const suit = hand.filter((c) => !JOKERS.includes(c) && c[1] === led[1]);
  const follow = isTrump(led, trump) ? trumps : suit;
  return follow.length ? follow : [...hand];
}

function dealSize(held, finished, handSize) {
  const n = handSize ?? held + finished;
  if (held !== n - finished) {
    throw new Error(
      `a hand of ${held} cards after ${finished} tricks is not a deal of ${n}: it holds ${n - finished}`,
    );
  }
  if (!(held >= 1 && held <= n && n <= 13)) {
    throw new Error(`a deal is 1 to 13 cards, one at least still in hand; got ${held} of ${n}`);
  }
  return n;
}

/** Refuse what no deal can reach, saying why. */
function check(seen, played, done, bids, trump, n) {
  if (trump !== null && !(typeof trump === "string" && trump.length === 1 && "SHDC".includes(trump))) {
    throw new Error(`trump is S, H, D, C or null, got ${JSON.stringify(trump)}`);
  }
  done.forEach((t, i) => {
    if (t.length !== SEATS) throw new Error(`completed trick ${i + 1} has ${t.length} cards, not four`);
  });
  if (trump === null && seen.some((c) => JOKERS.includes(c))) {
    throw new Error("no joker is in play in a no-trump deal");
  }
  const twice = [...new Set(seen.filter((c, i) => seen.indexOf(c) !== i))].sort();
  if (twice.length) throw new Error(`a card is given twice: ${twice.join(" ")}`);
  if (bids.length > SEATS || played.length > 3) {
    throw new Error("give at most four bids and at most 3 cards of the trick in play");
  }
  if ((played.length || done.length) && bids.length < SEATS) {
    throw new Error("a trick is played after the bids, all four before a trick");
  }
  for (const b of bids) {
    if (Number.isInteger(b) && !(b >= 1 && b < n)) {
      throw new Error(`bid ${b} is out of range for ${n} cards`);
    }
  }
}

function isTrump(card, trump) {
  return trump !== null && (JOKERS.includes(card) || card[1] === trump);
}

function strength(card) {
  return { BB: 15, LB: 14 }[card] ?? RANKS.indexOf(card[0]);
}

/** Which of a complete trick's cards wins it. */
function winningIndex(trick, trump) {
  const power = (card) => {
    if (isTrump(card, trump)) return 100 + strength(card);
    const led = trick[0];
    return !isTrump(led, trump) && card[1] === led[1] ? strength(card) : -1;
  };
  let best = 0;
  for (let i = 1; i < SEATS; i++) if (power(trick[i]) > power(trick[best])) best = i;
  return best;
}

function cardList(cards) {
  const names = typeof cards === "string" ? cards.split(/\s+/).filter(Boolean) : [...cards];
  return names.map((name) => Card.parse(name).name); // Card.parse names a bad one
}

function bidOf(value) {
  if (value === "pass" || value === "board") return value;
  const n = typeof value === "number" ? value : /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n)) throw new Error(`not a bid: ${JSON.stringify(value)} (pass, board or a number)`);
  return n;
}

function bidMessage(bid, level) {
  if (bid === "pass") return { kind: "BID_KIND_PASS", number: 0, boardLevel: 0 };
  if (bid === "board") return { kind: "BID_KIND_BOARD", number: 0, boardLevel: level };
  return { kind: "BID_KIND_NUMBER", number: bid, boardLevel: 0 };
}

/** Which bid leads the first trick: the last board claim, else the earliest highest number. */
function leaderIndex(bids) {
  const boards = bids.flatMap((b, j) => (b === "board" ? [j] : []));
  if (boards.length) return boards.at(-1);
  const numbers = bids.map((b) => (Number.isInteger(b) ? b : 0));
  return numbers.indexOf(Math.max(...numbers));
}

/** A turned card that gives `trump` and is in nobody's view already. */
function turned(trump, used) {
  if (trump === null) return "LB";
  return [...RANKS].map((r) => r + trump).find((c) => !used.includes(c));
}

function mod(a, n) {
  return ((a % n) + n) % n;
}

module.exports = { legalPlays, observation };
