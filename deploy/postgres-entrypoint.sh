#!/bin/sh
# The offline PostgreSQL image's entrypoint (arena image build --platform): the part of the
# registry image's contract that compose.yaml uses. On the first start (an empty $PGDATA) it
# makes the cluster: superuser POSTGRES_USER with POSTGRES_PASSWORD (required), database
# POSTGRES_DB, password logins (scram-sha-256) from anywhere the server listens. Then it
# runs the server in its place (exec: it gets the engine's signals), on PGPORT (default
# 5432) and the addresses in POSTGRES_LISTEN_ADDRESSES (default all: compose publishes or
# confines it; with network_mode: host, say 127.0.0.1).
set -eu

PGDATA=${PGDATA:-/var/lib/postgresql/data}
POSTGRES_USER=${POSTGRES_USER:-postgres}
POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}
export PGDATA

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        echo "error: POSTGRES_PASSWORD is not set (the superuser's password, kept from the first start)" >&2
        exit 2
    fi
    # Names go into SQL unquoted below: plain identifiers only.
    for name in "$POSTGRES_USER" "$POSTGRES_DB"; do
        case "$name" in
            ''|[!a-z_]*|*[!a-z0-9_]*)
                echo "error: not a plain lower-case name for PostgreSQL: '$name'" >&2
                exit 2
                ;;
        esac
    done
    pwfile=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
    initdb --pgdata="$PGDATA" --username="$POSTGRES_USER" --pwfile="$pwfile" \
        --encoding=UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    if [ "$POSTGRES_DB" != postgres ]; then
        # Single-user mode: no server listens while the database is made.
        echo "CREATE DATABASE $POSTGRES_DB" | postgres --single -D "$PGDATA" postgres >/dev/null
    fi
    echo "postgres-entrypoint: initialised $PGDATA (user $POSTGRES_USER, database $POSTGRES_DB)" >&2
fi

exec postgres -D "$PGDATA" -c "listen_addresses=${POSTGRES_LISTEN_ADDRESSES:-*}" "$@"
