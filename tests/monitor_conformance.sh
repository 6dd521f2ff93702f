#!/bin/sh
# Conformance of the monitor commands (anomaly, monitor2tb, monitor2db,
# data2db) against msprobe's own runs in ../shared/corpus: see
# tests/monitor_conformance.py. Skipped, and said so, without the corpus.
set -u
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${CORPUS:-$top/../shared/corpus}
if [ ! -f "$CORPUS/monitor/commands.txt" ] || [ ! -f "$CORPUS/nan4/expected/data2db/commands.txt" ]; then
    echo "SKIPPED: monitor conformance test (no corpus at $CORPUS)"
    exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIPPED: monitor conformance test (python3 not installed)"
    exit 0
fi
exec python3 "$top/tests/monitor_conformance.py" "$top/$BUILD/msprobe" "$CORPUS"
