"""Breaks `notifications`: asks for them in Hello, but serves no Notify (gRPC answers
UNIMPLEMENTED for it)."""

import os
import threading
from concurrent import futures

import grpc
from backalley.v1 import player_pb2 as pb
from backalley.v1 import player_pb2_grpc as pb_grpc


class Deaf(pb_grpc.PlayerServicer):
    def Hello(self, request, context):
        return pb.HelloResponse(
            protocol_version=pb.PROTOCOL_VERSION_1, bot_name="deaf", wants_notifications=True
        )

    def Bid(self, request, context):
        return pb.BidResponse(bid=request.legal_bids[0])

    def Play(self, request, context):
        return pb.PlayResponse(card=request.legal_plays[0])


if __name__ == "__main__":
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
    pb_grpc.add_PlayerServicer_to_server(Deaf(), server)
    server.add_insecure_port(f"unix:{os.environ['ARENA_SOCKET']}")
    server.start()
    threading.Event().wait()
