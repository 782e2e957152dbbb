"use strict";
// Serve a bot over gRPC: on the Unix socket named by ARENA_SOCKET, or a TCP port.

const grpc = require("@grpc/grpc-js");

const { Bot } = require("./bot");
const { Bid, Card, CardError } = require("./cards");
const { Observation, trickFromMessage } = require("./observation");
const { PLAYER_SERVICE, PROTOCOL_VERSION } = require("./protocol");
const { Random } = require("./random");
const { version } = require("../package.json");

/** The bot answered something that is not one of the legal options; nothing was sent. */
class IllegalDecisionError extends Error {
  constructor(message) {
    super(message);
    this.name = "IllegalDecisionError";
  }
}

const KINDS = { pass: "BID_KIND_PASS", number: "BID_KIND_NUMBER", board: "BID_KIND_BOARD" };

/** `answer` (a Bid, "pass", "board" or a number) if it is one of obs.legalBids. */
function checkedBid(answer, obs) {
  const legal = obs.legalBids;
  const found = legal.find((b) => b === answer || b.equals(answer));
  if (found === undefined) {
    throw new IllegalDecisionError(
      `bid() returned ${shown(answer)}, not one of the legal bids: ${legal.join(", ")}`,
    );
  }
  return found;
}

/** `answer` (a Card or its name) if it is one of obs.legalPlays. */
function checkedCard(answer, obs) {
  const legal = obs.legalPlays;
  const found = legal.find((c) => c === answer || c.equals(answer));
  if (found === undefined) {
    throw new IllegalDecisionError(
      `play() returned ${shown(answer)}, not one of the legal plays: ${legal.join(" ")}`,
    );
  }
  return found;
}

function shown(answer) {
  if (answer instanceof Card || answer instanceof Bid) return `${answer.constructor.name}(${answer})`;
  try {
    return JSON.stringify(answer) ?? String(answer);
  } catch {
    return String(answer);
  }
}

/** The handlers of the Player service for `bot`: one call at a time, as the referee makes
 * them; an answer that is not legal is refused here (FAILED_PRECONDITION), a throw is
 * INTERNAL, its stack in the bot's log. */
function handlers(bot) {
  const notify = bot.wantsNotifications();
  const fail = (callback, error) => {
    console.error(error instanceof Error ? error.stack : String(error));
    const illegal = error instanceof IllegalDecisionError;
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    callback({
      code: illegal ? grpc.status.FAILED_PRECONDITION : grpc.status.INTERNAL,
      details: illegal ? error.message : message,
    });
  };
  const answer = (callback, work) => {
    Promise.resolve()
      .then(work)
      .then((reply) => callback(null, reply), (error) => fail(callback, error));
  };
  return {
    Hello(call, callback) {
      const request = call.request;
      bot.seat = request.seat;
      const limits = request.limits ?? { moveMs: 0, bankMs: 0 };
      bot.limits = Object.freeze({ moveMs: limits.moveMs, bankMs: limits.bankMs });
      bot.rng = new Random(request.botSeed || 0);
      bot._noteParts = [];
      bot._notesSent = 0; // a new game: a fresh count of notes
      bot.rules = Object.fromEntries(
        Object.entries(request.rules ?? {}).map(([k, v]) => [k, Number(v)]),
      );
      answer(callback, async () => {
        await bot.onGameStart(bot.seat, bot.limits);
        return {
          protocolVersion: PROTOCOL_VERSION,
          botName: bot.name || bot.constructor.name,
          sdkVersion: version,
          wantsNotifications: notify,
        };
      });
    },
    Bid(call, callback) {
      const obs = new Observation(call.request);
      bot._noteParts = []; // a note made outside a decision is no decision's
      answer(callback, async () => {
        const bid = checkedBid(await bot.bid(obs), obs);
        return { bid: { kind: KINDS[bid.kind], number: bid.number }, note: bot._takeNote() };
      });
    },
    Play(call, callback) {
      const obs = new Observation(call.request);
      bot._noteParts = [];
      answer(callback, async () => {
        const card = checkedCard(await bot.play(obs), obs).name;
        return { card, note: bot._takeNote() };
      });
    },
    Notify(call, callback) {
      const request = call.request;
      answer(callback, async () => {
        if (request.event === "trickEnded") {
          const ended = request.trickEnded;
          await bot.onTrick(trickFromMessage(ended.trick, ended.trump || null));
        } else if (request.event === "dealEnded") {
          const d = request.dealEnded;
          await bot.onDealEnd({
            dealNumber: d.dealNumber,
            redeal: d.redeal,
            tricksWon: [...d.tricksWon],
            points: d.points.length ? [d.points[0], d.points[1]] : [0, 0],
            totals: d.totals.length ? [d.totals[0], d.totals[1]] : [0, 0],
          });
        } else if (request.event === "gameEnded") {
          const g = request.gameEnded;
          const winner = g.winner === undefined || g.winner === null ? null : g.winner;
          await bot.onGameEnd({ totals: [g.totals[0], g.totals[1]], winner, reason: g.reason });
        }
        return {};
      });
    },
  };
}

function exit(message, status) {
  console.error(`error: ${message}`);
  process.exit(status);
}

/** Where to serve: --port N (127.0.0.1), --socket PATH, else $ARENA_SOCKET. */
function address(argv) {
  const usage = "usage: node bot.js [--port PORT | --socket PATH]";
  if (argv.length === 0) {
    const path = process.env.ARENA_SOCKET;
    if (!path) exit("no address: set ARENA_SOCKET, or pass --socket PATH or --port PORT", 2);
    return `unix:${path}`;
  }
  if (argv.length !== 2) exit(`${usage}, got: ${argv.join(" ")}`, 2);
  const [flag, value] = argv;
  if (flag === "--socket") return `unix:${value}`;
  if (flag === "--port" && /^\d+$/.test(value)) return `127.0.0.1:${value}`;
  exit(`${usage}, got: ${argv.join(" ")}`, 2);
}

/** Serve `bot` until the referee stops it (SIGTERM) or the process is interrupted. */
function run(bot, argv = process.argv.slice(2)) {
  if (!(bot instanceof Bot)) {
    throw new TypeError(`run() needs a Bot instance, got ${shown(bot)}`);
  }
  const where = address(argv);
  const server = new grpc.Server();
  server.addService(PLAYER_SERVICE, handlers(bot));
  server.bindAsync(where, grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error) exit(`cannot serve on ${where}: ${error.message}`, 1);
    const shownAddress = where.startsWith("unix:") ? where : `127.0.0.1:${port}`;
    console.error(`${bot.name || bot.constructor.name} serving on ${shownAddress}`);
  });
  const stop = () => {
    server.forceShutdown();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  return server;
}

module.exports = { IllegalDecisionError, checkedBid, checkedCard, handlers, run };
