"""Run a bot the way the arena does: ``python bot.py`` in its own directory, serving gRPC.

A test writes a ``bot.py`` into a temporary directory, starts it with ``ARENA_SOCKET`` set
(or ``--port``), waits for it to listen and talks to it through the generated stub. The
bot's stderr goes to a file, read once the process has stopped.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from backalley.v1 import player_pb2 as pb
from backalley.v1 import player_pb2_grpc as pb_grpc

# Guards against a hung test, never assertions about speed: a healthy bot is far quicker.
START_GUARD_S = 60.0
RPC_GUARD_S = 60.0
STOP_GUARD_S = 60.0


def write_bot(directory: Path, source: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "bot.py"
    path.write_text(textwrap.dedent(source).lstrip())
    return path


def bot_environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ARENA_SOCKET", "PYTHONPATH")}
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class RunningBot:
    process: subprocess.Popen[bytes]
    stderr_path: Path
    target: str  # "unix:/…/bot.sock" or "127.0.0.1:PORT"
    channel: grpc.Channel = field(init=False)
    stub: pb_grpc.PlayerStub = field(init=False)

    def __post_init__(self) -> None:
        self.channel = grpc.insecure_channel(self.target)
        self.stub = pb_grpc.PlayerStub(self.channel)

    def hello(self, seat: int = 0, bot_seed: int = 1, **limits: int) -> pb.HelloResponse:
        request = pb.HelloRequest(
            protocol_version=pb.PROTOCOL_VERSION_1,
            seat=seat,
            limits=pb.Limits(
                move_ms=limits.get("move_ms", 1000), bank_ms=limits.get("bank_ms", 10_000)
            ),
            bot_seed=bot_seed,
            rules={"max_redeals": 5},
        )
        reply: pb.HelloResponse = self.stub.Hello(request, timeout=RPC_GUARD_S)
        return reply

    def bid(self, request: pb.DecisionRequest) -> pb.BidResponse:
        reply: pb.BidResponse = self.stub.Bid(request, timeout=RPC_GUARD_S)
        return reply

    def play(self, request: pb.DecisionRequest) -> pb.PlayResponse:
        reply: pb.PlayResponse = self.stub.Play(request, timeout=RPC_GUARD_S)
        return reply

    def notify(self, event: pb.Notification) -> None:
        self.stub.Notify(event, timeout=RPC_GUARD_S)

    def terminate(self) -> int:
        """SIGTERM, as the arena stops a bot; the exit status once it has exited."""
        self.channel.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=STOP_GUARD_S)

    def kill(self) -> None:
        self.channel.close()
        if self.process.poll() is None:
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=STOP_GUARD_S)

    def stderr(self) -> str:
        """What the bot wrote to stderr: call once it has stopped, to have all of it."""
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")


def start_bot(
    directory: Path,
    source: str | None = None,
    *,
    port: int | None = None,
    python: str = sys.executable,
    env: dict[str, str] | None = None,
) -> RunningBot:
    """Start ``python bot.py`` in ``directory`` (writing ``source`` there first, if given)
    and return once it accepts connections."""
    if source is not None:
        write_bot(directory, source)
    stderr_path = directory / "stderr.txt"
    sock = directory / "bot.sock"
    if port is None:
        env = bot_environment(ARENA_SOCKET=str(sock), **(env or {}))
        args, target = [], f"unix:{sock}"
    else:
        env = bot_environment(**(env or {}))
        args, target = ["--port", str(port)], f"127.0.0.1:{port}"
    with open(stderr_path, "wb") as err:
        process = subprocess.Popen(
            [python, "bot.py", *args],
            cwd=directory,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    bot = RunningBot(process, stderr_path, target)
    deadline = time.monotonic() + START_GUARD_S
    while port is None and not sock.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            bot.kill()
            raise AssertionError(f"the bot never listened on {sock}; stderr:\n{bot.stderr()}")
        time.sleep(0.02)
    try:
        grpc.channel_ready_future(bot.channel).result(timeout=START_GUARD_S)
    except grpc.FutureTimeoutError:
        bot.kill()
        raise AssertionError(
            f"the bot never answered on {target}; stderr:\n{bot.stderr()}"
        ) from None
    return bot
