"""No channel between partners through the host's memory figures (issue 15, item 4).

A real game in containers (``arena play --sandbox docker``) between two copies of one bot
as partners (seats 0 and 2, as in the ``pairs`` format) and two ``random`` bots. Seat 0
sends 16 bits: for each, over six of its decisions, it holds 256 MiB (1) or nothing (0).
Seat 2 reads the free memory it can see at each of its decisions (``/proc/meminfo`` and the
host's other figures, ``/proc/vmstat``), and logs it with the host's monotonic clock, as
seat 0 logs each bit it starts. Frozen between their calls, the two never run at once, but
memory stays held while frozen: only the container's own view of ``/proc`` closes this.

Decoding: a bit is 1 when the receiver's median reading during it is at least 128 MiB below
its highest. Through the host's figures every bit passes (16 of 16, measured under runc
alone); closed, the receiver's figures do not move, every bit decodes as 0, and it gets the
8 of 16 a constant guess gets. The sender's own view proves the decoding would see them.
"""

from __future__ import annotations

import itertools
import os
import re
import statistics
from pathlib import Path

import pytest

from arena.sandbox.procview import proc_view_binds
from tests.cli.runner import run_arena

BITS = (1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 1, 0, 1, 0, 0, 1)  # 8 ones, 8 zeros
HOLD = 6  # decisions of the sender per bit

PARTNER_BOT = """
import time
from arena_sdk import Bot, run

BITS = {bits!r}
HOLD = {hold}


def free_kib():
    # What the bot can see of free memory: its meminfo, and the host's vmstat if readable.
    meminfo = vmstat = -1
    for line in open("/proc/meminfo"):
        if line.startswith("MemAvailable:"):
            meminfo = int(line.split()[1])
    try:
        for line in open("/proc/vmstat"):
            if line.startswith("nr_free_pages "):
                vmstat = int(line.split()[1]) * 4
    except OSError:
        pass
    return meminfo, vmstat


class Partner(Bot):
    decisions = 0
    held = None

    def act(self):
        n, self.decisions = self.decisions, self.decisions + 1
        if self.seat == 0 and n % HOLD == 0 and n // HOLD < len(BITS):
            bit = BITS[n // HOLD]
            self.held = None
            if bit:
                self.held = bytearray(256 << 20)  # zeroed: every page touched
            print("send", n // HOLD, bit, time.monotonic(), *free_kib(), flush=True)
        elif self.seat == 0 and n == HOLD * len(BITS):
            self.held = None
            print("send", len(BITS), 0, time.monotonic(), *free_kib(), flush=True)
        if self.seat == 2:
            print("read", time.monotonic(), *free_kib(), flush=True)

    def bid(self, obs):
        self.act()
        return obs.legal_bids[0]

    def play(self, obs):
        self.act()
        return obs.legal_plays[0]

if __name__ == "__main__":
    run(Partner())
"""


def decode(sends: list[float], reads: list[tuple[float, int]]) -> list[int]:
    """Each bit from the receiver's readings between its start and the next bit's."""
    highest = max(value for _, value in reads)
    bits = []
    for start, end in itertools.pairwise(sends):
        during = [value for t, value in reads if start < t < end]
        assert during, (start, end)
        bits.append(int(statistics.median(during) <= highest - 128 * 1024))
    return bits


@pytest.mark.docker
def test_partners_pass_no_bits_through_the_hosts_memory_figures(tmp_path: Path) -> None:
    if not proc_view_binds():
        message = "lxcfs serves no /proc files here (./run starts it)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{message}, and CI=true: the collusion test must run")
        pytest.skip(message)
    bot = tmp_path / "partner"
    bot.mkdir()
    (bot / "bot.py").write_text(PARTNER_BOT.format(bits=BITS, hold=HOLD))
    result = run_arena(
        "play", bot, "random", bot, "random", "--seed", 5, "--sandbox", "docker",
        "--logs", tmp_path / "logs",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "forfeit:" not in result.stdout, result.stdout
    sender = (tmp_path / "logs" / "seat0.log").read_text()
    receiver = (tmp_path / "logs" / "seat2.log").read_text()
    sent = [line.split() for line in sender.splitlines() if line.startswith("send ")]
    assert [int(s[2]) for s in sent[:-1]] == list(BITS), sender[-2000:]
    sends = [float(s[3]) for s in sent]
    # The sender's own view shows its allocations: the decoding would see them.
    own = [(float(s[3]), int(s[4])) for s in sent]
    own_bits = [int(value <= max(v for _, v in own) - 128 * 1024) for _, value in own[:-1]]
    assert own_bits == list(BITS), own
    reads = [line.split() for line in receiver.splitlines() if line.startswith("read ")]
    for column, name in ((2, "/proc/meminfo"), (3, "/proc/vmstat")):
        readings = [(float(r[1]), int(r[column])) for r in reads]
        bits = decode(sends, readings)
        passed = sum(b == s for b, s in zip(bits, BITS, strict=True))
        assert bits == [0] * len(BITS) and passed == 8, (name, bits, readings[:5])
    assert re.search(r"^read .* -1$", receiver, re.M), "the host's vmstat was readable"
