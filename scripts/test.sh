#!/usr/bin/env bash
# The test command: lint and type-check, then the whole test suite (SQLite and PostgreSQL), on
# two workers (pytest-xdist; $HARNESS_TEST_WORKERS to change, 0 for one process).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/postgres.sh
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/python -m pytest -n "${HARNESS_TEST_WORKERS:-2}" "$@"
