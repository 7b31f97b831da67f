#!/usr/bin/env bash
# The test command: lint, then the whole test suite (SQLite and PostgreSQL, browser tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/postgres.sh
.venv/bin/ruff check .
.venv/bin/python -m pytest "$@"
