#!/usr/bin/env bash
# The test command: lint and check the format, then type-check beside the test suite (SQLite
# and PostgreSQL), on three workers (pytest-xdist; $HARNESS_TEST_WORKERS to change, 0
# for one process): one more than the two cores it is made for, since a good part of a test is
# spent waiting on a server it started, on PostgreSQL or on Chromium, and a third worker runs
# meanwhile. A developer's run leaves out the tests marked slow (-m "not slow": each takes more
# than a few seconds); `bash scripts/test.sh --all` runs every test, and so does CI (CI=true,
# set by .ci/run). Other arguments go to pytest (a -m of yours replaces "not slow").
set -euo pipefail
marks=(-m "not slow")
if [ "${1:-}" = "--all" ]; then
    shift
    marks=()
fi
if [ "${CI:-}" = "true" ]; then
    marks=()
fi
cd "$(dirname "$0")/.."
# Compiled modules are kept (Python's default; some machines turn it off): every server and
# command the tests start would otherwise compile harness again, and every pytest worker
# rewrite the test modules' assertions again.
unset PYTHONDONTWRITEBYTECODE
# the developer tools and Chromium, which scripts/setup.sh leaves out for a user
if [ ! -x .venv/bin/pytest ] || [ ! -x .venv/bin/ruff ] || ! command -v chromedriver >/dev/null 2>&1; then
    bash scripts/setup.sh --dev
fi
bash scripts/postgres.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
# mypy checks the types beside the tests (about 17 s of one core, which the tests, often
# waiting on their servers, leave idle); its report follows theirs, and either failing fails
types=$(mktemp)
trap 'rm -f "$types"' EXIT
.venv/bin/mypy >"$types" 2>&1 &
mypy_pid=$!
status=0
.venv/bin/python -m pytest -n "${HARNESS_TEST_WORKERS:-3}" "${marks[@]}" "$@" || status=$?
wait "$mypy_pid" || status=1
cat "$types"
exit "$status"
