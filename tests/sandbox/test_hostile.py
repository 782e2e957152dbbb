"""Hostile bots, each a real submission, against the docker and the process sandbox.

Every case is played through ``arena play`` against three random bots and asserts the exact
typed result, that only the hostile seat faulted (the referee and the other three carried
on), and that nothing the bot started outlived the game. What a bot saw of its sandbox (a
refused connection, an unreadable file) it prints; the test reads it from the bot's log.

The referee runs with recognisable fake secrets in its environment (``SECRETS``), and a host
file holds one too: no output of any case (the referee's, the replay, any bot's log) may hold
any of them.

The process backend is weaker (docs/operating.md); it is tested for what it claims.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.sandbox import confinement_problem
from tests.cli.runner import run_arena
from tests.referee.test_faults import LEGAL_FIRST, raw_bot
from tests.sandbox.traces import bot_containers

ILLEGAL_PLAY = """
legal = set(request.legal_plays)
held = [c for c in request.observation.hand if c not in legal]
card = held[0] if held else next(c for c in ("AS", "2C", "BB") if c not in legal)
return pb.PlayResponse(card=card).SerializeToString()
"""

# Tight time limits keep the timeouts quick; start-up keeps its default (10 s): four bots
# starting at once on a busy two-core machine can take seconds.
LIMITS = ("--move-ms", 300, "--bank-ms", 600)
OUTPUT_LIMIT = 1 << 20
# In the referee's environment, and in a host file: never in any output.
SECRETS = {
    "ARENA_TOKEN": "fake-token-6d1e0c-never-in-a-log",
    "ARENA_DATABASE_URL": "postgresql+psycopg://arena:fake-password-93ab7f@127.0.0.1:9/none",
}
HOST_SECRET = "fake-host-file-secret-4c2e88"
DROPPED = re.compile(
    r"\[arena: (\d+) more bytes dropped here, past the limit of 1048576 bytes\]\n$"
)

# An SDK bot whose bid/play run HOOK first; {setup} runs at import.
SDK_BOT = """\
import os, socket, sys, time
from arena_sdk import Bot, run
{setup}

class Hostile(Bot):
    def bid(self, obs):
{bid}
        return obs.legal_bids[0]

    def play(self, obs):
{play}
        return obs.legal_plays[0]

if __name__ == "__main__":
    run(Hostile())
"""


def indent(code: str, by: int = 8) -> str:
    return "\n".join(" " * by + line for line in code.strip().splitlines())


def sdk_bot(setup: str = "", bid: str = "pass", play: str = "pass") -> str:
    return SDK_BOT.format(setup=setup, bid=indent(bid), play=indent(play))


def probe_bot(probe: str) -> str:
    """Runs ``probe`` once, at its first bid, printing what it found; then plays legally."""
    return sdk_bot(
        setup="PROBED = []",
        bid=f"if not PROBED:\n    PROBED.append(1)\n{indent(probe, 4)}\n    sys.stdout.flush()",
    )


@dataclass(frozen=True)
class Case:
    source: str
    reason: str  # "normal" when the game must end normally
    evidence: str = ""  # a regex the forfeit line (or, for "normal", the bot's log) must match
    backends: tuple[str, ...] = ("docker", "process")
    options: tuple[object, ...] = ()  # more arena play options, after LIMITS
    check: Callable[[str], None] | None = None  # more checks of the bot's log


def within_bounds(log: str) -> None:
    """Each place the bot filled stopped at its bound, in bytes and in files."""
    bounds = {"/run/arena": (1 << 20, 64), "/tmp": (16 << 20, 1024), "/dev/shm": (16 << 20, 1024)}
    for place, (most_bytes, most_files) in bounds.items():
        found = re.search(rf"^{place}: (\d+) bytes, (\d+) files, (\w+)$", log, re.MULTILINE)
        assert found is not None, log[-2000:]
        written, files, stopped_by = int(found[1]), int(found[2]), found[3]
        assert 0 < written <= most_bytes and 0 < files <= most_files, found[0]
        assert stopped_by == "ENOSPC", found[0]


FILL = """
import errno
for place in PLACES:
    written = files = 0
    stopped_by = "none"
    try:
        with open(f"{place}/big", "wb") as f:
            for _ in range(64):  # 64 MiB, if it were all taken
                written += f.write(b"z" * (1 << 20))
                f.flush()
    except OSError as e:
        stopped_by = errno.errorcode[e.errno]
    for name in os.listdir(place):
        if name.startswith("big"):
            os.unlink(f"{place}/{name}")
    try:
        for files in range(1, 100_000):
            open(f"{place}/f{files}", "w").close()
    except OSError as e:
        stopped_by = errno.errorcode[e.errno] if stopped_by == "ENOSPC" else "files " + stopped_by
    print(f"{place}: {written} bytes, {files} files, {stopped_by}")
""".replace("PLACES", repr(("/run/arena", "/tmp", "/dev/shm")))

# The process sandbox's writable places (its /dev/shm is not one), and what each is mounted
# as; files are not bounded in number there: a few thousand say so in time.
FILL_PROCESS = (
    FILL.replace(repr(("/run/arena", "/tmp", "/dev/shm")), repr(("/run/arena", "/tmp"))).replace(
        "100_000", "5_000"
    )
    + """
for line in open("/proc/self/mountinfo"):
    mounted_on, (kind, _, options) = line.split()[4], line.split(" - ")[1].split()
    if mounted_on in ("/run/arena", "/tmp"):
        print("mount", mounted_on, kind, options)
"""
)


def within_bytes_in_memory(log: str) -> None:
    """Each writable place is a tmpfs, off the host's disk, and stopped its bot at its size
    (full, or /tmp's file at RLIMIT_FSIZE, the same size); bwrap bounds no count of files
    (docs/operating.md)."""
    bounds = {"/run/arena": 1 << 20, "/tmp": 16 << 20}
    for place, most_bytes in bounds.items():
        found = re.search(rf"^{place}: (\d+) bytes, (\d+) files, (\w+)$", log, re.MULTILINE)
        assert found is not None, log[-2000:]
        assert 0 < int(found[1]) <= most_bytes and found[3] in ("ENOSPC", "EFBIG"), found[0]
        mount = re.search(rf"^mount {place} (\S+) (\S+)$", log, re.MULTILINE)
        assert mount is not None and mount[1] == "tmpfs", log[-2000:]
        assert f"size={most_bytes >> 10}k" in mount[2].split(","), mount[0]


# Everything the bot could learn of the referee's environment, through any process it sees.
ENVIRONS = """
for pid in ["self", *sorted(p for p in os.listdir("/proc") if p.isdigit())]:
    try:
        print("environ", pid, open(f"/proc/{pid}/environ", "rb").read().replace(b"\\0", b" "))
    except OSError as e:
        print("environ", pid, "refused", type(e).__name__)
run_dir = os.path.dirname(os.environ["ARENA_SOCKET"])
for name, target in [("bot.log", "/proc/1/environ"), ("log", {secret!r}), ("zero", "/dev/zero")]:
    os.symlink(target, os.path.join(run_dir, name))
print("environ: done")
"""


def socket_replaced_by(make: str) -> str:
    """A bot that never serves: it leaves ``make`` (code using ``path``) where its socket goes."""
    return f"import os, time\npath = os.environ['ARENA_SOCKET']\n{make}\ntime.sleep(600)\n"


# In a leftover child's command line: the test puts one of its own there (``leftovers``).
TOKEN = "{leftover_token!r}"

CASES: dict[str, Case] = {
    "infinite loop in bid": Case(sdk_bot(bid="while True: pass"), "timeout", "no answer to a bid"),
    "sleeps past the limit": Case(sdk_bot(bid="time.sleep(5)"), "timeout", "no answer to a bid"),
    "slow every move until the bank runs out": Case(
        sdk_bot(bid="time.sleep(0.45)", play="time.sleep(0.45)"), "timeout", r"within \d+ ms"
    ),
    # Filling 512 MiB takes a moment on a busy machine: time enough to hit the limit first.
    "allocates past the memory limit (docker)": Case(
        sdk_bot(bid="x = bytearray(1 << 30)"),
        "crash",
        "out of memory",
        ("docker",),
        ("--move-ms", 5000),
    ),
    # As root its cgroup bounds its memory (the kernel kills it); else its address space.
    "allocates past the memory limit (process)": Case(
        sdk_bot(bid="x = bytearray(1 << 30)"),
        "crash",
        "out of memory|MemoryError",
        ("process",),
        ("--move-ms", 5000),
    ),
    # The process backend's bots are never root, so RLIMIT_NPROC holds them.
    "fork bomb": Case(
        sdk_bot(
            bid="""
for _ in range(5000):
    try:
        if os.fork() == 0:
            time.sleep(600)
            os._exit(0)
    except OSError:
        print("fork refused"); break
"""
        ),
        "any",
        "",
    ),
    "leaves a background child behind": Case(
        sdk_bot(
            setup=f"""
if os.fork() == 0:
    os.setsid()
    os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", {TOKEN}])
"""
        ),
        "normal",
    ),
    "opens a network connection": Case(
        probe_bot(
            """
for address in [("1.1.1.1", 53), ("127.0.0.1", 22), ("8.8.8.8", 443)]:
    try:
        socket.create_connection(address, timeout=1).close()
        print("network: CONNECTED", address)
    except OSError as e:
        print("network: refused", address, type(e).__name__)
# A network namespace of its own: the host's interfaces are not even visible.
with open("/proc/net/dev") as dev:
    print("interfaces:", " ".join(line.split(":")[0].strip() for line in list(dev)[2:]))
"""
        ),
        "normal",
        r"^(?!.*CONNECTED)(.*network: refused.*\n){3}interfaces: lo\n",
    ),
    # Its uid is not root's; the platform's scratch directories (other seats' sockets), the
    # data directory, other bots' code and the Docker socket are not there to be reached.
    "reads the host's files, other seats' sockets and other bots' code": Case(
        probe_bot(
            """
import glob
print("uid", os.getuid())
print("seats:", len(glob.glob("/tmp/arena-*/**", recursive=True)))
for path in [{secret!r}, {other!r}, {home!r}, "/var/run/docker.sock", "/run/docker.sock"]:
    try:
        if os.path.exists(path):
            open(path, "rb").read(10)
            print("read: GOT", path)
        else:
            print("read: absent", path)
    except OSError as e:
        print("read: refused", path, type(e).__name__)
"""
        ),
        "normal",
        r"^uid [1-9]\d*\nseats: 0\n(?!.*GOT)(.*read: (absent|refused).*\n){5}",
    ),
    "writes into its own code directory": Case(
        probe_bot(
            """
try:
    open("bot.py", "a").write("# tampered")
    print("write: WROTE bot.py")
except OSError as e:
    print("write: refused", type(e).__name__)
try:
    open("/tmp/scratch", "w").write("fine")
    print("tmp: ok")
except OSError as e:
    print("tmp: FAILED", e)
"""
        ),
        "normal",
        r"write: refused.*\ntmp: ok",
    ),
    "floods stdout with gigabytes": Case(
        sdk_bot(
            setup="FLOODED = []",
            bid="""
if not FLOODED:
    FLOODED.append(1)
    chunk = b"x" * (1 << 20)
    for _ in range(256):  # 256 MiB: read past the cap, and dropped
        os.write(1, chunk)
""",
        ),
        "normal",
        options=("--move-ms", 20000),
    ),
    # A plain print past the cap must not fail (it used to raise `File too large`).
    "prints past the cap": Case(
        sdk_bot(bid='for _ in range(3000):\n    print("y" * 999, file=sys.stderr)'),
        "normal",
    ),
    "fills every place it can write": Case(
        probe_bot(FILL),
        "normal",
        backends=("docker",),
        options=("--move-ms", 10000),
        check=within_bounds,
    ),
    "fills every place it can write (process)": Case(
        probe_bot(FILL_PROCESS),
        "normal",
        backends=("process",),
        options=("--move-ms", 10000),
        check=within_bytes_in_memory,
    ),
    "reads the referee's environment and links its files to it": Case(
        probe_bot(ENVIRONS), "normal", r"^environ: done$"
    ),
    "puts a link to a host socket in place of its socket": Case(
        socket_replaced_by("os.symlink('/var/run/docker.sock', path)"),
        "startup",
        r"left a symbolic link as bot\.sock, not a socket",
    ),
    "puts a directory in place of its socket": Case(
        socket_replaced_by("os.mkdir(path)"), "startup", r"left a directory as bot\.sock"
    ),
    "puts a fifo in place of its socket": Case(
        socket_replaced_by("os.mkfifo(path)"), "startup", r"left a fifo as bot\.sock"
    ),
    # Dialled through the descriptor checked at the start: a later swap changes nothing.
    "swaps its socket for a link mid-game": Case(
        probe_bot(
            """
path = os.environ["ARENA_SOCKET"]
os.rename(path, path + ".moved")
os.symlink("/var/run/docker.sock", path)
print("swapped")
"""
        ),
        "normal",
        r"^swapped$",
    ),
    # Its name (in the timing table) and its exception's words (in the forfeit line) reach
    # the terminal with their control characters escaped.
    "writes escape sequences to the terminal": Case(
        sdk_bot(
            setup='Bot.name = "evil\\x1b]0;pwned\\x07\\x1b[2J"',
            play='raise RuntimeError("\\x1b[2J\\x1b[31mreferee crashed\\x1b[0m")',
        ),
        "crash",
        r"raised during a play: .*\\x1b\[2J\\x1b\[31mreferee crashed",
    ),
    "exits mid-game": Case(sdk_bot(play="os._exit(3)"), "crash", "exit status 3"),
    "crashes at import": Case("import no_such_module_here\n", "startup", "exit status 1"),
    "never starts the server": Case(
        "import time\ntime.sleep(600)\n",
        "startup",
        "made no socket within 3 s",
        options=("--startup-ms", 3000),
    ),
    "answers an illegal card": Case(
        raw_bot(LEGAL_FIRST + 'return pb.PlayResponse(card="ZZ").SerializeToString()'),
        "protocol",
        "not a card: 'ZZ'",
    ),
    "answers a card it does not hold": Case(
        raw_bot(LEGAL_FIRST + ILLEGAL_PLAY), "illegal", "answered 'play"
    ),
    "answers more than 64 KiB": Case(
        raw_bot('return b"\\x0a" + b"\\xff" * (65 << 10)'),
        "protocol",
        r"RESOURCE_EXHAUSTED on a bid: .*larger than max \(\d+ vs\. 65536\)",
    ),
    "answers garbage bytes": Case(
        raw_bot('return b"\\xff\\xfe\\x00garbage"'),
        "protocol",
        r"malformed BidResponse \(10 bytes: ff fe 00",
    ),
}


def params() -> list[object]:
    return [
        pytest.param(name, backend, marks=[pytest.mark.docker] if backend == "docker" else [])
        for name, case in sorted(CASES.items())
        for backend in case.backends
    ]


def leftovers(token: str) -> list[str]:
    """Command lines of processes carrying ``token``, this test's, as the leftover child's
    does (another test run's children carry their own)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if token.encode() in cmdline and b"pytest" not in cmdline:
                found.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
    return found


@pytest.mark.parametrize(("case", "backend"), params())
def test_hostile_bot(case: str, backend: str, tmp_path: Path) -> None:
    if backend == "process" and confinement_problem() is not None:
        pytest.skip(f"the process backend refuses to run here: {confinement_problem()}")
    spec = CASES[case]
    secret = tmp_path / "host-secret.txt"
    secret.write_text(HOST_SECRET)
    home = tmp_path / "arena-home"  # the data directory, as the referee's environment names it
    home.mkdir()
    (home / "arena.db").write_text(HOST_SECRET)
    other = Path(__file__).resolve().parents[2] / "sample_bots" / "random" / "bot.py"
    token = f"arena-hostile-leftover-{uuid.uuid4().hex}"  # this test's alone
    bot = tmp_path / "hostile"
    bot.mkdir()
    (bot / "bot.py").write_text(
        spec.source.replace("{secret!r}", repr(str(secret)))
        .replace("{other!r}", repr(str(other)))
        .replace("{home!r}", repr(str(home / "arena.db")))
        .replace(TOKEN, repr(token))
    )
    source_before = (bot / "bot.py").read_bytes()
    replay = tmp_path / "game.json"
    pids: list[int] = []  # the arena command's: its containers are labelled with it
    result = run_arena(
        "play", bot, "random", "random", "random", "--seed", 4, "--replay", replay,
        "--sandbox", backend, *LIMITS, *spec.options, env={**SECRETS, "ARENA_HOME": str(home)},
        pids=pids,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(replay.read_text())
    forfeit = data["result"]["forfeit"]
    forfeit_lines = [line for line in result.stdout.splitlines() if line.startswith("forfeit:")]
    log = (tmp_path / "game.logs" / "seat0.log").read_text(errors="replace")

    if spec.reason == "normal" or (spec.reason == "any" and forfeit is None):
        assert forfeit is None, forfeit_lines
        assert len(data["deals"]) >= 25  # a whole game
        if spec.evidence:
            assert re.search(spec.evidence, log, re.MULTILINE), log[-2000:]
        if spec.check is not None:
            spec.check(log)
    else:
        assert forfeit is not None and forfeit["seat"] == 0, result.stdout[-2000:]
        if spec.reason != "any":
            assert forfeit["reason"] == spec.reason, forfeit
        assert len(forfeit_lines) == 1
        assert re.search(spec.evidence, forfeit_lines[0]), forfeit_lines[0]
        assert data["result"]["winner"] == 1
    assert run_arena("replay", "verify", replay).returncode == 0

    # No control character of the bot's reaches the terminal.
    for printed in (result.stdout, result.stderr):
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", printed), printed[-2000:]
    if case == "writes escape sequences to the terminal":
        assert "evil" in result.stdout  # its name, escaped (a table may wrap it)

    # Every log is capped; the other bots' logs are there and small; no secret anywhere.
    outputs = [result.stdout, result.stderr, replay.read_text()]
    for seat in range(4):
        kept = (tmp_path / "game.logs" / f"seat{seat}.log").read_bytes()
        assert len(kept) <= OUTPUT_LIMIT + 100, (seat, len(kept))
        outputs.append(kept.decode(errors="replace"))
    for secret_value in [*SECRETS.values(), HOST_SECRET]:
        assert not any(secret_value in output for output in outputs), secret_value
    if case in ("floods stdout with gigabytes", "prints past the cap"):
        dropped = DROPPED.search(log)
        assert dropped is not None, log[-300:]
        written = (256 << 20) if case == "floods stdout with gigabytes" else None
        kept_bytes = len(log.encode()) - len(dropped[0].encode()) - 1  # the line's own \n
        assert kept_bytes == OUTPUT_LIMIT, kept_bytes
        if written is not None:
            assert kept_bytes + int(dropped[1]) >= written
        assert "Errno" not in log
    assert (bot / "bot.py").read_bytes() == source_before

    # Nothing it started outlived the game (what other tests and test runs on this machine
    # start is not this game's: traces.py).
    deadline = time.monotonic() + 10
    while leftovers(token) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert leftovers(token) == []
    if backend == "docker":
        (pid,) = pids
        while bot_containers(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert bot_containers(pid) == []
