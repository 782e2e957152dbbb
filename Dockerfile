# The platform image: the `arena` command, for the service (compose.yaml: `arena server`,
# `arena worker`) and everything else it does (`arena status`, `arena user add`,
# `arena image build`, ...). From the root of the repository:
#
#   docker build -t backalley-arena .
#   docker run --rm backalley-arena --help
#
# docs/operating.md ("Running the service") says how to run it. Debian bookworm, as the bot
# image and Dockerfile.bot: a rebuild does not move the platform to another release.
FROM python:3.11-slim-bookworm

# debootstrap, for `arena image build`: it makes the bots' image offline and imports it into
# the engine that DOCKER_HOST or the mounted socket reaches (arena/images/bot_images.py). gpgv and
# Debian's archive keyring let it check what it fetches; npm fetches the bot image's locked
# Node packages. It works in an ordinary (not
# privileged) container, but only as root: compose.yaml's worker runs as root.
RUN apt-get update \
    && apt-get install -y --no-install-recommends debootstrap gpgv debian-archive-keyring npm \
    && rm -rf /var/lib/apt/lists/*

# The unprivileged user the image runs as unless told otherwise (uid and gid 10001: nobody's
# on a usual host). /var/lib/arena is its data directory; ARENA_HOME (caches: bot code
# unpacked from the database, the bot image's debootstrapped base, the server's uploads) is
# in it. compose.yaml mounts the host's /var/lib/arena here and runs the worker and the server
# as root; it says why.
RUN groupadd --system --gid 10001 arena \
    && useradd --system --uid 10001 --gid arena --home-dir /var/lib/arena \
        --shell /usr/sbin/nologin arena \
    && install -d -o arena -g arena /var/lib/arena /var/lib/arena/home

WORKDIR /app
COPY pyproject.toml README.md ./
COPY sdk ./sdk
COPY arena ./arena
COPY sample_bots ./sample_bots
COPY protos ./protos
COPY sdk-js ./sdk-js
# The SDK, then the platform installed in place (editable) from /app: the bot image's tag is
# a hash of the SDK's files, which `arena image build` and the docker sandbox read from the
# sdk/ beside the arena package (default_sdk_dir in arena/images/bot_images.py); installed into
# site-packages, arena would find no sdk/ there. Compiled now: /app is not the user's to write.
RUN pip install --no-cache-dir ./sdk -e . \
    && python -m compileall -q arena

# The sample bots: `random` is every submission's validation opponent; `arena play` uses them.
ENV ARENA_HOME=/var/lib/arena/home \
    ARENA_SAMPLE_BOTS=/app/sample_bots \
    PYTHONUNBUFFERED=1

USER arena
EXPOSE 50051
ENTRYPOINT ["arena"]
CMD ["server", "--listen", "0.0.0.0:50051"]
