"""The service's images, built offline the way the bot image is: the platform and PostgreSQL.

Each is a Debian root (``BaseRecipe``, cached under ``$ARENA_HOME/cache``), what is added on
top, and ``docker import`` with the image's config; ``arena/images/bot_images.py`` does each of
those steps for all three images. Each is tagged ``REPOSITORY:<12 hex>`` by a sha256 over
everything that goes into it, so an unchanged image is never rebuilt, and the newest build
is also tagged ``REPOSITORY:offline``, which ``compose.offline.yaml`` runs by default.

- The platform (``backalley-arena``): bookworm's python3, the platform's dependencies as
  wheels (the versions installed here, which are the ones tested), the SDK, and the
  source tree in ``/app`` as the registry ``Dockerfile`` has it (the bot image's tag is a hash
  of ``/app/sdk``); debootstrap, so that it can build the bot image in turn.
- PostgreSQL (``backalley-postgres``): Debian's ``postgresql-15`` and
  ``deploy/postgres-entrypoint.sh``, which makes the cluster on the first start.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import docker

from arena.host.home import arena_home
from arena.images.bot_images import (
    FORMAT_VERSION,
    PLATFORMS,
    PYTHON_VERSION,
    SITE_PACKAGES,
    BaseRecipe,
    Progress,
    base_tarball,
    build_lock,
    extract_root,
    image_present,
    import_root,
    inside,
    install_wheels,
    sdk_files,
    temp_dir,
    write_inside,
)
from arena.sandbox.errors import SandboxError

SOURCE = Path(__file__).resolve().parents[2]  # the tree with pyproject.toml, sdk/, deploy/
LOCAL_TAG = "offline"

ARENA_UID = 10001  # the image's unprivileged user, as in the registry Dockerfile
PLATFORM_BASE = BaseRecipe(
    name="platform-base",
    include=("python3", "python3-pip", "debootstrap", "gpgv", "debian-archive-keyring"),
    # npm: `arena image build` fetches the bot image's locked Node packages with it. Added by
    # apt-get in the root: debootstrap's own resolver fails on npm's hundreds of dependencies.
    install=("npm",),
)
PLATFORM_CHANGES = (
    "WORKDIR /app",
    f"USER {ARENA_UID}:{ARENA_UID}",
    "ENV PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin LANG=C.UTF-8 PYTHONPATH=/app",
    "ENV ARENA_HOME=/var/lib/arena/home ARENA_SAMPLE_BOTS=/app/sample_bots PYTHONUNBUFFERED=1",
    "EXPOSE 50051 8000",
    'ENTRYPOINT ["arena"]',
    'CMD ["server", "--listen", "0.0.0.0:50051"]',
)
# The console script: the source in /app (PYTHONPATH) is the platform, as the registry image
# installs it editable there.
LAUNCHER = "#!/usr/bin/python3\nimport sys\n\nfrom arena.__main__ import main\n\nsys.exit(main())\n"
# What goes into /app: the package, the SDK (its hashed files), the sample bots, deploy/, the
# protos.
APP_FILES = ("pyproject.toml", "README.md")
APP_TREES = ("arena", "sample_bots", "deploy", "protos", "sdk-js")  # the bot image carries both
_IGNORED = re.compile(r"(^|/)(__pycache__|[^/]*\.egg-info|node_modules)(/|$)|\.py[co]$")

POSTGRES_BASE = BaseRecipe(name="postgres-base", include=(), install=("postgresql-15",))
POSTGRES_BIN = "/usr/lib/postgresql/15/bin"
POSTGRES_DATA = "var/lib/postgresql/data"
POSTGRES_ENTRYPOINT = "deploy/postgres-entrypoint.sh"
POSTGRES_CHANGES = (
    "USER postgres",
    f"ENV PATH={POSTGRES_BIN}:/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 PGDATA=/{POSTGRES_DATA}",
    "EXPOSE 5432",
    'ENTRYPOINT ["/usr/local/bin/postgres-entrypoint"]',
)


@dataclass(frozen=True)
class ServiceImage:
    """One of the service's images: what it is called, and how it is made."""

    repository: str
    hash_inputs: Callable[[Path], dict[str, object]]
    files: Callable[[Path], list[Path]]  # relative to the source tree, hashed by content
    fill: Callable[[Path, Path, Path, Progress], None]  # (root, source, work, say)
    base: BaseRecipe
    changes: tuple[str, ...]
    smoke: tuple[str, ...]
    smoke_user: str
    smoke_entrypoint: tuple[str, ...] | None = None

    def content_hash(self, source: Path = SOURCE) -> str:
        digest = hashlib.sha256()
        header = {
            "format": FORMAT_VERSION,
            "base": self.base.as_dict(),
            "changes": list(self.changes),
            **self.hash_inputs(source),
        }
        digest.update(json.dumps(header, sort_keys=True).encode() + b"\0")
        for rel in self.files(source):
            data = (source / rel).read_bytes()
            digest.update(f"{rel.as_posix()}\0{len(data)}\0".encode())
            digest.update(data)
        return digest.hexdigest()

    def tag(self, source: Path = SOURCE) -> str:
        return f"{self.repository}:{self.content_hash(source)[:12]}"


# --- the platform ----------------------------------------------------------------------


def platform_requirements(source: Path = SOURCE) -> list[str]:
    """pyproject's dependencies (the SDK aside: it is built from sdk/), pinned to the
    versions installed with this platform: the ones its tests ran against."""
    project = tomllib.loads((source / "pyproject.toml").read_text())["project"]
    pinned = []
    for spec in project["dependencies"]:
        found = re.match(r"\s*([A-Za-z0-9_.-]+)(\[[^\]]*\])?", spec)
        if found is None:
            raise SandboxError(f"pyproject.toml: cannot read the dependency {spec!r}")
        name, extras = found.group(1), found.group(2) or ""
        if name == "backalley-sdk":
            continue
        try:
            version = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            raise SandboxError(
                f"{name} is not installed here: install the platform first"
            ) from None
        pinned.append(f"{name}{extras}=={version}")
    return pinned


def _platform_inputs(source: Path) -> dict[str, object]:
    return {
        "requirements": platform_requirements(source),
        "python": PYTHON_VERSION,
        "platforms": list(PLATFORMS),
        "site": SITE_PACKAGES,
        "launcher": LAUNCHER,
    }


def platform_files(source: Path) -> list[Path]:
    found = [Path(name) for name in APP_FILES]
    found += [Path("sdk") / rel for rel in sdk_files(source / "sdk")]
    for tree in APP_TREES:
        for dirpath, dirnames, filenames in os.walk(source / tree):
            dirnames[:] = sorted(d for d in dirnames if not _IGNORED.search(d + "/"))
            for name in filenames:
                rel = (Path(dirpath) / name).relative_to(source)
                if not _IGNORED.search(rel.as_posix()) and (source / rel).is_file():
                    found.append(rel)
    return sorted(found, key=lambda p: p.as_posix())


def _fill_platform(root: Path, source: Path, work: Path, say: Progress) -> None:
    requirements = platform_requirements(source)
    say(f"wheels: {len(requirements)} dependencies and the SDK")
    install_wheels(inside(root, SITE_PACKAGES), source / "sdk", work, requirements, resolve=True)
    say("the source tree in /app")
    for rel in platform_files(source):
        target = inside(root, "app") / rel  # new directories: nothing there to follow
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / rel, target)
        os.chmod(target, 0o755 if os.access(source / rel, os.X_OK) else 0o644)
    if sys.version_info[:2] == (3, 11):  # /app is not the user's to write: compile it now
        app = inside(root, "app")
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", "-s", str(root), "-p", "/", str(app)],
            check=True,
            capture_output=True,
        )
    _make_tree_readable(inside(root, "app"))
    write_inside(root, "usr/local/bin/arena", LAUNCHER, mode=0o755)
    _add_user(root, "arena", ARENA_UID, "/var/lib/arena")
    for data in ("var/lib/arena", "var/lib/arena/home"):
        inside(root, data).mkdir(mode=0o755, exist_ok=True)
        os.chown(inside(root, data), ARENA_UID, ARENA_UID)


def _add_user(root: Path, name: str, uid: int, home: str) -> None:
    passwd = inside(root, "etc/passwd")
    group = inside(root, "etc/group")
    with passwd.open("a") as f:
        f.write(f"{name}:x:{uid}:{uid}::{home}:/usr/sbin/nologin\n")
    with group.open("a") as f:
        f.write(f"{name}:x:{uid}:\n")


def _make_tree_readable(top: Path) -> None:
    for dirpath, _dirnames, _filenames in os.walk(top):
        os.chmod(dirpath, 0o755)
    for dirpath, _dirnames, filenames in os.walk(top):
        for name in filenames:
            path = Path(dirpath) / name
            os.chmod(path, (path.stat().st_mode & 0o777) | 0o444)


PLATFORM = ServiceImage(
    repository="backalley-arena",
    hash_inputs=_platform_inputs,
    files=platform_files,
    fill=_fill_platform,
    base=PLATFORM_BASE,
    changes=PLATFORM_CHANGES,
    smoke=("--version",),
    smoke_user=f"{ARENA_UID}:{ARENA_UID}",
)


# --- PostgreSQL ------------------------------------------------------------------------


def _postgres_inputs(_source: Path) -> dict[str, object]:
    return {"data": POSTGRES_DATA}


def _postgres_files(_source: Path) -> list[Path]:
    return [Path(POSTGRES_ENTRYPOINT)]


def _fill_postgres(root: Path, source: Path, work: Path, say: Progress) -> None:
    say("the entrypoint and the data directory")
    script = (source / POSTGRES_ENTRYPOINT).read_text()
    write_inside(root, "usr/local/bin/postgres-entrypoint", script, mode=0o755)
    uid, gid = _ids(root, "postgres")
    # /run, not /var/run: the latter is an absolute link, out of the root from here.
    for rel, mode in ((POSTGRES_DATA, 0o700), ("run/postgresql", 0o2775)):
        path = inside(root, rel)
        path.mkdir(mode=mode, parents=False, exist_ok=True)
        os.chown(path, uid, gid)
        os.chmod(path, mode)


def _ids(root: Path, user: str) -> tuple[int, int]:
    for line in inside(root, "etc/passwd").read_text().splitlines():
        fields = line.split(":")
        if fields[0] == user and len(fields) > 3:
            return int(fields[2]), int(fields[3])
    raise SandboxError(f"no user {user} in the image's /etc/passwd")


POSTGRES = ServiceImage(
    repository="backalley-postgres",
    hash_inputs=_postgres_inputs,
    files=_postgres_files,
    fill=_fill_postgres,
    base=POSTGRES_BASE,
    changes=POSTGRES_CHANGES,
    smoke=("initdb --version && postgres --version && pg_isready --version",),
    smoke_user="postgres",
    smoke_entrypoint=("sh", "-c"),
)

SERVICE_IMAGES = (PLATFORM, POSTGRES)


def ensure_service_image(
    client: docker.DockerClient,
    image: ServiceImage,
    *,
    mirror: str | None = None,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
    force: bool = False,
    source: Path = SOURCE,
) -> str:
    """Return the image's tag, building it first if the engine lacks it; either way tag it
    ``REPOSITORY:offline`` too. A failed build leaves no tag and no partial cache file."""
    say = progress or (lambda _message: None)
    digest = image.content_hash(source)
    tag = f"{image.repository}:{digest[:12]}"
    if force or not image_present(client, tag):
        cache_dir = cache_dir or arena_home() / "cache"
        with build_lock(cache_dir), temp_dir("arena-image-") as work:
            if force or not image_present(client, tag):
                base = base_tarball(cache_dir, image.base, mirror, say)
                root = extract_root(base, work, say)
                image.fill(root, source, work, say)
                import_root(
                    client, root, work, tag, digest, image.changes, image.smoke,
                    user=image.smoke_user, say=say, entrypoint=image.smoke_entrypoint,
                )  # fmt: skip
                say(f"image {tag}: built")
    else:
        say(f"image {tag}: already present")
    client.images.get(tag).tag(image.repository, LOCAL_TAG)
    return tag
