# shellcheck shell=sh disable=SC2034
# Sourced by the compare conformance tests (tests/conformance.sh,
# tests/conformance_newest.sh; after `set -u`, with CONFORMANCE_TEST naming
# the test): the build, the corpus and ../shared/tools/conformance.py (the
# test skipped, and said so, without them or python3), RTOL, a scratch
# directory, and the fail and runs counters.
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
BIN="$top/$BUILD/msprobe"
CORPUS=${CORPUS:-$top/../shared/corpus}
TOOL=${CONFORMANCE_TOOL:-$top/../shared/tools/conformance.py}
RTOL=${RTOL:-1e-9}
if [ ! -d "$CORPUS" ] || [ ! -f "$TOOL" ]; then
    echo "SKIPPED: $CONFORMANCE_TEST (no corpus at $CORPUS)"
    exit 0
fi
PY=$(command -v python3 || true)
if [ -z "$PY" ]; then
    echo "SKIPPED: $CONFORMANCE_TEST (python3 not installed)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 runs=0
