#!/usr/bin/env bash
# The test suite again with every process's clock 400 days ahead (tests/days_ahead): a test
# that takes a calendar date as "now" fails here even while the date it took is still to
# come. Browser tests are left out: Chromium's clock cannot be moved with Python's.
set -euo pipefail
cd "$(dirname "$0")/.."
unset PYTHONDONTWRITEBYTECODE
bash scripts/postgres.sh
export HARNESS_TEST_DAYS_AHEAD="${HARNESS_TEST_DAYS_AHEAD:-400}"
export PYTHONPATH="$PWD/tests/days_ahead${PYTHONPATH:+:$PYTHONPATH}"
.venv/bin/python -c 'from harness.clock import utcnow; print(f"tests run at {utcnow():%Y-%m-%d %H:%M} UTC")'
# time-machine is imported before pytest starts, too early for pytest to rewrite its plugin.
exec .venv/bin/python -m pytest -W ignore::pytest.PytestAssertRewriteWarning -n "${HARNESS_TEST_WORKERS:-3}" -m "not browser" "$@"
