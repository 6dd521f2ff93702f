#!/bin/sh
# Conformance of config_check (packs, static pack, checkpoint compare) with
# msprobe 8.1.0's own outputs in ../shared/corpus/config_check and
# ../shared/corpus/ckpt (tests/conformance_config.py says what is checked).
# Skipped, and said so, when the corpus or python3 is not there.
set -u
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${CORPUS:-$top/../shared/corpus}
if [ ! -d "$CORPUS/config_check" ] || [ ! -d "$CORPUS/ckpt" ]; then
    echo "SKIPPED: config_check conformance (no corpus at $CORPUS)"
    exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIPPED: config_check conformance (python3 not installed)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$top/tests/conformance_config.py" "$CORPUS" "$top/$BUILD/msprobe" "$tmp"
