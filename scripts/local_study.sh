#!/usr/bin/env bash
# The whole loop on a local platform with a simulated crowd: a thin wrapper of `harness demo`
# (launch the WS353 reproduction, serve its pages, a simulated crowd with live screening, sync,
# review, screen, characterize against WS353 and three systems).
#
#   bash scripts/local_study.sh [--platform local|prolific-local|link] [RUN_DIR]
#       (default: local, the local MTurk service; RUN_DIR default local-run, emptied first)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PLATFORM=local
if [ "${1:-}" = "--platform" ]; then PLATFORM="$2"; shift 2; fi
exec "$ROOT/.venv/bin/harness" demo reproduction --platform "$PLATFORM" --out "${1:-local-run}"
