# shellcheck shell=sh disable=SC2034
# Sourced by the browser tests (tests/browser_{graph,train}.sh, after
# `set -u`, with BROWSER_TEST naming the test and BROWSER_DRIVER its python
# driver): the build, the corpus, Chromium found or the test skipped, a
# scratch directory, and drive PAGE ARGS..., which runs the driver on one
# page and prints its lines as ok/FAIL (fail=1 on a failure).
BUILD=${1:-build}
SHOT=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
BIN="$top/$BUILD/msprobe"
CORPUS=${CORPUS:-$top/../shared/corpus}
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ]; then
    echo "SKIPPED: $BROWSER_TEST (chromium not installed; deps.sh installs it)"
    exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIPPED: $BROWSER_TEST (python3 not installed)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
drive() {
    if timeout 300 python3 "$top/tests/$BROWSER_DRIVER" "$CHROMIUM" "$@" > "$tmp/log" 2>&1; then
        sed 's/^/ok   /;2,$s/^ok   /     /' "$tmp/log"
    else
        sed 's/^/FAIL /;2,$s/^FAIL /     /' "$tmp/log"
        fail=1
    fi
}
