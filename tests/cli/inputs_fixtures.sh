# Sourced by tests/cli/run.sh: the dump trees and option files of
# tests/cli/inputs_cases.txt, made in $F/in from testdata/features (never
# checked in). Needs $F, $feat_t and $feat_b of run.sh.
#
# The newest msprobe writes stepN/proc{PID}/ for a run that is not
# distributed (the PIDs of two runs differ); msprobe 8.x wrote stepN/rank/;
# a distributed run stepN/rank0/, rank1/, ...
I=$F/in
in_rank() { mkdir -p "$I/$1" && cp "$2"/*.json "$I/$1/"; }   # in_rank DIR SOURCE
in_rank proc_t/step1/proc31337 "$feat_t"
in_rank proc_b/step0/proc4242 "$feat_b"
in_rank bare_t/step0/rank "$feat_t"
in_rank bare_b/step0/rank "$feat_b"
in_rank one_b/step0/rank0 "$feat_b"
for s in step0 step1; do
    in_rank proc_root_t/$s/proc11 "$feat_t"
    in_rank proc_root_b/$s/proc22 "$feat_b"
done
in_rank two_procs/proc1 "$feat_t"
in_rank two_procs/proc2 "$feat_t"
in_rank proc_and_rank/proc1 "$feat_t"
in_rank proc_and_rank/rank0 "$feat_t"
# rank0 compares, rank1's dump is broken: the run fails after rank0's
# result was written (-j 1 runs them in order)
in_rank half_t/rank0 "$feat_t"
mkdir -p "$I/half_t/rank1" && printf '{"task": "statistics", "data": {"a": [1,]}}' > "$I/half_t/rank1/dump.json"

# option files: broken ones, and what --summary-json must not replace
printf 'Functional.a.0.forward.input.0: [unclosed\n' > "$I/bad.yaml"
printf -- '- ms_api: Mint.add\n' > "$I/bad_api.yaml"
printf 'TopLayer: [1, 2]\n' > "$I/bad_layer.yaml"
mkfifo "$I/fifo.json"
mkdir -p "$I/dir.json/summary.json"  # a directory where -o DIR/ puts summary.json
ln -s "$I/nowhere.json" "$I/link.json"
