"use strict";
// The SDK's service over a real gRPC socket, called as the referee calls it.
const test = require("node:test");
const assert = require("node:assert/strict");
const grpc = require("@grpc/grpc-js");
const { Bid, Bot } = require("..");
const { bidRequest, followRequest, serve } = require("./helpers");

const HELLO = {
  protocolVersion: "PROTOCOL_VERSION_1", seat: 2, limits: { moveMs: 700, bankMs: 5000 },
  botSeed: "12345678901234567890", rules: { max_redeals: "5" },
};

class Lowest extends Bot {
  bid(obs) {
    return "pass";
  }
  play(obs) {
    return obs.legalPlays.at(-1).name;
  }
}

test("Hello sets the seat, limits, rules and rng, and answers protocol version 1", async (t) => {
  const bot = new Lowest();
  const { call, close } = await serve(bot);
  t.after(close);
  const reply = await call("Hello", HELLO);
  assert.equal(reply.protocolVersion, "PROTOCOL_VERSION_1");
  assert.equal(reply.botName, "Lowest");
  assert.equal(reply.wantsNotifications, false);
  assert.deepEqual([bot.seat, bot.limits, bot.rules], [2, { moveMs: 700, bankMs: 5000 }, { max_redeals: 5 }]);
  const first = bot.rng.below(1 << 30);
  await call("Hello", HELLO);
  assert.equal(bot.rng.below(1 << 30), first, "the same seed, the same draws");
});

test("answers are sent as the protocol's messages, from a name or a value", async (t) => {
  const { call, close } = await serve(new Lowest());
  t.after(close);
  assert.deepEqual(await call("Bid", bidRequest()), { bid: { kind: "BID_KIND_PASS", number: 0, boardLevel: 0 }, note: "" });
  assert.deepEqual(await call("Play", followRequest()), { card: "3D", note: "" }); // no note sent
});

test("an async answer is awaited", async (t) => {
  class Thinker extends Bot {
    async bid(obs) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return Bid.numberOf(2);
    }
  }
  const { call, close } = await serve(new Thinker());
  t.after(close);
  assert.deepEqual((await call("Bid", bidRequest())).bid, { kind: "BID_KIND_NUMBER", number: 2, boardLevel: 0 });
});

test("an illegal answer is refused with FAILED_PRECONDITION, never sent", async (t) => {
  class Renege extends Bot {
    play(obs) {
      return "AS"; // held, but diamonds were led
    }
  }
  const { call, close } = await serve(new Renege());
  t.after(close);
  await assert.rejects(call("Play", followRequest()), (e) => {
    assert.equal(e.code, grpc.status.FAILED_PRECONDITION);
    assert.match(e.details, /play\(\) returned "AS", not one of the legal plays: KD 3D/);
    return true;
  });
});

test("a throw is INTERNAL with its message; the bot goes on serving", async (t) => {
  class Broken extends Bot {
    bid(obs) {
      throw new RangeError("no idea");
    }
    play(obs) {
      return obs.legalPlays[0];
    }
  }
  const { call, close } = await serve(new Broken());
  t.after(close);
  const logged = t.mock.method(console, "error", () => {});
  await assert.rejects(call("Bid", bidRequest()), (e) => {
    assert.equal(e.code, grpc.status.INTERNAL);
    assert.equal(e.details, "RangeError: no idea");
    return true;
  });
  assert.match(String(logged.mock.calls[0].arguments[0]), /RangeError: no idea\n\s+at /);
  assert.deepEqual(await call("Play", followRequest()), { card: "KD", note: "" });
});

test("notifications reach the hooks of a bot that has them", async (t) => {
  const heard = [];
  class Listener extends Lowest {
    onTrick(trick) {
      heard.push(["trick", trick.winner, trick.plays.map((p) => `${p.seat}:${p.card}`)]);
    }
    onDealEnd(d) {
      heard.push(["deal", d.dealNumber, d.redeal, d.points, d.totals]);
    }
    onGameEnd(g) {
      heard.push(["game", g.totals, g.winner, g.reason]);
    }
  }
  const { call, close } = await serve(new Listener());
  t.after(close);
  assert.equal((await call("Hello", HELLO)).wantsNotifications, true);
  const plays = [{ seat: 1, card: "2H" }, { seat: 2, card: "BB" }, { seat: 3, card: "AH" }, { seat: 0, card: "3C" }];
  await call("Notify", { trickEnded: { dealNumber: 1, trump: "H", trick: { leader: 1, plays, winner: 2 } } });
  await call("Notify", { dealEnded: { dealNumber: 1, tricksWon: [0, 0, 1, 0], points: [11, -10], totals: [11, -10] } });
  await call("Notify", { gameEnded: { totals: [11, -10], reason: "normal" } });
  assert.deepEqual(heard, [
    ["trick", 2, ["1:2H", "2:BB", "3:AH", "0:3C"]],
    ["deal", 1, false, [11, -10], [11, -10]],
    ["game", [11, -10], null, "normal"],
  ]);
});

test("notes travel with their decision, joined, cut to 160 characters, 100 a game", async (t) => {
  class Noter extends Bot {
    bid(obs) {
      this.note("bid");
      this.note("");
      this.note("with care");
      return "pass";
    }
    play(obs) {
      this.note("é".repeat(500)); // cut by characters, not bytes or UTF-16 units
      return obs.legalPlays[0].name;
    }
  }
  const { call, close } = await serve(new Noter());
  t.after(close);
  await call("Hello", HELLO);
  assert.equal((await call("Bid", bidRequest())).note, "bid · with care");
  assert.equal((await call("Play", followRequest())).note, "é".repeat(160));
  for (let i = 2; i < 100; i++) await call("Play", followRequest());
  assert.equal((await call("Play", followRequest())).note, "", "the game's cap: 100 noted decisions");
  await call("Hello", HELLO); // a new game, a fresh count
  assert.equal((await call("Bid", bidRequest())).note, "bid · with care");
});
