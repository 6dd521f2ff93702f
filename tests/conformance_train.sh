#!/bin/sh
# Conformance of train_compare with Megatron-LM's functional-test checker:
# every pair and mode of ../shared/corpus/train/*/expected/, and every golden
# file its reader wrote there reproduced by --save-golden
# (tests/conformance_train.py says what is checked). Skipped, and said so,
# when the corpus or python3 is not there.
set -u
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${CORPUS:-$top/../shared/corpus}
if [ ! -d "$CORPUS/train" ]; then
    echo "SKIPPED: train_compare conformance (no corpus at $CORPUS/train)"
    exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIPPED: train_compare conformance (python3 not installed)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$top/tests/conformance_train.py" "$CORPUS/train" "$top/$BUILD/msprobe" "$tmp"
