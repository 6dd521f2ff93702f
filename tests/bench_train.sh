#!/bin/sh
# make bench, train part: train_compare on generated runs, and Megatron-LM's
# own checker beside it on the corpus' pairs (no data is checked in).
#
#   tests/bench_train.sh BUILD    BUILD holds msprobe and tools/{gen_train,runstat}
#
# (tb)  a TensorBoard directory of TRAIN_TAGS (1000) tags x TRAIN_STEPS
#       (20000) steps in TRAIN_FILES (4) event files, over 1 GB, compared
#       with itself (both sides read: over 2 GB), -j 1 and -j JOBS;
# (log) a Megatron-LM training log of TRAIN_LOG_MB (500) MB, the same;
# each page-cached, TRAIN_RUNS (3) timed runs after a warm-up: MB/s at the
# median wall time and per CPU second (user + system: what the machine's
# other load does not skew), peak memory (targets: >= 500 MB/s on one core,
# < 300 MB).
# (megatron) every pair of ../shared/corpus/train -- the golden files of
#       each case (both modes) and the toy TensorBoard runs -- through
#       Megatron's checker (tests/tools/megatron_check.py: its functions
#       in one process, the interpreter's start-up not counted) and through
#       ours (one process per pair, start-up counted): the ratio of the
#       wall times (target >= 100 on the TensorBoard pairs, where its reader
#       is TensorBoard's EventAccumulator). Needs, as the corpus'
#       commands.txt sets it up: MEGATRON_SRC (a tree holding
#       tests/functional_tests/python_test_utils), TENSORBOARD_SRC
#       (TensorBoard's source with its protos compiled by protoc), PYDEPS
#       (numpy, protobuf, yaml, ... for that interpreter) and PY (a Python
#       with pydantic 2); skipped, and said so, without them.
#
# Environment: TMPDIR, KEEP=1, JOBS, TRAIN_TAGS, TRAIN_STEPS, TRAIN_FILES,
# TRAIN_LOG_MB, TRAIN_RUNS, TRAIN_PARTS ("tb log megatron"), CORPUS.
set -eu
# shellcheck source=tests/bench_common.sh
. "$(dirname "$0")/bench_common.sh"
TAGS=${TRAIN_TAGS:-1000}
STEPS=${TRAIN_STEPS:-20000}
FILES=${TRAIN_FILES:-4}
LOG_MB=${TRAIN_LOG_MB:-500}
RUNS=${TRAIN_RUNS:-3}
PARTS=${TRAIN_PARTS:-tb log megatron}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 1)}
top=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${CORPUS:-$top/../shared/corpus}

bench_need bench_train "$TOOLS/gen_train" "$TOOLS/runstat" "$MSPROBE"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/msprobe-bench-train.XXXXXX")
bench_cleanup_on_exit bench_train
bench_machine bench_train

# timeit NAME BYTES ARGS...: RUNS runs of train_compare after a warm-up;
# one table line and the figures in NAME_mbs, NAME_cpu_mbs, NAME_mem
table=$scratch/table
: > "$table"
timeit() {
    name=$1 bytes=$2
    shift 2
    line=$("$TOOLS/runstat" -q -n "$RUNS" -w 1 -- "$MSPROBE" train_compare -q "$@") || true
    wall=$(field median_s "$line")
    cpu=$(field cpu_s "$line")
    mem=$(field peak_rss_mb "$line")
    awk -v n="$name" -v b="$bytes" -v w="$wall" -v c="$cpu" -v m="$mem" 'BEGIN {
        printf "%-34s %9.0f %9.0f %9.2f %9.2f %9.0f\n", n, b / 1e6 / w, b / 1e6 / c, w, c, m }' >> "$table"
    eval "${name%% *}_mbs=\$(awk -v b=$bytes -v w=$wall 'BEGIN { printf \"%.0f\", b / 1e6 / w }')"
    eval "${name%% *}_cpu=\$(awk -v b=$bytes -v c=$cpu 'BEGIN { printf \"%.0f\", b / 1e6 / c }')"
    eval "${name%% *}_mem=\$mem"
}
checks="--check lm?loss:exact,rtol=0.05 --check grad-norm:rtol=0.05 --check num-zeros:exact,rtol=0.2 --check iteration-time:rtol=0.05"

case " $PARTS " in *" tb "*)
    echo "bench_train: generating $TAGS tags x $STEPS steps in $FILES event files"
    "$TOOLS/gen_train" --tb "$scratch/tb" --tags "$TAGS" --steps "$STEPS" --files "$FILES" > "$scratch/gen_tb"
    cat "$scratch/gen_tb"
    tb_bytes=$(sed -n 's/^gen_train: [0-9]* files, \([0-9]*\) bytes/\1/p' "$scratch/gen_tb")
    cat "$scratch"/tb/* > /dev/null
    # shellcheck disable=SC2086
    timeit "tb_j1 (both sides, -j 1)" $((tb_bytes * 2)) -n "$scratch/tb" -b "$scratch/tb" $checks -j 1
    # shellcheck disable=SC2086
    timeit "tb_jn (both sides, -j $JOBS)" $((tb_bytes * 2)) -n "$scratch/tb" -b "$scratch/tb" $checks -j "$JOBS"
    rm -rf "$scratch/tb" ;;
esac
case " $PARTS " in *" log "*)
    echo "bench_train: generating a $LOG_MB MB Megatron-LM log"
    "$TOOLS/gen_train" --log "$scratch/train.log" --mb "$LOG_MB" > "$scratch/gen_log"
    log_bytes=$(sed -n 's/^gen_train: [0-9]* files, \([0-9]*\) bytes/\1/p' "$scratch/gen_log")
    cat "$scratch/train.log" > /dev/null
    # shellcheck disable=SC2086
    timeit "log (both sides)" $((log_bytes * 2)) -n "$scratch/train.log" -b "$scratch/train.log" $checks
    rm -f "$scratch/train.log" ;;
esac
if [ -s "$table" ]; then
    echo
    printf '%-34s %9s %9s %9s %9s %9s\n' "train_compare" "MB/s" "MB/cpu-s" median_s cpu_s peak_MB
    cat "$table"
    echo
fi
case " $PARTS " in *" tb "*)
    awk -v m="$tb_j1_mbs" -v c="$tb_j1_cpu" -v k="$tb_j1_mem" 'BEGIN {
        printf "event files, one core: %d MB/s (%d MB per CPU second), %d MB   (target >= 500 MB/s, < 300 MB)   %s\n",
            m, c, k, (c >= 500 && k < 300) ? "ok" : "MISSED" }' ;;
esac
case " $PARTS " in *" log "*)
    awk -v m="$log_mbs" -v c="$log_cpu" -v k="$log_mem" 'BEGIN {
        printf "training log: %d MB/s (%d MB per CPU second), %d MB   (target >= 500 MB/s, < 300 MB)   %s\n",
            m, c, k, (c >= 500 && k < 300) ? "ok" : "MISSED" }' ;;
esac

case " $PARTS " in *" megatron "*) ;; *) exit 0 ;; esac
T=$CORPUS/train
if [ ! -d "$T/megatron/cases" ]; then
    echo "bench_train: Megatron's checker SKIPPED: no corpus at $T"
    exit 0
fi
if [ -z "${MEGATRON_SRC:-}" ] || [ -z "${TENSORBOARD_SRC:-}" ] || [ -z "${PY:-}" ]; then
    echo "bench_train: Megatron's checker SKIPPED: set MEGATRON_SRC, TENSORBOARD_SRC, PYDEPS and PY (see $T/commands.txt)"
    exit 0
fi
# the pairs: every ordered pair of a case's golden files in both modes, and
# every ordered pair of the toy runs' directories (Megatron's tags and
# MindSpore Transformers' 108 tags: the checker stops at the missing "lm
# loss" there, after reading both)
pairs=$scratch/pairs
: > "$pairs"
for c in "$T"/megatron/cases/*/; do
    for a in "$c"golden_values_*.json; do
        for b in "$c"golden_values_*.json; do
            [ "$a" = "$b" ] && continue
            for m in approximate deterministic; do
                printf '%s\t%s\t%s\t%s\n' "$m" "$a" "$b" "${c}model_config.yaml" >> "$pairs"
            done
        done
    done
done
json_pairs=$(wc -l < "$pairs")
for w in megatron mindformers; do
    for a in "$T"/tensorboard/runs/*/$w; do
        for b in "$T"/tensorboard/runs/*/$w; do
            [ "$a" = "$b" ] && continue
            printf '%s\t%s\t%s\t%s\t100\n' approximate "$a" "$b" "$T/tensorboard/expected/configs/default_model_config.yaml" \
                >> "$pairs"
        done
    done
done
total=$(wc -l < "$pairs")
tb_pairs=$((total - json_pairs))
export PYTHONPATH="${PYDEPS:+$PYDEPS:}$TENSORBOARD_SRC:$MEGATRON_SRC"
echo "bench_train: Megatron's checker on $total corpus pairs ($json_pairs of golden files, $tb_pairs of TensorBoard runs)"
"$PY" "$top/tests/tools/megatron_check.py" "$pairs" > "$scratch/meg" 2> /dev/null || true
meg_json=$(head -n "$json_pairs" "$scratch/meg" | awk '{ s += $1 } END { printf "%.3f", s }')
meg_tb=$(sed -n "$((json_pairs + 1)),${total}p" "$scratch/meg" | awk '$2 != "pairs," { s += $1 } END { printf "%.3f", s }')
# as a CI job runs it: one interpreter per pair (start-up and imports
# counted), on the first 10 TensorBoard pairs
sed -n "$((json_pairs + 1)),$((json_pairs + 10))p" "$pairs" > "$scratch/ci_pairs"
s0=$(date +%s.%N)
while IFS= read -r line; do
    printf '%s\n' "$line" > "$scratch/one"
    "$PY" "$top/tests/tools/megatron_check.py" "$scratch/one" > /dev/null 2>&1 || true
done < "$scratch/ci_pairs"
meg_ci=$(awk -v s="$s0" -v e="$(date +%s.%N)" 'BEGIN { printf "%.3f", e - s }')
# ours: one process per pair, start-up included
ours() {   # ours FILE: seconds for every pair of FILE
    s=$(date +%s.%N)
    while IFS="$(printf '\t')" read -r m a b c it; do
        if [ -d "$a" ]; then
            "$MSPROBE" train_compare -q -n "$a" -b "$b" --model-config "$c" --mode "$m" --train-iters "${it:-100}" \
                --tb-file-index 0 > /dev/null 2>&1 || true
        else
            "$MSPROBE" train_compare -q -n "$a" -b "$b" --model-config "$c" --mode "$m" > /dev/null 2>&1 || true
        fi
    done < "$1"
    awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "%.3f", e - s }'
}
head -n "$json_pairs" "$pairs" > "$scratch/json_pairs"
sed -n "$((json_pairs + 1)),${total}p" "$pairs" > "$scratch/tb_pairs"
our_json=$(ours "$scratch/json_pairs")
our_tb=$(ours "$scratch/tb_pairs")
our_ci=$(ours "$scratch/ci_pairs")
echo
awk -v mj="$meg_json" -v mt="$meg_tb" -v mc="$meg_ci" -v oj="$our_json" -v ot="$our_tb" -v oc="$our_ci" \
    -v nj="$json_pairs" -v nt="$tb_pairs" 'BEGIN {
    printf "%-44s %12s %10s %8s\n", "corpus pairs (ours: a process per pair)", "Megatron_s", "ours_s", "ratio"
    printf "%-44s %12.3f %10.3f %8.1f\n", "golden files, " nj " pairs (its functions)", mj, oj, mj / oj
    printf "%-44s %12.3f %10.3f %8.1f\n", "TensorBoard runs, " nt " pairs (its functions)", mt, ot, mt / ot
    printf "%-44s %12.3f %10.3f %8.1f\n", "TensorBoard runs, 10 pairs (its process)", mc, oc, mc / oc
    printf "TensorBoard pairs as a CI job runs them: %.0f times the speed of Megatron-LM%ss checker   (target >= 100)   %s\n",
        mc / oc, "\047", (mc / oc >= 100) ? "ok" : "MISSED"
    printf "TensorBoard pairs, its functions alone: %.0f times   golden files: %.1f times\n", mt / ot, mj / oj
}'
