#!/usr/bin/env bash
# Set up harness on a fresh Debian machine: PostgreSQL, a venv with harness. With --dev (what
# scripts/test.sh runs when its tools are missing) also Chromium and its driver, and the
# developer tools (pytest, ruff, mypy, selenium, ...). Safe to run again; it only installs what
# is missing. Prints a short summary; pip's full output goes to .venv/setup.log.
set -euo pipefail
cd "$(dirname "$0")/.."

dev=0
if [ "${1:-}" = "--dev" ]; then dev=1; fi
# apt waits this long for another process (an unattended upgrade, another set-up) to let go of
# its lock, instead of failing at once
APT_WAIT=${APT_WAIT:-600}

need_apt=()
command -v pg_ctlcluster >/dev/null 2>&1 || need_apt+=(postgresql)
if [ "$dev" = 1 ]; then
    command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
    command -v chromedriver >/dev/null 2>&1 || need_apt+=(chromium-driver)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "setup: installing Debian packages: ${need_apt[*]} (waiting up to ${APT_WAIT} s for apt's lock)"
    apt_options=(-o "DPkg::Lock::Timeout=$APT_WAIT")
    apt-get "${apt_options[@]}" update -qq
    DEBIAN_FRONTEND=noninteractive apt-get "${apt_options[@]}" install -y -qq "${need_apt[@]}" >/dev/null
fi

bash scripts/postgres.sh

PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv with $($PYTHON --version)"
    "$PYTHON" -m venv .venv
fi
target="." what="harness"
if [ "$dev" = 1 ]; then target=".[dev]" what="harness and its developer tools"; fi
log=.venv/setup.log
echo "setup: installing $what into .venv (pip's output: $log)"
if ! { .venv/bin/python -m pip install --upgrade pip && .venv/bin/python -m pip install -e "$target"; } >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "setup: pip failed (above: the end of $log)" >&2
    exit 1
fi
.venv/bin/python -c "import harness" && echo "setup: harness $(.venv/bin/harness --version | awk '{print $3}') installed in .venv"
