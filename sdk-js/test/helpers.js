"use strict";
// Requests as the referee sends them, decoded as the SDK decodes them, and a bot served on
// a Unix socket in a temporary directory with a client of the real service.

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const PROTO = path.join(__dirname, "..", "proto", "backalley", "v1", "player.proto");
const definition = protoLoader.loadSync(PROTO, {
  longs: String, enums: String, defaults: true, oneofs: true,
});
const v1 = grpc.loadPackageDefinition(definition).backalley.v1;


function roundTrip(request) {
  const method = definition["backalley.v1.Player"].Play;
  return method.requestDeserialize(method.requestSerialize(request));
}

const number = (n) => ({ kind: "BID_KIND_NUMBER", number: n });
const PASS = { kind: "BID_KIND_PASS" };
const BOARD = { kind: "BID_KIND_BOARD" };

/** Seat 0 to play the second card of a trick in a hearts deal: it holds AS KD 3D 2H and
 * must follow diamonds. Seat 3 led QD after seat 1 won the first trick (seat 2 discarded a
 * club on a spade lead). */
function followRequest() {
  return roundTrip({
    observation: {
      seat: 0, dealNumber: 22, handSize: 4, dealer: 3,
      hand: ["AS", "KD", "3D", "2H"], turned: "7H", trump: "H",
      bids: [
        { seat: 0, bid: number(1) }, { seat: 1, bid: PASS },
        { seat: 2, bid: number(1) }, { seat: 3, bid: { ...BOARD, boardLevel: 1 } },
      ],
      tricks: [{ leader: 0, plays: [
        { seat: 0, card: "QS" }, { seat: 1, card: "AH" }, { seat: 2, card: "2C" },
        { seat: 3, card: "3S" },
      ], winner: 1 }],
      currentTrick: { leader: 3, plays: [{ seat: 3, card: "QD" }] },
      trumpsBroken: true, tricksWon: [0, 1, 0, 0], totals: [120, -40], timeLeftMs: 9000,
    },
    legalPlays: ["KD", "3D"],
  });
}

/** The same seat bidding in deal 1 (13 cards, spades trump). */
function bidRequest() {
  return roundTrip({
    observation: {
      seat: 0, dealNumber: 1, handSize: 3, dealer: 3, hand: ["AS", "KD", "BB"],
      turned: "4S", trump: "S", currentTrick: { leader: 0 }, tricksWon: [0, 0, 0, 0],
      totals: [0, 0],
    },
    legalBids: [PASS, number(1), number(2), BOARD],
  });
}

/** `bot` served on a Unix socket; returns {client, close}. */
async function serve(bot) {
  const { handlers } = require("../lib/server");
  const { PLAYER_SERVICE } = require("../lib/protocol");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sdk-js-"));
  const address = `unix:${path.join(dir, "bot.sock")}`;
  const server = new grpc.Server();
  server.addService(PLAYER_SERVICE, handlers(bot));
  await new Promise((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (e) => (e ? reject(e) : resolve())),
  );
  const client = new v1.Player(address, grpc.credentials.createInsecure());
  const call = (method, request) =>
    new Promise((resolve, reject) =>
      client[method](request, (error, reply) => (error ? reject(error) : resolve(reply))),
    );
  const close = () => {
    client.close();
    server.forceShutdown();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { call, close };
}

module.exports = { bidRequest, followRequest, roundTrip, serve };
