# shellcheck shell=sh
# Sourced by the parts of make bench (tests/bench_{nan,graph,config,monitor}.sh,
# `. "$(dirname "$0")/bench_common.sh"` after `set -eu`): what they all do
# before and around their runs. Reads the part's first argument (BUILD) and
# TIMEOUT (900), TABLE, VERDICTS, KEEP from the environment.

BUILD=${1:-build}
TOOLS=$BUILD/tools
MSPROBE=$BUILD/msprobe
TIMEOUT=${TIMEOUT:-900}

# bench_need WHO FILE...: the part is skipped (exit 0, one line) when a
# program it runs is not built
bench_need() {
    who=$1
    shift
    for t in "$@"; do
        if [ ! -x "$t" ]; then
            echo "$who: SKIPPED: $t is missing (make all tools)"
            exit 0
        fi
    done
}

# bench_cleanup_on_exit WHO [PATH]: $scratch is removed when the part ends
# (kept, and said so, with KEEP=1), PATH always; an interrupt ends it too
bench_cleanup_on_exit() {
    bench_who=$1
    bench_also=${2:-}
    trap bench_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}
bench_cleanup() {
    if [ -n "$bench_also" ]; then rm -rf "$bench_also"; fi
    if [ "${KEEP:-0}" = 1 ]; then echo "$bench_who: kept $scratch"; else rm -rf "$scratch"; fi
}

# bench_machine WHO: the cores and the load, for reading the times
bench_machine() {
    echo "$1: $(nproc 2>/dev/null || echo '?') cores, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
}

# field NAME LINE: the value of NAME=... in a runstat line
field() { printf '%s\n' "$2" | sed -n "s/.*$1=\([^ ]*\).*/\1/p"; }

# out_row CASE ROWS RUNSTAT-LINE: a row of bench.sh's table (TABLE), or
# printed when the part runs alone
out_row() {
    line=$(printf '%-34s %9s %9s %9s %9s %8s %9s' "$1" "$2" "$(field median_s "$3")" "$(field min_s "$3")" \
        "$(field max_s "$3")" "$(field peak_rss_mb "$3")" "$(field cpu_s "$3")")
    if [ -n "${TABLE:-}" ]; then printf '%s\n' "$line" >> "$TABLE"; else printf '%s\n' "$line"; fi
}

# out_verdict LINE: appended to VERDICTS, or printed
out_verdict() {
    if [ -n "${VERDICTS:-}" ]; then printf '%s\n' "$1" >> "$VERDICTS"; else printf '%s\n' "$1"; fi
}

# timed CMD...: stopped after TIMEOUT seconds (when timeout(1) exists), so
# that a hung run fails its case instead of the bench
timed() { if command -v timeout >/dev/null 2>&1; then timeout "$TIMEOUT" "$@"; else "$@"; fi; }
