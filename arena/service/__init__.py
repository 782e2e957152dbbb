"""The arena service: ``arena server`` (server.py) and the CLI's remote ladder (client.py),
speaking the gRPC API of protos/arena/service/v1/arena.proto (generated code in v1/)."""
