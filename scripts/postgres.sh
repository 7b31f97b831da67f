#!/usr/bin/env bash
# Make sure PostgreSQL answers at 127.0.0.1:5432 with trust auth and a database named `test`
# (the storage tests run there as well as on SQLite). Starts the local cluster if it is down.
set -euo pipefail

if ! command -v pg_isready >/dev/null 2>&1; then
    echo "postgres: PostgreSQL is not installed (run scripts/setup.sh)" >&2
    exit 1
fi
if ! pg_isready -q -h 127.0.0.1 -p 5432; then
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    if [ -z "$version" ]; then
        echo "postgres: no cluster under /etc/postgresql" >&2
        exit 1
    fi
    hba=/etc/postgresql/$version/main/pg_hba.conf
    if ! grep -qE '^host\s+all\s+all\s+127\.0\.0\.1/32\s+trust' "$hba"; then
        sed -i '1i host all all 127.0.0.1/32 trust' "$hba"
    fi
    echo "postgres: starting cluster $version/main"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start
    for _ in $(seq 1 30); do
        pg_isready -q -h 127.0.0.1 -p 5432 && break
        sleep 1
    done
fi
pg_isready -q -h 127.0.0.1 -p 5432 || { echo "postgres: not answering at 127.0.0.1:5432" >&2; exit 1; }
if ! psql -h 127.0.0.1 -U postgres -tAc "select 1 from pg_database where datname='test'" | grep -q 1; then
    psql -h 127.0.0.1 -U postgres -qc "create database test"
fi
