"""The bot runtime image, built offline and tagged by the hash of what goes into it.

No container registry is needed: ``debootstrap`` makes a minimal Debian root with the
runtimes, python3 and nodejs (cached as a tarball under ``$ARENA_HOME/cache``, keyed by the
base recipe alone), pip installs the pinned wheels and the SDK into it, npm the locked Node
packages of ``node/`` (gRPC for Node bots, at /opt/arena/node_modules on ``NODE_PATH``, the
player protos beside them at /opt/arena/protos), what Python imports is compiled ahead
(start-up time), and the root is imported into the engine with ``docker import``. The tag
is ``backalley-bot:<12 hex>``, a sha256 over the base recipe, the SDK's source files, the
pinned requirements, the Node lock file, the protos and ``FORMAT_VERSION``: an unchanged
image is never rebuilt, and a changed SDK never reuses a stale one.

The build image (``backalley-build:<12 hex>``, ``ensure_build_image``) is another root with
the compilers alone (g++, Go, make): a bot's ``build`` runs there once, at submission.

The service's images (``arena/images/service_images.py``: the platform, PostgreSQL) are built by the
same steps: ``base_tarball`` (a cached Debian root of a ``BaseRecipe``), ``extract_root`` and
``import_root`` (import, smoke test, then tag).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import docker
import docker.errors
import requests.exceptions

from arena.host.home import arena_home
from arena.sandbox.errors import SandboxError

# Bump when the build changes in a way the inputs below do not show.
FORMAT_VERSION = 1
REPOSITORY = "backalley-bot"
BUILD_REPOSITORY = "backalley-build"
LABEL_HASH = "org.backalley.arena.content-hash"
LABEL_BUILT = "org.backalley.arena.built"

# The base root: what debootstrap makes, and what is stripped from it afterwards.
SUITE = "bookworm"
VARIANT = "minbase"
INCLUDE = ("python3", "nodejs")
STRIP = (
    "usr/share/doc",  # all but the copyright files
    "usr/share/man",
    "usr/share/info",
    "usr/share/locale",
    "var/lib/apt/lists",
    "var/cache/apt",
    "var/cache/debconf",  # only the *-old backups
    "var/log",
    "dev",  # the engine provides /dev
)

# What pip installs on top. grpcio and protobuf are the versions the platform is tested
# with; all wheels are manylinux cp311 x86_64 (bookworm's python3 is 3.11, glibc 2.36).
REQUIREMENTS = (
    "grpcio==1.85.3",
    "protobuf==7.36.2",
    "numpy==2.4.6",
    "typing-extensions==4.16.0",  # grpcio's one dependency, pinned too (pip runs --no-deps)
)
PYTHON_VERSION = "3.11"
PLATFORMS = (
    *(f"manylinux_2_{minor}_x86_64" for minor in range(36, 16, -1)),
    "manylinux2014_x86_64",
)
SITE_PACKAGES = "usr/local/lib/python3.11/dist-packages"

# The container's defaults; the sandbox passes the same user, network and mounts itself.
CHANGES = (
    "WORKDIR /bot",
    "USER 65534:65534",
    "ENV PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8",
    "ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1",
    "ENV NODE_PATH=/opt/arena/node_modules ARENA_PROTOS=/opt/arena/protos",
    'CMD ["python3", "bot.py"]',
)
SMOKE_TEST = "import arena_sdk, arena_sdk.stdio_bridge, grpc, google.protobuf, numpy"
NODE_SMOKE_TEST = (
    "require('@grpc/grpc-js'); require('@grpc/proto-loader'); require('backalley-sdk')"
)

# The Node packages (npm ci of the lock file, no install scripts) and the protos they load.
NODE_DIR = Path(__file__).resolve().parent / "node"
NODE_FILES = ("package.json", "package-lock.json")
# The JavaScript SDK (sdk-js/, its package.json's "files"), beside its dependencies as
# /opt/arena/node_modules/backalley-sdk: a Node bot's require("backalley-sdk") finds it.
SDK_JS_FILES = ("package.json", "index.js", "testing.js", "README.md")
SDK_JS_TREES = ("lib", "proto")
NODE_MODULES = "opt/arena/node_modules"
PROTOS_DIR = "opt/arena/protos"
# Compiled ahead in the image, so no bot start compiles them (PYTHONDONTWRITEBYTECODE).
COMPILED = ("usr/lib/python3.11", "usr/lib/python3/dist-packages", "usr/local/lib/python3.11")

# The build image: the compilers of the supported languages, and what drives them.
BUILD_INCLUDE = ("g++", "golang-go", "make")
BUILD_CHANGES = (
    "WORKDIR /bot",
    "ENV PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8",
    'CMD ["true"]',
)
BUILD_SMOKE_TEST = ["sh", "-c", "g++ --version && go version && make --version"]

# The SDK's files that go into the image: these, recursively, minus build leftovers.
SDK_PARTS = ("pyproject.toml", "README.md", "arena_sdk", "backalley")
_IGNORED_DIRS = ("__pycache__",)
_IGNORED_SUFFIXES = (".egg-info", ".pyc", ".pyo")

Progress = Callable[[str], None]


@dataclass(frozen=True)
class BaseRecipe:
    """A Debian root made by debootstrap, cached as a tarball named ``NAME-SUITE-KEY.tar``.

    ``install``: packages apt-get adds inside the root (``chroot``) after debootstrap, with
    services forbidden to start and no PostgreSQL cluster created, for packages whose
    maintainer scripts would otherwise start a daemon on the host's network.
    """

    name: str
    include: tuple[str, ...]
    strip: tuple[str, ...] = STRIP
    install: tuple[str, ...] = ()
    suite: str = SUITE
    variant: str = VARIANT

    def as_dict(self) -> dict[str, Any]:
        recipe: dict[str, Any] = {
            "suite": self.suite, "variant": self.variant, "include": list(self.include),
            "strip": list(self.strip),
        }  # fmt: skip
        if self.install:  # absent for the bot's base: its key, and so its tag, stay as they were
            recipe["install"] = list(self.install)
        return recipe

    def key(self) -> str:
        """12 hex digits naming the cached root: changes only with the recipe."""
        return _sha256_json({"format": FORMAT_VERSION, "base": self.as_dict()})[:12]


BOT_BASE = BaseRecipe(name="bot-base", include=INCLUDE)
BUILD_BASE = BaseRecipe(name="build-base", include=BUILD_INCLUDE)


def default_sdk_dir() -> Path:
    """The ``sdk/`` directory of this source tree."""
    return Path(__file__).resolve().parents[2] / "sdk"


def base_recipe() -> dict[str, Any]:
    return BOT_BASE.as_dict()


def base_key() -> str:
    """12 hex digits naming the cached base root: changes only with the base recipe."""
    return BOT_BASE.key()


def sdk_files(sdk_dir: Path) -> list[Path]:
    """The SDK's source files, relative to ``sdk_dir``, sorted."""
    found: list[Path] = []
    for part in SDK_PARTS:
        top = sdk_dir / part
        if top.is_file():
            found.append(Path(part))
            continue
        if not top.is_dir():
            raise SandboxError(f"no SDK source at {top}")
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = [d for d in dirnames if not _ignored(d)]
            for name in filenames:
                path = Path(dirpath) / name
                if not _ignored(name) and path.is_file():
                    found.append(path.relative_to(sdk_dir))
    return sorted(found, key=lambda p: p.as_posix())


def _ignored(name: str) -> bool:
    return name in _IGNORED_DIRS or name.endswith(_IGNORED_SUFFIXES)


def content_hash(sdk_dir: Path | None = None) -> str:
    """The full sha256 over everything that determines the image."""
    sdk_dir = sdk_dir or default_sdk_dir()
    digest = hashlib.sha256()
    header = {
        "format": FORMAT_VERSION,
        "base": base_recipe(),
        "requirements": list(REQUIREMENTS),
        "python": PYTHON_VERSION,
        "platforms": list(PLATFORMS),
        "site": SITE_PACKAGES,
        "changes": list(CHANGES),
    }
    digest.update(json.dumps(header, sort_keys=True).encode() + b"\0")
    for rel in sdk_files(sdk_dir):
        data = (sdk_dir / rel).read_bytes()
        digest.update(f"{rel.as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    for name, path in _node_inputs():
        data = path.read_bytes()
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def protos_dir() -> Path:
    """The player protocol's protos of this source tree (``protos/backalley``)."""
    return Path(__file__).resolve().parents[2] / "protos" / "backalley"


def sdk_js_dir() -> Path:
    """The JavaScript SDK of this source tree (``sdk-js``)."""
    return Path(__file__).resolve().parents[2] / "sdk-js"


def sdk_js_files(sdk_js: Path) -> list[Path]:
    """The JavaScript SDK's files, relative to ``sdk_js`` (its node_modules not among them)."""
    found = [Path(name) for name in SDK_JS_FILES]
    for tree in SDK_JS_TREES:
        found += sorted(p.relative_to(sdk_js) for p in (sdk_js / tree).rglob("*") if p.is_file())
    missing = [str(rel) for rel in found if not (sdk_js / rel).is_file()]
    if missing:
        raise SandboxError(f"the JavaScript SDK at {sdk_js} lacks {', '.join(missing)}")
    return found


def _node_inputs() -> list[tuple[str, Path]]:
    """What the image's Node part is made of: the lock file, the JavaScript SDK and the
    player protos."""
    found = [(f"node/{name}", NODE_DIR / name) for name in NODE_FILES]
    sdk_js = sdk_js_dir()
    found += [(f"sdk-js/{rel.as_posix()}", sdk_js / rel) for rel in sdk_js_files(sdk_js)]
    protos = protos_dir()
    if not protos.is_dir():
        raise SandboxError(f"no protos at {protos}")
    found += [
        (f"protos/{p.relative_to(protos).as_posix()}", p) for p in sorted(protos.rglob("*.proto"))
    ]
    return found


def image_tag(sdk_dir: Path | None = None) -> str:
    """``backalley-bot:<12 hex>``: the image the current source wants."""
    return f"{REPOSITORY}:{content_hash(sdk_dir)[:12]}"


def image_present(client: docker.DockerClient, tag: str) -> bool:
    try:
        client.images.get(tag)
    except docker.errors.ImageNotFound:
        return False
    except (docker.errors.DockerException, requests.exceptions.RequestException) as e:
        raise _engine_error(e) from None
    return True


def image_size(client: docker.DockerClient, tag: str) -> int:
    """The image's size in bytes, as the engine reports it."""
    try:
        return int(client.images.get(tag).attrs["Size"])
    except (docker.errors.DockerException, requests.exceptions.RequestException) as e:
        raise _engine_error(e) from None


def ensure_image(
    client: docker.DockerClient,
    *,
    mirror: str | None = None,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
    force: bool = False,
    sdk_dir: Path | None = None,
) -> str:
    """Return the tag of the bot image, building it first if the engine lacks it.

    ``force`` rebuilds even if present (the cached base root is still used). A failed
    build leaves no tag and no partial cache file behind.
    """
    say = progress or (lambda _message: None)
    sdk_dir = sdk_dir or default_sdk_dir()
    digest = content_hash(sdk_dir)
    tag = f"{REPOSITORY}:{digest[:12]}"
    if not force and image_present(client, tag):
        say(f"image {tag}: already present")
        return tag
    cache_dir = cache_dir or arena_home() / "cache"
    with build_lock(cache_dir), temp_dir("arena-image-") as work:
        if not force and image_present(client, tag):  # built meanwhile by another process
            say(f"image {tag}: already present")
            return tag
        base = base_tarball(cache_dir, BOT_BASE, mirror, say)
        root = extract_root(base, work, say)
        say(f"wheels: {', '.join(REQUIREMENTS)} and the SDK")
        _install_wheels(root, sdk_dir, work)
        say("node packages: npm ci of " + ", ".join(NODE_FILES))
        _install_node(root, work)
        say("compiling what Python imports")
        _compile_python(root)
        (root / "bot").mkdir(mode=0o755, exist_ok=True)
        smoke = ["sh", "-c", f'python3 -c "{SMOKE_TEST}" && node -e "{NODE_SMOKE_TEST}"']
        import_root(client, root, work, tag, digest, CHANGES, smoke, user="65534:65534", say=say)
    say(f"image {tag}: built")
    return tag


def build_image_tag() -> str:
    """``backalley-build:<12 hex>``: the build image the current source wants."""
    return f"{BUILD_REPOSITORY}:{_build_digest()[:12]}"


def _build_digest() -> str:
    return _sha256_json(
        {"format": FORMAT_VERSION, "base": BUILD_BASE.as_dict(), "changes": list(BUILD_CHANGES)}
    )


def ensure_build_image(
    client: docker.DockerClient,
    *,
    mirror: str | None = None,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
    force: bool = False,
) -> str:
    """Return the tag of the build image, building it first if the engine lacks it."""
    say = progress or (lambda _message: None)
    digest = _build_digest()
    tag = f"{BUILD_REPOSITORY}:{digest[:12]}"
    if not force and image_present(client, tag):
        say(f"image {tag}: already present")
        return tag
    cache_dir = cache_dir or arena_home() / "cache"
    with build_lock(cache_dir), temp_dir("arena-image-") as work:
        if not force and image_present(client, tag):
            say(f"image {tag}: already present")
            return tag
        base = base_tarball(cache_dir, BUILD_BASE, mirror, say)
        root = extract_root(base, work, say)
        (root / "bot").mkdir(mode=0o755, exist_ok=True)
        import_root(
            client, root, work, tag, digest, BUILD_CHANGES, BUILD_SMOKE_TEST,
            user="65534:65534", say=say,
        )  # fmt: skip
    say(f"image {tag}: built")
    return tag


def extract_root(base: Path, work: Path, say: Progress) -> Path:
    """The cached base root, unpacked in ``work/root``."""
    root = work / "root"
    root.mkdir()
    say("extracting the base root")
    _run(["tar", "--numeric-owner", "-xpf", str(base), "-C", str(root)], "tar (extract)")
    return root


# --- the base root ---------------------------------------------------------------------


def base_tarball(cache_dir: Path, recipe: BaseRecipe, mirror: str | None, say: Progress) -> Path:
    """The recipe's root as a tarball in ``cache_dir``, made first if it is not there."""
    path = cache_dir / f"{recipe.name}-{recipe.suite}-{recipe.key()}.tar"
    if path.is_file():
        say(f"base root: cached ({path.name})")
        return path
    mirror = mirror or default_mirror()
    say(f"base root: building with debootstrap from {mirror} (about 2 minutes)")
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise SandboxError(f"cannot create the cache directory {cache_dir}: {e.strerror}") from None
    with temp_dir("arena-base-") as work:
        root = work / "root"
        _debootstrap(root, recipe, mirror, work / "debootstrap.log")
        if recipe.install:
            say(f"base root: installing {', '.join(recipe.install)} in it")
            _chroot_install(root, recipe.install, work / "apt.log")
        _strip(root, recipe.strip)
        tmp = cache_dir / f".{path.name}.{os.getpid()}.tmp"
        try:
            _run(["tar", "--numeric-owner", "-cf", str(tmp), "-C", str(root), "."], "tar")
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    return path


def _debootstrap(root: Path, recipe: BaseRecipe, mirror: str, log_path: Path) -> None:
    exe = shutil.which("debootstrap") or next(
        (p for p in ("/usr/sbin/debootstrap", "/sbin/debootstrap") if os.access(p, os.X_OK)), None
    )
    if exe is None:
        raise SandboxError("debootstrap is not installed (apt-get install debootstrap)")
    if os.geteuid() != 0:
        raise SandboxError("debootstrap needs root: build the bot image once as root")
    include = [f"--include={','.join(recipe.include)}"] if recipe.include else []
    command = [exe, f"--variant={recipe.variant}", *include, recipe.suite, str(root), mirror]
    with open(log_path, "wb") as log:
        code = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, check=False)
    if code.returncode != 0:
        last = _last_line(log_path.read_text(errors="replace"))
        raise SandboxError(f"debootstrap failed (exit status {code.returncode}): {last}")


# Inside the root while apt-get runs there: invoke-rc.d starts no service (policy-rc.d's 101),
# and postgresql-common creates no cluster, which it would start on the host's network.
_NO_SERVICES = "#!/bin/sh\n# built by arena: no service starts in this root\nexit 101\n"
_NO_CLUSTER = "create_main_cluster = false\n"


def _chroot_install(root: Path, packages: Sequence[str], log_path: Path) -> None:
    """apt-get install PACKAGES inside ``root``, through ``chroot``: nothing outside it is
    followed or written (its absolute symlinks, such as /var/run, point into the root)."""
    write_inside(root, "usr/sbin/policy-rc.d", _NO_SERVICES, mode=0o755)
    write_inside(root, "etc/postgresql-common/createcluster.d/arena.conf", _NO_CLUSTER)
    env = {
        "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
        "DEBIAN_FRONTEND": "noninteractive",
        "LANG": "C",
    }
    apt = ["chroot", str(root), "apt-get", "-q", "-y", "-o", "Dpkg::Options::=--force-confold"]
    with open(log_path, "wb") as log:
        for command in ([*apt, "update"], [*apt, "install", "--no-install-recommends", *packages]):
            done = subprocess.run(
                command, stdout=log, stderr=subprocess.STDOUT, env=env, check=False
            )
            if done.returncode != 0:
                last = _last_line(log_path.read_text(errors="replace"))
                code = done.returncode
                raise SandboxError(f"apt-get in the root failed (exit status {code}): {last}")


def inside(root: Path, rel: str) -> Path:
    """``root/rel``, refusing any symlink on the way: a Debian root's absolute links (such as
    /var/run) would lead out of it into this machine's own directories."""
    path = root
    for part in Path(rel).parts:
        if part in ("", ".", "..", "/"):
            raise SandboxError(f"not a plain path inside the root: {rel}")
        path = path / part
        if path.is_symlink():
            raise SandboxError(f"{rel}: {path.relative_to(root)} is a symlink in the root")
    return path


def write_inside(root: Path, rel: str, text: str, *, mode: int = 0o644) -> Path:
    """Write a file at ``root/rel`` (its directories made), through no symlink."""
    path = inside(root, rel)
    for parent in reversed(path.relative_to(root).parents[:-1]):
        inside(root, parent.as_posix()).mkdir(mode=0o755, exist_ok=True)
    path.write_text(text)
    os.chmod(path, mode)
    return path


def _strip(root: Path, strip: Sequence[str]) -> None:
    """Remove what a bot never needs: docs (bar copyright files), man pages, apt lists."""
    for rel in strip:
        top = root / rel
        if not top.is_dir():
            continue
        for entry in top.iterdir():
            if rel == "usr/share/doc" and entry.is_dir() and not entry.is_symlink():
                for sub in entry.iterdir():
                    if sub.name != "copyright":
                        _remove(sub)
            elif rel == "var/cache/debconf" and not entry.name.endswith("-old"):
                continue
            else:
                _remove(entry)


def default_mirror(apt_dir: Path = Path("/etc/apt")) -> str:
    """The Debian main archive of this machine's apt sources."""
    for types, uris, suites, components in _apt_sources(apt_dir):
        if "deb" not in types or "main" not in components:
            continue
        if not any("-" not in s for s in suites):  # bookworm, stable: not -updates/-security
            continue
        for uri in uris:
            if uri.rstrip("/").endswith("/debian"):
                return uri
    raise SandboxError("no Debian main archive in the apt sources: pass --mirror URL")


def _apt_sources(apt_dir: Path) -> Iterator[tuple[list[str], list[str], list[str], list[str]]]:
    """(types, uris, suites, components) of each entry, one-line and deb822 alike."""
    files = [apt_dir / "sources.list"]
    if (apt_dir / "sources.list.d").is_dir():
        files += sorted((apt_dir / "sources.list.d").iterdir())
    for file in files:
        try:
            text = file.read_text(errors="replace")
        except OSError:
            continue
        if file.suffix == ".list" or file.name == "sources.list":
            for line in text.splitlines():
                words = line.split("#", 1)[0].split()
                if words and words[0] in ("deb", "deb-src"):
                    if len(words) > 1 and words[1].startswith("["):
                        while words[1:] and not words[1].endswith("]"):
                            del words[1]
                        del words[1:2]
                    if len(words) >= 3:
                        yield [words[0]], [words[1]], [words[2]], words[3:]
        elif file.suffix == ".sources":
            for stanza in text.split("\n\n"):
                fields: dict[str, str] = {}
                for line in stanza.splitlines():
                    if line.startswith("#") or ":" not in line or line[:1].isspace():
                        continue
                    key, value = line.split(":", 1)
                    fields[key.strip().lower()] = value.strip()
                if fields.get("enabled", "yes").lower() == "no":
                    continue
                yield (
                    fields.get("types", "").split(),
                    fields.get("uris", "").split(),
                    fields.get("suites", "").split(),
                    fields.get("components", "").split(),
                )


# --- wheels ----------------------------------------------------------------------------


def _install_wheels(root: Path, sdk_dir: Path, work: Path) -> None:
    install_wheels(root / SITE_PACKAGES, sdk_dir, work, REQUIREMENTS, resolve=False)


def install_wheels(
    target: Path, sdk_dir: Path, work: Path, requirements: Sequence[str], *, resolve: bool
) -> None:
    """pip installs ``requirements`` and the SDK (a wheel built from ``sdk_dir``) into
    ``target``: binary wheels for the image's Python only, their dependencies too if
    ``resolve``, world-readable."""
    # Build the SDK from a copy of exactly the hashed files: nothing is written into sdk/.
    src = work / "sdk"
    for rel in sdk_files(sdk_dir):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sdk_dir / rel, src / rel)
    wheels = work / "wheels"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    _run([*pip, "wheel", "--no-deps", "--wheel-dir", str(wheels), str(src)], "pip wheel (SDK)")
    sdk_wheels = sorted(wheels.glob("*.whl"))
    if len(sdk_wheels) != 1:
        raise SandboxError(f"pip wheel (SDK) made {len(sdk_wheels)} wheels, expected 1")
    platforms = [arg for p in PLATFORMS for arg in ("--platform", p)]
    # The .pyc files pip writes are only of use if this Python is the image's.
    compile_flag = [] if sys.version_info[:2] == (3, 11) else ["--no-compile"]
    deps = [] if resolve else ["--no-deps"]
    install = [
        *pip, "install", "--target", str(target), *deps, "--only-binary=:all:",
        "--python-version", PYTHON_VERSION, "--implementation", "cp", *platforms,
        *compile_flag, *requirements, str(sdk_wheels[0]),
    ]  # fmt: skip
    _run(install, "pip install")
    shutil.rmtree(target / "bin", ignore_errors=True)  # f2py & co.: console scripts for nobody
    _make_world_readable(target)


def _install_node(root: Path, work: Path) -> None:
    """The locked Node packages (``npm ci``, no install scripts: nothing of theirs runs
    here) into ``root/opt/arena/node_modules``, and the player protos beside them."""
    src = work / "node"
    src.mkdir()
    for name in NODE_FILES:
        shutil.copyfile(NODE_DIR / name, src / name)
    npm = [
        "npm", "ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund",
        "--cache", str(work / "npm-cache"),
    ]  # fmt: skip
    try:
        done = subprocess.run(npm, cwd=src, capture_output=True, check=False)
    except FileNotFoundError:
        raise SandboxError(
            "npm is not installed (apt-get install npm): it fetches the "
            "Node packages of the bot image"
        ) from None
    if done.returncode != 0:
        last = _last_line((done.stderr or done.stdout).decode(errors="replace"))
        raise SandboxError(f"npm ci failed (exit status {done.returncode}): {last}")
    target = inside(root, NODE_MODULES)
    inside(root, "opt/arena").mkdir(parents=True, exist_ok=True)
    shutil.move(src / "node_modules", target)
    sdk_js = sdk_js_dir()
    for rel in sdk_js_files(sdk_js):
        (target / "backalley-sdk" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sdk_js / rel, target / "backalley-sdk" / rel)
    shutil.copytree(protos_dir(), inside(root, PROTOS_DIR) / "backalley")
    _make_world_readable(inside(root, "opt/arena"))


def _compile_python(root: Path) -> None:
    """``python3 -m compileall`` in the root (``chroot``: its own interpreter writes the
    .pyc files it will read) over the standard library and the installed packages."""
    dirs = ["/" + d for d in COMPILED if (root / d).is_dir()]
    command = ["chroot", str(root), "python3", "-m", "compileall", "-q", *dirs]
    _run(command, "compileall")
    for d in COMPILED:
        if (root / d).is_dir():
            _make_world_readable(root / d)


def _make_world_readable(top: Path) -> None:
    for dirpath, _dirnames, filenames in os.walk(top):
        os.chmod(dirpath, stat.S_IMODE(os.stat(dirpath).st_mode) | 0o555)
        for name in filenames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                os.chmod(path, stat.S_IMODE(os.stat(path).st_mode) | 0o444)


# --- import ----------------------------------------------------------------------------


def import_root(
    client: docker.DockerClient,
    root: Path,
    work: Path,
    tag: str,
    digest: str,
    changes: Sequence[str],
    smoke: Sequence[str],
    *,
    user: str,
    say: Progress,
    entrypoint: Sequence[str] | None = None,
) -> None:
    """Import ``root`` with its config ``changes``, check that ``smoke`` runs in it as
    ``user`` with no network, then (only then) tag it ``tag``, labelled with ``digest``."""
    say("importing into the Docker engine")
    image_tar = work / "image.tar"
    _run(["tar", "--numeric-owner", "-cf", str(image_tar), "-C", str(root), "."], "tar")
    built = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    labelled = [*changes, f"LABEL {LABEL_HASH}={digest} {LABEL_BUILT}={built}"]
    image_id: str | None = None
    try:
        result = client.api.import_image_from_file(str(image_tar), changes=labelled)
        image_id = _imported_id(result)
        # The image's own entrypoint unless told otherwise (the bot image has none).
        client.containers.run(
            image_id, list(smoke), network_mode="none", user=user,
            entrypoint=None if entrypoint is None else list(entrypoint),
            read_only=True, tmpfs={"/tmp": ""}, remove=True, stdout=True, stderr=True,
        )  # fmt: skip
        repository, _, version = tag.partition(":")
        try:
            previous: str | None = client.images.get(tag).id  # --force: the one replaced
        except docker.errors.ImageNotFound:
            previous = None
        new_id = image_id
        client.images.get(new_id).tag(repository, version)
        image_id = None  # tagged: keep it
        if previous is not None and previous != new_id:
            with contextlib.suppress(docker.errors.DockerException):  # in use: leave it
                client.images.remove(previous)
    except docker.errors.ContainerError as e:
        stderr = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else ""
        raise SandboxError(f"the new image fails its smoke test: {_last_line(stderr)}") from None
    except (docker.errors.DockerException, requests.exceptions.RequestException) as e:
        raise _engine_error(e) from None
    finally:
        if image_id is not None:
            with contextlib.suppress(docker.errors.DockerException):
                client.images.remove(image_id, force=True)


def _imported_id(result: object) -> str:
    """The image id from ``/images/create``'s JSON stream (``{"status": "sha256:..."}``)."""
    text = result.decode() if isinstance(result, bytes) else str(result)
    for line in reversed(text.splitlines()):
        with contextlib.suppress(ValueError):
            message = json.loads(line)
            if isinstance(message, dict):
                if "error" in message:
                    raise SandboxError(f"docker import failed: {message['error']}")
                status = str(message.get("status", ""))
                if status.startswith("sha256:"):
                    return status
    raise SandboxError(f"docker import gave no image id: {_last_line(text)}")


# --- helpers ---------------------------------------------------------------------------


def _engine_error(e: BaseException) -> SandboxError:
    text = str(e).splitlines()[0] if str(e) else type(e).__name__
    return SandboxError(f"the Docker engine failed: {text}")


def _run(command: list[str], what: str) -> None:
    try:
        done = subprocess.run(command, capture_output=True, check=False)
    except FileNotFoundError:
        raise SandboxError(f"{what}: {command[0]} is not installed") from None
    if done.returncode != 0:
        last = _last_line((done.stderr or done.stdout).decode(errors="replace"))
        raise SandboxError(f"{what} failed (exit status {done.returncode}): {last}")


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


def _sha256_json(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


@contextlib.contextmanager
def build_lock(cache_dir: Path) -> Iterator[None]:
    """One build at a time per cache: a second waits, then finds the image built."""
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        lock = open(cache_dir / ".build.lock", "a")  # noqa: SIM115 (held across the yield)
    except OSError as e:
        raise SandboxError(f"cannot use the cache directory {cache_dir}: {e.strerror}") from None
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@contextlib.contextmanager
def temp_dir(prefix: str) -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield path
    finally:
        _remove(path)


def _remove(path: Path) -> None:
    """Remove a file or a tree, even one with read-only directories in it."""

    def retry(function: Callable[..., Any], name: str, _exc: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(name), 0o700)
            function(name)

    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, onerror=retry)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
