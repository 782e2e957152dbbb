"use strict";
// The player protocol (protos/backalley/v1/player.proto, copied into this package by
// protos/generate.py) loaded at run time: no generated code, no protoc.

const path = require("node:path");
const protoLoader = require("@grpc/proto-loader");
const grpc = require("@grpc/grpc-js");

const PROTO = path.join(__dirname, "..", "proto", "backalley", "v1", "player.proto");
// camelCase fields, enums as their names, uint64 as decimal strings (a bot seed does not
// fit a double), every field present with its default, proto3 optionals absent when unset.
const OPTIONS = { longs: String, enums: String, defaults: true, oneofs: true };

const definition = protoLoader.loadSync(PROTO, OPTIONS);
const player = grpc.loadPackageDefinition(definition).backalley.v1;

module.exports = { PLAYER_SERVICE: player.Player.service, PROTOCOL_VERSION: "PROTOCOL_VERSION_1" };
