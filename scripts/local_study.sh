#!/usr/bin/env bash
# The whole loop on the local platform, with a simulated crowd: launch the WS353 reproduction on
# the local MTurk-compatible service, serve its task pages, let simulated workers (some careless
# or adversarial) do the HITs while screening acts live, sync, review, screen, and characterize
# the result against the original WS353 and three systems' predictions.
#
#   bash scripts/local_study.sh [RUN_DIR]     (default: local-run; emptied first)
#
# Ports: $HARNESS_MTURK_PORT (default 8765) and $HARNESS_PAGES_PORT (default 5000).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RUN="${1:-local-run}"
MTURK_PORT="${HARNESS_MTURK_PORT:-8765}"
PAGES_PORT="${HARNESS_PAGES_PORT:-5000}"
SHARED="$(cd "$ROOT/.." && pwd)/shared/data"
H="$ROOT/.venv/bin/harness"
STUDY=ws353-reproduction
SPEC="$ROOT/task_specs/ws353_reproduction.yaml"

rm -rf "$RUN" && mkdir -p "$RUN" && cd "$RUN"
export HARNESS_DATABASE_URL="sqlite:///$PWD/harness.db"
export HARNESS_WS353_DIR="${HARNESS_WS353_DIR:-$SHARED/ws353}"

step() { printf '\n== %s\n' "$*"; }
wait_for() {  # until something answers HTTP at $1 (any status), at most 10 s
    "$ROOT/.venv/bin/python" - "$1" <<'PY' || { echo "local_study: nothing answers at $1 (see $PWD/*.log)" >&2; return 1; }
import sys, time, urllib.error, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen(sys.argv[1], timeout=1)
        sys.exit(0)
    except urllib.error.HTTPError:
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)
PY
}

step "store and services"
"$H" db upgrade
"$H" mturk-local --port "$MTURK_PORT" --db mturk-local.sqlite >mturk-local.log 2>&1 &
MTURK_PID=$!
"$H" serve --port "$PAGES_PORT" >serve.log 2>&1 &
SERVE_PID=$!
trap 'kill $MTURK_PID $SERVE_PID 2>/dev/null || true' EXIT
wait_for "http://127.0.0.1:$MTURK_PORT/"
wait_for "http://127.0.0.1:$PAGES_PORT/"

step "launch $STUDY on the local platform"
"$H" launch "$SPEC" --target local --endpoint-url "http://127.0.0.1:$MTURK_PORT" \
    --public-url "http://127.0.0.1:$PAGES_PORT"

step "a simulated crowd does the HITs (the task server screens each submission live)"
"$H" simulate-workers "$STUDY" --size 30 --seed 1 \
    --mix careful=0.7,sloppy=0.1,spammer=0.1,backwards=0.1

step "sync, review, status"
"$H" sync "$STUDY"
"$H" review "$STUDY" | tail -n 1
"$H" status "$STUDY"

step "screening under the spec's policy"
"$H" screen "$STUDY" | tail -n 1

step "characterize against WS353 (report in $PWD/report)"
"$H" characterize --new "$STUDY" --original ws353 --system "$SHARED/ws353-systems" \
    --screen "$SPEC" --out report --quiet
