#!/usr/bin/env bash
# The test command: lint and type-check, then the whole test suite (SQLite and PostgreSQL), on
# three workers (pytest-xdist; $HARNESS_TEST_WORKERS to change, 0 for one process): one more
# than the two cores it is made for, since a good part of a test is spent waiting on a server
# it started, on PostgreSQL or on Chromium, and a third worker runs meanwhile.
set -euo pipefail
cd "$(dirname "$0")/.."
# Compiled modules are kept (Python's default; some machines turn it off): every server and
# command the tests start would otherwise compile harness again, and every pytest worker
# rewrite the test modules' assertions again.
unset PYTHONDONTWRITEBYTECODE
bash scripts/postgres.sh
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/python -m pytest -n "${HARNESS_TEST_WORKERS:-3}" "$@"
