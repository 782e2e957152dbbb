"""Bots in Docker containers: one fresh, locked-down container per bot per game.

Each container has no network (networking disabled: a network namespace of its own with
only a loopback, and none of the engine's network set-up, which would cost more CPU than the
rest of a container's start), a read-only root, the bot's code mounted read-only at /bot,
a uid and gid of its own (``identity``: no per-uid quota shared with another bot), no
capabilities, ``no-new-privileges``, and limits on memory (swap
equal to it), CPU, processes and open files. Nothing else of the host is mounted.

Everything the bot can write is a small tmpfs, bounded in bytes and in files: /tmp, /dev/shm
and its run directory /run/arena, where it makes its socket. The run directory is an
anonymous volume of the local driver, mounted as a tmpfs (owned by the bot's user) at the
volume's mountpoint on the engine's host, where the referee reaches the socket (checked
first: ``bot_socket``); it goes with the container. The bot's stdout and stderr are the
container's attached streams, read by the platform (``output``); the engine keeps no log.

The copy of the code is made in the game's scratch directory, unless ``$ARENA_SANDBOX_DIR``
names another (``shared_dir``): the engine resolves a bind mount's source on its own host, so
a platform that runs in a container and drives its host's engine makes it in a directory
mounted at the same path in both (compose.yaml).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import stat
import tempfile
import threading
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import docker
import docker.errors
import docker.types
import requests.exceptions
from docker.models.containers import Container

from arena.bots import manifest
from arena.bots.limits import Limits

from .base import SOCKET_NAME, describe_exit
from .bot_socket import open_socket
from .build import BuildLimits, BuildOutcome
from .docker_engine import docker_client
from .errors import SandboxError
from .freezer import container_freezer
from .identity import claim_uid, release_uid
from .leftovers import Containers, Sweeper, mark_owner, owner_gone, sweep_scratch
from .output import Frames, OutputCapture
from .procview import MASKED_PATHS, proc_view_binds
from .turns import Turns

RUN_DIR = "/run/arena"  # its socket's directory inside the container: a tmpfs of its own
RUN_DIR_BOUND = "size=1m,nr_inodes=64,mode=0700"  # owned by the bot's uid and gid
DIED_POLL_S = 0.25  # how often to ask the engine whether a bot yet to make its socket died
SESSION_LABEL = "arena.sandbox.session"
OWNER_LABEL = "arena.sandbox.owner"  # host:pid of the platform process that started it
CONTAINER_LABEL = "arena.sandbox.owner-container"  # its container's run, if in one: leftovers
SHARED_DIR_VARIABLE = "ARENA_SANDBOX_DIR"
RUNTIME_VARIABLE = "ARENA_DOCKER_RUNTIME"  # the engine's OCI runtime for bots: runc or runsc
DEFAULT_RUNTIME = "runc"
# gVisor must let a bot make its socket in the run directory, a host directory: a runtime
# registered without one of these would start bots the referee can never reach.
HOST_UDS_ARGS = ("--host-uds=create", "--host-uds=all", "--fsgofer-host-uds")
# Under gVisor the container's cgroup holds its kernel's threads (about 45 for an idle bot),
# not the bot's: at the bot's own bound the kernel dies (exit status 2) when it needs more.
RUNSC_PIDS = 192
_ENGINE_ERRORS = (docker.errors.DockerException, requests.exceptions.RequestException)


@dataclass
class DockerBot:
    container: str  # its id
    run_dir: Path  # the host's side of its /run/arena
    capture: OutputCapture
    attached: socket.socket  # its stdout and stderr, as the engine streams them
    memory_mb: int
    sandbox: DockerSandbox
    uid: int  # its uid and gid, its own (``identity``): its socket's owner
    shared: Path | None = None  # its directory under $ARENA_SANDBOX_DIR, if there is one
    # Its freezer from its start (``turns``): frozen once up or past its start-up allowance
    # until the referee's first call (Hello), so that a bot started ahead of its game takes
    # no more CPU from the game in play, nor from its table's other bots, than the allowance.
    turns: Turns = field(default_factory=lambda: Turns(None, time.monotonic()))
    _ended: str | None = None
    _stopped: bool = False
    _died_checked: float = 0.0

    def open_socket(self, deadline: float) -> int:
        return open_socket(self.run_dir / SOCKET_NAME, self.uid, deadline, self._died_now_and_then)

    def _died_now_and_then(self) -> str | None:
        # Each look is a call to the engine; a bot is given its start-up time anyway. While
        # its attached output streams are open a process of it runs (its first one's end
        # ends them all), so the engine is asked only once they have ended.
        if self._ended is None and not self.capture.ended():
            return None
        now = time.monotonic()
        if now - self._died_checked < DIED_POLL_S:
            return None
        self._died_checked = now
        return self.died()

    def output(self) -> bytes:
        if self._stopped or self.died() is not None:
            self.capture.ended(wait_s=2.0)  # what it wrote as it died is on its way
        return self.capture.captured()

    def died(self) -> str | None:
        if self._ended is None:
            try:
                state = self.sandbox.client.api.inspect_container(self.container)["State"]
            except _ENGINE_ERRORS:
                return None  # gone or unreachable: we can't tell how, so don't guess
            if state["Status"] in ("exited", "dead"):
                self._ended = self._describe(state)
        return self._ended

    def _describe(self, state: dict[str, object]) -> str:
        if state.get("OOMKilled"):
            return f"out of memory (killed at its {self.memory_mb} MiB limit)"
        code = state.get("ExitCode")
        assert isinstance(code, int)
        # A process killed by signal N ends with 128 + N in a container.
        return describe_exit(128 - code if code > 128 else code)

    @property
    def started_at(self) -> float:
        return self.turns.started_at

    def freeze(self) -> None:
        """Stop all its processes until ``thaw`` (a no-op where there is no freezer)."""
        self.turns.freeze()

    def thaw(self) -> None:
        self.turns.thaw()

    def wait_frozen(self) -> None:
        self.turns.wait_frozen()

    def up(self) -> bool:
        """Whether it has made its socket. Looking for the name only (``lstat``): it is
        checked, never followed, when the referee opens it."""
        return os.path.lexists(self.run_dir / SOCKET_NAME)

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self.turns.stop()  # a frozen process would not die of the kill
        with contextlib.suppress(*_ENGINE_ERRORS):  # at once: the game's end is the bot's end
            self.sandbox.client.api.kill(self.container)
        # Its output goes with the rest: the referee keeps logs before it stops bots.
        self.sandbox.remove_later(self.container, self.shared, self.attached, self.uid)


class DockerSandbox:
    """Starts bot containers from ``image`` (see ``arena image build``)."""

    def __init__(
        self, image: str, client: docker.DockerClient | None = None, runtime: str | None = None
    ) -> None:
        self.shared = shared_dir()
        self.client = client or docker_client()
        self.image = image
        self.runtime = runtime or os.environ.get(RUNTIME_VARIABLE) or DEFAULT_RUNTIME
        check_runtime(self.client, self.runtime)
        # What a worker records and ``arena play`` prints: which runtime played each game.
        self.name = "docker" if self.runtime == DEFAULT_RUNTIME else f"docker/{self.runtime}"
        try:
            self.client.images.get(image)
        except docker.errors.ImageNotFound:
            raise SandboxError(
                f"the bot image {image} does not exist: build it with `arena image build`"
            ) from None
        except _ENGINE_ERRORS as e:
            raise SandboxError(f"the Docker engine failed to look up {image}: {e}") from None
        self.session = uuid.uuid4().hex[:12]
        self.owner = f"{socket.gethostname()}:{os.getpid()}"
        self.engine = engine_containers(self.client)  # a worker of compose.yaml runs in one
        # The container's own /proc files, if lxcfs runs; gVisor's /proc is its own already.
        self.proc_view = proc_view_binds() if self.runtime == DEFAULT_RUNTIME else {}
        self._count = 0
        self._lock = threading.Lock()
        # Removing a container takes a while; the next game need not wait for it.
        self._remover = ThreadPoolExecutor(max_workers=2, thread_name_prefix="arena-rm")
        self._removals: list[Future[None]] = []
        # What killed platform processes of this host left: removed now and every half minute.
        self._sweeper = Sweeper(self._sweep)

    def _sweep(self) -> None:
        remove_orphans(self.client, self.engine)
        sweep_scratch(engine=self.engine)
        if self.shared is not None:
            sweep_scratch(self.shared, self.engine)

    def start(self, bot_dir: Path, workdir: Path, limits: Limits) -> DockerBot:
        with self._lock:
            self._count += 1
            name = f"arena-{self.session}-{self._count}"
        shared = None
        if self.shared is not None:
            try:
                shared = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.shared))
                mark_owner(shared, self.engine.here)
            except OSError as e:
                raise SandboxError(f"cannot use {self.shared} for bot files: {e}") from None
        uid = claim_uid()
        try:
            return self._start(bot_dir, shared or workdir, shared, name, limits, uid)
        except BaseException:
            release_uid(uid)
            if shared is not None:
                shutil.rmtree(shared, ignore_errors=True)
            raise

    def _start(
        self,
        bot_dir: Path,
        top: Path,  # where its mounted directories go: ``shared``, else the bot's workdir
        shared: Path | None,
        name: str,
        limits: Limits,
        uid: int,
    ) -> DockerBot:
        # The bot gets its own copy of its code, readable by its user whatever the modes of
        # the original, and untouched by anything that changes the original mid-game.
        code = top / "code"
        shutil.copytree(bot_dir, code, symlinks=True)
        _readable_by_all(code)
        api = self.client.api  # not containers.create: it inspects each container it makes
        try:
            host_config = api.create_host_config(
                network_mode="none",
                read_only=True,
                binds={str(code.resolve()): {"bind": "/bot", "mode": "ro"}, **self.proc_view},
                mounts=[_run_dir_mount(uid)],
                tmpfs={
                    "/tmp": f"rw,noexec,nosuid,nodev,size={limits.tmp_mb}m,{_files(limits)}",
                    "/dev/shm": f"rw,noexec,nosuid,nodev,size={limits.tmp_mb}m,{_files(limits)}",
                },
                cap_drop=["ALL"],
                security_opt=["no-new-privileges"],
                mem_limit=f"{limits.memory_mb}m",
                memswap_limit=f"{limits.memory_mb}m",
                nano_cpus=int(limits.cpus * 1e9),
                pids_limit=limits.pids + (0 if self.runtime == DEFAULT_RUNTIME else RUNSC_PIDS),
                # No file-size limit: nothing it can write is on a disk, and a write past the
                # output cap must not fail (the reader drops the rest).
                ulimits=[_ulimit("nofile", limits.open_files)],
                log_config=docker.types.LogConfig(type="none"),
                ipc_mode="private",
                runtime=self.runtime,
            )
            host_config["MaskedPaths"] = list(MASKED_PATHS)  # no argument for it in docker-py
            container = api.create_container(
                self.image,
                bot_command(bot_dir),
                name=name,
                labels=self._labels(),
                detach=True,
                user=f"{uid}:{uid}",
                working_dir="/bot",
                environment={
                    "ARENA_SOCKET": f"{RUN_DIR}/{SOCKET_NAME}",
                    "HOME": "/tmp",
                    "PYTHONUNBUFFERED": "1",
                    "PYTHONDONTWRITEBYTECODE": "1",
                },
                # No network stack at all: the container still gets a network namespace of
                # its own (with only a loopback), but the engine sets up no sandbox for it.
                network_disabled=True,
                host_config=host_config,
            )["Id"]
        except _ENGINE_ERRORS as e:
            raise SandboxError(f"the Docker engine could not create a bot container: {e}") from None
        try:
            # Attached before it starts, so not a byte of its output is missed.
            attached = _attach(api, container)
        except _ENGINE_ERRORS as e:
            self.remove_later(container, shared)
            raise SandboxError(f"the Docker engine could not attach to a bot: {e}") from None
        capture = OutputCapture(Frames(attached.recv).read, limits.output_bytes, name)
        try:
            api.start(container)
            started_at = time.monotonic()
            inspected = api.inspect_container(container)
            run_dir = _run_dir_source(inspected)
        except _ENGINE_ERRORS as e:
            self.remove_later(container, shared, attached)
            raise SandboxError(f"the Docker engine could not start a bot container: {e}") from None
        except SandboxError:
            self.remove_later(container, shared, attached)
            raise
        # Its first process names its cgroup: the freezer, and the count of its CPU time.
        pid = inspected["State"]["Pid"]
        turns = Turns(container_freezer(pid, container) if pid else None, started_at)
        bot = DockerBot(
            container, run_dir, capture, attached, limits.memory_mb, self, uid, shared, turns
        )
        watch = threading.Thread(
            target=turns.hold, args=(bot.up, limits.startup_cpu_ms), daemon=True,
            name=f"arena-up-{name}",
        )  # fmt: skip
        watch.start()
        return bot

    def build(self, bot_dir: Path, command: Sequence[str], limits: BuildLimits) -> BuildOutcome:
        """Run a bot's build in a container of the build image (``docker_build``), in a
        copy under ``$ARENA_SANDBOX_DIR`` if there is one (the engine's host must see it)."""
        from arena.images.bot_images import build_image_tag

        from .docker_build import docker_build

        def run(where: Path) -> BuildOutcome:
            return docker_build(
                self.client, build_image_tag(), where, command, limits,
                runtime=self.runtime, labels=self._labels(),
            )  # fmt: skip

        if self.shared is None:
            return run(bot_dir)
        work = Path(tempfile.mkdtemp(prefix=f"arena-{self.session}-build-", dir=self.shared))
        try:
            shutil.copytree(bot_dir, work / "bot", symlinks=True)
            outcome = run(work / "bot")
            shutil.rmtree(bot_dir)
            shutil.copytree(work / "bot", bot_dir, symlinks=True)
            return outcome
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def _labels(self) -> dict[str, str]:
        labels = {SESSION_LABEL: self.session, OWNER_LABEL: self.owner}
        if self.engine.here is not None:
            labels[CONTAINER_LABEL] = self.engine.here
        return labels

    def remove_later(
        self,
        container: str,
        shared: Path | None = None,
        attached: socket.socket | None = None,
        uid: int | None = None,
    ) -> None:
        def remove() -> None:
            with contextlib.suppress(*_ENGINE_ERRORS):  # its run directory's volume with it
                self.client.api.remove_container(container, force=True, v=True)
            if uid is not None:  # its processes are gone: another bot may have its uid
                release_uid(uid)
            if attached is not None:
                attached.close()
            if shared is not None:
                shutil.rmtree(shared, ignore_errors=True)

        with self._lock:
            self._removals = [f for f in self._removals if not f.done()]
            self._removals.append(self._remover.submit(remove))

    def close(self) -> None:
        """Wait for every removal, then remove anything of this session still there."""
        self._sweeper.stop()
        self._remover.shutdown(wait=True)
        with contextlib.suppress(*_ENGINE_ERRORS):
            for container in self.client.containers.list(
                all=True, filters={"label": f"{SESSION_LABEL}={self.session}"}, ignore_removed=True
            ):
                with contextlib.suppress(*_ENGINE_ERRORS):
                    container.remove(force=True, v=True)
        if self.shared is not None:
            for left in self.shared.glob(f"arena-{self.session}-*"):
                shutil.rmtree(left, ignore_errors=True)
        self.client.close()


def shared_dir() -> Path | None:
    """``$ARENA_SANDBOX_DIR``, where bots' mounted directories are made (created if need be),
    or None: in each game's scratch directory. Read here only."""
    value = os.environ.get(SHARED_DIR_VARIABLE)
    if not value:
        return None
    path = Path(value)
    if not path.is_absolute():
        raise SandboxError(f"{SHARED_DIR_VARIABLE} must be an absolute path, got {value!r}")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise SandboxError(f"cannot create {SHARED_DIR_VARIABLE}={value}: {e.strerror}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise SandboxError(f"{SHARED_DIR_VARIABLE}={value} is not writable by this user")
    return path.resolve()


def _readable_by_all(top: Path) -> None:
    """Readable by every uid; runnable by every uid where its owner could run it."""
    for path in (top, *top.rglob("*")):
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() or path.stat().st_mode & 0o100 else 0o644)


def bot_command(bot_dir: Path) -> list[str]:
    """What the container starts: the bot's manifest's command (``python3 bot.py`` bare)."""
    try:
        return list(manifest.read(bot_dir).command())
    except manifest.ManifestError as e:
        raise SandboxError(f"{bot_dir.name}: {e}") from None


def _files(limits: Limits) -> str:
    """A tmpfs's bound on files (its inodes), beside its bound in bytes."""
    return f"nr_inodes={max(64, limits.tmp_mb * 64)},mode=1777"


def check_runtime(client: docker.DockerClient, runtime: str) -> None:
    """``SandboxError`` unless the engine has ``runtime``, registered so that bots can serve
    their socket (gVisor: ``--host-uds=create``) and have no network."""
    if runtime == DEFAULT_RUNTIME:
        return
    try:
        registered = client.info().get("Runtimes") or {}
    except _ENGINE_ERRORS as e:
        raise SandboxError(f"the Docker engine failed to list its runtimes: {e}") from None
    if runtime not in registered:
        raise SandboxError(
            f"the Docker engine has no runtime {runtime!r} (it has {', '.join(registered)}): "
            f"`./run` registers runsc (gVisor) where it can; or unset {RUNTIME_VARIABLE}"
        )
    args = registered[runtime].get("runtimeArgs") or []
    if runtime == "runsc" and not (
        "--network=none" in args and any(a in args for a in HOST_UDS_ARGS)
    ):
        raise SandboxError(
            f"the engine's runtime runsc is registered with {args}: bots need "
            "--network=none and --host-uds=create (see docs/operating.md, The Docker engine)"
        )


def _run_dir_mount(uid: int) -> docker.types.Mount:
    # An anonymous volume (no source): removed with the container (``v=True``).
    options = {"type": "tmpfs", "device": "tmpfs", "o": f"{RUN_DIR_BOUND},uid={uid},gid={uid}"}
    driver = docker.types.DriverConfig("local", options)
    return docker.types.Mount(RUN_DIR, None, type="volume", driver_config=driver)


def _attach(api: docker.APIClient, container: str) -> socket.socket:
    params = {"stdout": 1, "stderr": 1, "stream": 1}
    attached = api.attach_socket(container, params=params)
    raw = getattr(attached, "_sock", attached)  # the SDK wraps the socket in a SocketIO
    assert isinstance(raw, socket.socket)
    return raw


def _run_dir_source(inspected: dict[str, object]) -> Path:
    """Where the engine mounted the bot's run directory on its host: a directory of root's.

    Only the names the bot makes inside it are the bot's: the path up to it is the engine's,
    and is checked to be a directory, not a link, before the socket in it is looked at."""
    mounts = inspected.get("Mounts")
    assert isinstance(mounts, list)
    source = next(m["Source"] for m in mounts if m.get("Destination") == RUN_DIR)
    path = Path(source)
    try:
        is_dir = stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError as e:  # a platform in a container must see the engine's volumes too
        raise SandboxError(f"cannot reach a bot's run directory {path}: {e.strerror}") from None
    if not is_dir:
        raise SandboxError(f"the engine's run directory for a bot is not a directory: {path}")
    return path


def _ulimit(name: str, value: int) -> docker.types.Ulimit:
    return docker.types.Ulimit(name=name, soft=value, hard=value)


def remove_orphans(client: docker.DockerClient, engine: Containers) -> None:
    """Remove bot containers whose platform process is gone (killed, say): a process of this
    host, or one that ran in a container of this engine (``leftovers``)."""
    with contextlib.suppress(*_ENGINE_ERRORS):
        for container in client.containers.list(
            all=True, filters={"label": OWNER_LABEL}, ignore_removed=True
        ):
            owner_host, _, pid = container.labels.get(OWNER_LABEL, "").rpartition(":")
            if owner_gone(owner_host, pid, container.labels.get(CONTAINER_LABEL), engine):
                with contextlib.suppress(*_ENGINE_ERRORS):
                    container.remove(force=True, v=True)


# Docker bind-mounts each container's /etc/hostname from the engine's directory of that
# container, named by its id: how a process finds the container it runs in.
_HOSTNAME_MOUNT = re.compile(r"/containers/([0-9a-f]{64})/hostname ")


def engine_containers(client: docker.DockerClient) -> Containers:
    """This process's container run (``ID STARTED_AT``) if it runs in one of this engine's
    containers, and how to tell that another's has ended."""
    here = None
    with contextlib.suppress(OSError):
        for cid in set(_HOSTNAME_MOUNT.findall(Path("/proc/self/mountinfo").read_text())):
            run = _container_run(client, cid)
            if run is not None:
                here = run
                break
    return Containers(here, lambda run: _run_ended(client, run))


def _container_run(client: docker.DockerClient, cid: str) -> str | None:
    """``ID STARTED_AT`` of container ``cid`` while it runs; None if it does not (or cannot
    be asked)."""
    try:
        state = client.api.inspect_container(cid)["State"]
    except _ENGINE_ERRORS:
        return None
    return f"{cid} {state['StartedAt']}" if state.get("Running") else None


def _run_ended(client: docker.DockerClient, run: str) -> bool:
    """Whether the container run ``ID STARTED_AT`` is over: the container removed, stopped,
    or started again since. An engine that does not answer tells nothing: not over."""
    cid, _, started = run.partition(" ")
    try:
        state = client.api.inspect_container(cid)["State"]
    except docker.errors.NotFound:
        return True
    except _ENGINE_ERRORS:
        return False
    return not state.get("Running") or state.get("StartedAt") != started


def leftover_containers(client: docker.DockerClient) -> list[Container]:
    """Bot containers of any session (for tests and operators: after a run, none remain)."""
    return list(
        client.containers.list(all=True, filters={"label": SESSION_LABEL}, ignore_removed=True)
    )


__all__ = ["DockerBot", "DockerSandbox", "leftover_containers"]
