"""Bots as local child processes: ``python bot.py`` serving on a Unix socket.

Two strengths (docs/operating.md compares them with docker):

* ``none``: a plain child process in its own session. No limits; for debugging a bot.
* ``process``: the same under rlimits (address space, CPU seconds, processes, file size --
  a bound on each file it writes --, open files) via ``prlimit``, inside bubblewrap
  (``bwrap``): new network, PID, IPC, UTS and mount namespaces, a root of its own holding
  only read-only binds of ``/usr`` and of the interpreter's directories (the SDK's among
  them), its copy of its code (at its own path: tracebacks name the author's files), a
  small tmpfs ``/tmp``, a fresh ``/proc`` and ``/dev``, and its run directory
  ``/run/arena``, a tmpfs of ``RUN_DIR_BYTES``: it can write nothing of the host. No
  network, no other process, none of the platform's files or sockets. The referee reaches
  its socket through the sandbox's root as the kernel shows it, ``/proc/PID/root`` of
  bwrap's child (``sandbox_root``). A root platform runs
  bwrap as root, so that it can bind an interpreter under a directory no one else may enter
  (a pyenv in root's home), and the bot becomes a uid of its own inside it (``setpriv``: no
  groups, no capabilities, no new privileges) before ``python`` starts; anyone else runs it
  unprivileged, the bot keeping the platform's uid in a user namespace of its own.

Both read the bot's stdout and stderr from a pipe (``output``), and check its socket before
it is dialled (``bot_socket``).

A root platform also puts each ``process`` bot in a cgroup of its own from its start
(``freezer.make_bot_cgroup``): it is frozen as a container is (``turns``), its start-up
allowance counted in that cgroup's CPU time, and its memory bounded there (then its
address-space rlimit is raised to ``RESERVED_MB``, which runtimes such as node need).
Elsewhere its bots are never frozen, and their address space is their memory limit.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from arena.bots import manifest
from arena.bots.limits import Limits

from .base import SOCKET_NAME, describe_exit
from .bot_socket import POLL_S, SocketFault, open_socket
from .build import BUILD_ENV, BuildLimits, BuildOutcome, run_capped
from .errors import SandboxError
from .freezer import BotCgroup, make_bot_cgroup, sweep_bot_cgroups
from .identity import BOT_UID_BASE, claim_uid, release_uid
from .leftovers import Sweeper, sweep_scratch
from .output import CHUNK, OutputCapture
from .turns import Turns

RUN_DIR = "/run/arena"  # its socket's directory inside the sandbox: a tmpfs of its own
# bwrap bounds a tmpfs in bytes only (``--size``; it has no option for a count of files):
# their number is the kernel's default bound for a tmpfs, half the machine's memory pages.
RUN_DIR_BYTES = 1 << 20
# The namespaces: a root platform makes them itself (the bot's uid change follows, inside);
# anyone else needs a user namespace first.
_AS_ROOT = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
_AS_USER = ["--unshare-all"]
_ROOT_FS = [
    "--die-with-parent", "--new-session",
    "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
    "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/sbin", "/sbin",
    "--proc", "/proc", "--dev", "/dev",
]  # fmt: skip


def _bwrap() -> list[str]:
    return ["bwrap", *(_AS_ROOT if os.geteuid() == 0 else _AS_USER), *_ROOT_FS]


# What the interpreter needs to run a bot: its prefixes, its path, the SDK's package.
_REACH = (
    "import json, os, sys\n"
    "paths = [sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))]\n"
    "paths += [p for p in sys.path if os.path.isabs(p)]\n"
    "try:\n"
    "    import arena_sdk, backalley\n"
    "    paths += [os.path.dirname(os.path.dirname(arena_sdk.__file__)), *backalley.__path__]\n"
    "except ImportError:\n"
    "    pass\n"
    "print(json.dumps(paths))\n"
)


@functools.cache
def interpreter_dirs(python: str) -> tuple[Path, ...]:
    """The directories ``python`` reads to run an SDK bot (none under another, none of
    ``/usr``'s, which is bound whole), asked of the interpreter itself, as the platform."""
    try:
        done = subprocess.run([python, "-c", _REACH], capture_output=True, timeout=30, text=True)
        found = [Path(p) for p in json.loads(done.stdout)] if done.returncode == 0 else []
    except (OSError, subprocess.SubprocessError, ValueError):
        found = []
    if not found:
        raise SandboxError(f"cannot ask {python} where it keeps its files")
    dirs = sorted({p.resolve() for p in found if p.is_dir()})
    kept: list[Path] = []
    for path in dirs:
        inside = path.is_relative_to("/usr") or any(path.is_relative_to(k) for k in kept)
        if path != Path("/") and not inside:
            kept.append(path)
    return tuple(kept)


@functools.cache
def confinement_problem() -> str | None:
    """Why the process sandbox cannot confine bots on this machine, or None if it can."""
    for tool in ("bwrap", "prlimit", "setpriv"):
        if shutil.which(tool) is None:
            package = "bubblewrap" if tool == "bwrap" else "util-linux"
            return f"it needs {tool} ({package}), which is missing: `./run` installs it"
    command = [*_bwrap(), "--", *_drop_uid(BOT_UID_BASE), "true"]
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run(command, capture_output=True, timeout=30, text=True)
        if done.returncode == 0:
            return None
        why = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        return f"bubblewrap cannot make its namespaces here ({why[0]})"
    return "bubblewrap did not run"


def _drop_uid(uid: int) -> list[str]:
    """As root, become ``uid`` (no groups, no capabilities) before the bot's code runs."""
    if os.geteuid() != 0:
        return []  # the platform's own uid, in a user namespace: still none of root's power
    return [
        "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
        "--bounding-set=-all", "--no-new-privs", "--",
    ]  # fmt: skip


def bot_uid() -> int:
    """A uid of the bot's own (as root; ``identity``), else the platform's."""
    if os.geteuid() != 0:
        return os.geteuid()
    return claim_uid()


# The address space a bot may map when its cgroup bounds its memory: runtimes reserve far
# more than they use (node's V8 reserves its code range and heap cages up front and dies
# under an address-space limit of 512 MiB); what it may fill is the cgroup's to bound.
RESERVED_MB = 16 << 10


def rlimit_prefix(limits: Limits, *, memory_bounded: bool = False) -> list[str]:
    """prlimit's command line for a bot; ``memory_bounded``: its cgroup holds its memory to
    ``memory_mb``, so its address space may be larger (``RESERVED_MB``)."""
    address_mb = max(limits.memory_mb, RESERVED_MB) if memory_bounded else limits.memory_mb
    return [
        "prlimit",
        f"--as={address_mb << 20}",
        f"--cpu={limits.cpu_seconds()}",
        f"--nproc={limits.pids}",
        f"--fsize={limits.tmp_mb << 20}",  # its output is a pipe: this bounds its files
        f"--nofile={limits.open_files}",
        "--",
    ]


@dataclass(eq=False)  # by identity: the sandbox keeps the bots it started in a weak set
class BotProcess:
    """A started bot: where it listens, what it wrote, and how it ended."""

    proc: subprocess.Popen[bytes]
    socket_path: Path  # confined: inside its sandbox's root
    capture: OutputCapture
    uid: int  # its processes' uid: its socket's owner
    confined: bool = False
    turns: Turns = field(default_factory=lambda: Turns(None, time.monotonic()))
    cgroup: BotCgroup | None = None  # its own, from its start (a root platform's, confined)
    memory_mb: int = 0  # its memory limit, as its death out of memory is told

    @property
    def started_at(self) -> float:
        return self.turns.started_at

    _root: Path | None = None  # its sandbox's root, once ``up`` has found it

    def up(self) -> bool:
        """Whether it has made its socket (the name only: checked when it is opened)."""
        if self._root is None:
            self._root = _root_of(self.proc.pid, os.stat("/")) if self.confined else Path("/")
        root = self._root
        return root is not None and os.path.lexists(root / self.socket_path.relative_to("/"))

    def open_socket(self, deadline: float) -> int:
        path = self.socket_path
        if self.confined:
            root = sandbox_root(self.proc.pid, deadline, self.died)
            if root is None:  # bwrap ended, or its sandbox was not up in time
                how = self.died()
                if how is not None:
                    raise SocketFault(f"{how} before making its socket")
                raise SocketFault("made no socket", missing=True)
            path = root / path.relative_to("/")
        return open_socket(path, self.uid, deadline, self.died)

    def output(self) -> bytes:
        if self.proc.poll() is not None:
            self.capture.ended(wait_s=2.0)  # what it wrote as it died is on its way
        return self.capture.captured()

    def died(self) -> str | None:
        code = self.proc.poll()
        if code is None:
            return None
        if self.cgroup is not None and self.cgroup.oom_killed():
            return f"out of memory (killed at its {self.memory_mb} MiB limit)"  # as docker says
        # bwrap ends with its child's status: 128 + N for a child killed by signal N.
        return describe_exit(128 - code if self.confined and code > 128 else code)

    # Its cgroup's freezer, if it has one: a signal (SIGSTOP) would miss what the bot moved
    # out of its process group.
    def freeze(self) -> None:
        self.turns.freeze()

    def thaw(self) -> None:
        self.turns.thaw()

    def wait_frozen(self) -> None:
        self.turns.wait_frozen()

    def stop(self) -> None:
        """Kill the bot and everything it started; wait for it."""
        self.turns.stop()  # a frozen process would not die of the kill
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                if self.confined:
                    # bwrap's child (its PID namespace's init, in a session of its own) is
                    # killed first, with the namespace: killed alone, bwrap can leave a child
                    # that had not yet asked to die with it running for ever. Stopped, bwrap
                    # cannot start another meanwhile.
                    os.kill(self.proc.pid, signal.SIGSTOP)
                    for child in _children(self.proc.pid):
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(child, signal.SIGKILL)
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        if self.confined and self.uid != os.geteuid():  # its processes are gone
            release_uid(self.uid)
        # Confined, what it started is dead too (its PID namespace went with bwrap);
        # otherwise it may outlive it holding the pipe: then the reader, a daemon thread,
        # ends with the platform.
        self.capture.ended(wait_s=1.0)
        if self.cgroup is not None:
            self.cgroup.remove()


def sandbox_root(bwrap: int, deadline: float, died: Callable[[], str | None]) -> Path | None:
    """The root of bwrap's sandbox (``/proc/PID/root`` of its child, the first process in
    its namespaces), once the child has left the host's root for its own; None if bwrap
    ended or ``deadline`` passed first. The child is bwrap's, root's when the platform is:
    nothing the bot does changes where that link leads."""
    host = os.stat("/")
    while died() is None and time.monotonic() < deadline:
        root = _root_of(bwrap, host)
        if root is not None:
            return root
        time.sleep(POLL_S)
    return None


def _root_of(bwrap: int, host: os.stat_result) -> Path | None:
    """The root of bwrap's sandbox if its child has left ``host`` (the host's root) yet."""
    for child in _children(bwrap):
        root = Path(f"/proc/{child}/root")
        with contextlib.suppress(OSError):
            here = os.stat(root)
            if (here.st_dev, here.st_ino) != (host.st_dev, host.st_ino):
                return root
    return None


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``, read from ``/proc``."""
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        # pid (comm) state ppid ...: comm may hold spaces and parentheses, so after the last ")".
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            children.append(int(entry.name))
    return children


@dataclass
class ProcessSandbox:
    """``confined=False`` is the ``none`` backend, ``True`` the ``process`` backend, which
    refuses to open (``SandboxError``) where it cannot confine its bots.

    Bots are started from one long-lived thread with a parent-death signal (``setpriv
    --pdeathsig``), so if the platform itself is killed its bots die with it.
    """

    confined: bool = True
    python: str | None = None  # the interpreter that runs bot.py (default: this one)
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = "process" if self.confined else "none"
        if self.confined:
            problem = confinement_problem()
            if problem is not None:
                raise SandboxError(
                    f"the process sandbox cannot confine bots here: {problem}; "
                    "or use --sandbox docker"
                )
            self._reach = interpreter_dirs(self.python or sys.executable)
            modules = node_modules()
            if modules is not None and not any(modules.is_relative_to(d) for d in self._reach):
                self._reach = (*self._reach, modules)
        # The parent-death signal fires when the *thread* that started the child ends.
        self._spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-spawn")
        self._started: weakref.WeakSet[BotProcess] = weakref.WeakSet()
        self._host = socket.gethostname()  # before the sweeper's first sweep, which reads it
        self._count = itertools.count(1)
        self._sweeper = Sweeper(self._sweep)  # what killed platform processes left here

    def _sweep(self) -> None:
        sweep_scratch()
        if self.confined:
            sweep_bot_cgroups(self._host)

    def start(self, bot_dir: Path, workdir: Path, limits: Limits) -> BotProcess:
        workdir.mkdir(parents=True, exist_ok=True)
        python = self.python or sys.executable
        argv = self._argv(bot_dir, python)
        uid = os.geteuid()
        cgroup = None
        if self.confined:
            uid = bot_uid()
            name = f"{self._host}-{os.getpid()}-{next(self._count)}"
            cgroup = make_bot_cgroup(name, memory_bytes=limits.memory_mb << 20)
            bounded = cgroup is not None and cgroup.memory_bounded
            command = self._confined(bot_dir, workdir, uid, limits, memory_bounded=bounded)
            cwd, socket_path = None, Path(RUN_DIR) / SOCKET_NAME
            env = _bot_env(f"{RUN_DIR}/{SOCKET_NAME}", "/tmp", "/usr/bin:/bin")
            command = [*command, *argv]
            if cgroup is not None:
                command = cgroup.joined(command)
        else:
            cwd, socket_path = bot_dir, workdir / SOCKET_NAME
            env = _bot_env(str(socket_path), str(workdir), os.environ.get("PATH", "/usr/bin:/bin"))
            command = argv
        if shutil.which("setpriv"):
            command = ["setpriv", "--pdeathsig", "KILL", "--", *command]

        def spawn() -> subprocess.Popen[bytes]:
            return subprocess.Popen(
                command,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

        try:
            proc = self._spawner.submit(spawn).result()
        except OSError as e:
            if cgroup is not None:
                cgroup.remove(wait_s=0)
            if self.confined and uid != os.geteuid():
                release_uid(uid)
            raise SandboxError(f"cannot start {command[0]}: {e.strerror}") from None
        turns = Turns(None if cgroup is None else cgroup.freezer, time.monotonic())
        pipe = proc.stdout
        assert pipe is not None
        fd = pipe.fileno()
        capture = OutputCapture(lambda: os.read(fd, CHUNK), limits.output_bytes, workdir.name)
        bot = BotProcess(
            proc, socket_path, capture, uid, self.confined, turns, cgroup, limits.memory_mb
        )
        self._started.add(bot)
        if cgroup is not None:
            threading.Thread(
                target=turns.hold, args=(bot.up, limits.startup_cpu_ms), daemon=True,
                name=f"arena-up-{workdir.name}",
            ).start()  # fmt: skip
        return bot

    def _confined(
        self, bot_dir: Path, workdir: Path, uid: int, limits: Limits, *, memory_bounded: bool
    ) -> list[str]:
        """The command line that confines a bot, up to its ``python bot.py``."""
        # Its own copy of its code, readable by its uid whatever the original's modes, and
        # untouched by anything that changes the original mid-game: made here, before the
        # bot runs. Nothing else of the host is writable for it.
        code = workdir / "code"
        shutil.copytree(bot_dir, code, symlinks=True)
        for path in (code, *code.rglob("*")):
            if not path.is_symlink():
                path.chmod(0o755 if path.is_dir() or path.stat().st_mode & 0o100 else 0o644)
        # Its code keeps its path, so that its tracebacks name the author's files. /tmp's
        # tmpfs first: a bind under /tmp (an interpreter, the code) is made inside it. bwrap
        # makes a bind's missing parents for root alone: made here, enterable by all. Its
        # run directory is a tmpfs of bwrap's, its root's (1777: the bot's uid writes it,
        # and no other uid is in its namespaces).
        where = bot_dir.resolve()
        tmp = ["--size", str(limits.tmp_mb << 20), "--perms", "1777", "--tmpfs", "/tmp"]
        run = ["--size", str(RUN_DIR_BYTES), "--perms", "1777", "--tmpfs", RUN_DIR]
        return [
            *rlimit_prefix(limits, memory_bounded=memory_bounded), *_bwrap(), *tmp,
            *_parents([*self._reach, Path(RUN_DIR), where]),
            *(arg for d in self._reach for arg in ("--ro-bind", str(d), str(d))),
            *run,
            "--ro-bind", str(code), str(where), "--chdir", str(where),
            "--", *_drop_uid(uid),
        ]  # fmt: skip

    def _argv(self, bot_dir: Path, python: str) -> list[str]:
        """What starts the bot (its manifest's command), with this sandbox's interpreter for
        ``python3`` and a clear error for a runtime this host lacks."""
        try:
            argv = list(manifest.read(bot_dir).command())
        except manifest.ManifestError as e:
            raise SandboxError(f"{bot_dir.name}: {e}") from None
        if argv[0] == "python3":
            return [python, *argv[1:]]
        if not argv[0].startswith("./") and shutil.which(argv[0]) is None:
            raise SandboxError(
                f"this host has no {argv[0]} for the process sandbox to run the bot with: "
                "install it, or use --sandbox docker"
            )
        return argv

    def build(self, bot_dir: Path, command: Sequence[str], limits: BuildLimits) -> BuildOutcome:
        """Build with this host's compilers; confined, inside bubblewrap as the bot would
        run (no network, a uid of its own, only ``bot_dir`` writable beside a /tmp)."""
        if shutil.which(command[0]) is None:
            raise SandboxError(
                f"this host has no {command[0]} to build the bot with: install it, or use "
                "--sandbox docker (its build image has the compilers)"
            )
        where = bot_dir.resolve()
        path = "/usr/local/bin:/usr/bin:/bin"
        if not self.confined:
            env = {**BUILD_ENV, "PATH": os.environ.get("PATH", path), "HOME": str(where)}
            env["TMPDIR"] = env["GOCACHE"] = env["GOPATH"] = str(where / ".arena-tmp")
            (where / ".arena-tmp").mkdir(exist_ok=True)
            try:
                return run_capped(command, cwd=where, env=env, limits=limits)
            finally:
                shutil.rmtree(where / ".arena-tmp", ignore_errors=True)
        uid = bot_uid()
        try:
            if uid != os.geteuid():
                for p in (where, *where.rglob("*")):
                    os.chown(p, uid, uid, follow_symlinks=False)
            prefix = [
                "prlimit", f"--as={limits.memory_mb << 20}", f"--nproc={limits.pids}",
                f"--fsize={limits.file_mb << 20}", "--",  # its output file among its files
                *_bwrap(), "--size", str(limits.tmp_mb << 20), "--perms", "1777",
                "--tmpfs", "/tmp", *_parents([where]), "--bind", str(where), str(where),
                "--chdir", str(where), "--", *_drop_uid(uid),
            ]  # fmt: skip
            env = {**BUILD_ENV, "PATH": path}
            return run_capped([*prefix, *command], cwd=None, env=env, limits=limits)
        finally:
            if uid != os.geteuid():
                for p in (where, *where.rglob("*")):
                    os.chown(p, os.geteuid(), os.getegid(), follow_symlinks=False)
                release_uid(uid)

    def close(self) -> None:
        # Any bot still running (a table dropped on an error path) goes with its sandbox.
        for bot in list(self._started):
            if bot.proc.poll() is None:
                bot.stop()
        self._started.clear()
        self._sweeper.stop()
        self._spawner.shutdown(wait=True)


def _parents(paths: list[Path]) -> list[str]:
    """bwrap's arguments that make the parents of ``paths``, enterable by all (one already
    there is left as it is)."""
    parents = sorted({a for p in paths for a in p.parents if a != Path("/")})
    return [arg for a in parents for arg in ("--perms", "0755", "--dir", str(a))]


def node_modules() -> Path | None:
    """Where ``./run`` installs the JavaScript SDK and its dependencies for node bots run on
    this host (``lib/node_modules`` under the platform's prefix, as npm lays out a prefix;
    the bot image's are at /opt/arena/node_modules), if it has."""
    modules = Path(sys.prefix) / "lib" / "node_modules"
    return modules.resolve() if modules.is_dir() else None


def _bot_env(socket_path: str, home: str, path: str) -> dict[str, str]:
    env = {
        "ARENA_SOCKET": socket_path,
        "PATH": path,
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "HOME": home,
        "TMPDIR": home,
    }
    modules = node_modules()
    if modules is not None:  # a node bot's require("backalley-sdk") finds it there
        env["NODE_PATH"] = str(modules)
    return env
