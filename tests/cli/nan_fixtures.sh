# Sourced by tests/cli/run.sh: the dumps of tests/cli/nan_cases.txt (nan_analyze),
# made in $F/nan (never checked in). Needs $F, $top and $BUILD of run.sh.
#
# gen: 16 ranks of 300 entries (tests/tools/gen_nan): rank 8 makes inf at
# Functional.gelu.24.forward, the collectives carry it to half the ranks.
# shellcheck disable=SC2154 # $top and $BUILD come from tests/cli/run.sh
N=$F/nan
mkdir -p "$N"
"$top/$BUILD/tools/gen_nan" --out "$N/gen" --ranks 16 --entries 300 > "$N/gen.out"
# clean: two ranks, an all_reduce, nothing anomalous
nan_t='{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 2.0, "Min": 1.0, "Mean": 1.5, "Norm": 2.236, "requires_grad": false}'
nan_dump() {   # nan_dump DIR DATA-MEMBERS: DIR/dump.json, construct.json, stack.json
    mkdir -p "$1"
    printf '{"task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": null, "data": {%s}}' "$2" > "$1/dump.json"
    printf '{}' > "$1/construct.json"
    printf '{}' > "$1/stack.json"
}
for r in 0 1; do
    nan_dump "$N/clean/rank$r" "\"Torch.add.0.forward\": {\"input_args\": [$nan_t], \"input_kwargs\": {}, \"output\": [$nan_t]}, \"Distributed.all_reduce.0.forward\": {\"input_args\": [$nan_t], \"input_kwargs\": {}, \"output\": [$nan_t]}"
done
# a dump root: step0 with the NaN, step1 clean
mkdir -p "$N/root"
cp -r "$N/gen/step0" "$N/root/step0"
cp -r "$N/clean" "$N/root/step1"
# the reported rank without construct.json and stack.json; a stray entry
cp -r "$N/gen/step0" "$N/noside"
rm "$N/noside/rank8/construct.json" "$N/noside/rank8/stack.json"
mkdir -p "$N/noside/rank_others" && echo x > "$N/noside/notes.txt"
# rank 15 missing: the collectives of ranks 8-14 name it
cp -r "$N/gen/step0" "$N/norank15" && rm -r "$N/norank15/rank15"

# ---- bad input: each a step directory whose rank1 is broken (rank0 is clean)
nan_bad() {    # nan_bad NAME DUMP-TEXT
    mkdir -p "$N/$1"
    cp -r "$N/clean/rank0" "$N/$1/rank0"
    mkdir -p "$N/$1/rank1"
    printf '%s' "$2" > "$N/$1/rank1/dump.json"
}
nan_bad malformed '{"task": "statistics", "data": {"a": [1, 2,]}}'
nan_bad empty ''
nan_bad notobj '[1, 2]'
nan_bad datalist '{"task": "statistics", "data": [1]}'
nan_bad entrylist '{"task": "statistics", "data": {"Torch.add.0.forward": [1]}}'
nan_bad opname '{"task": "statistics", "data": {"Distributed.send.0": {"input_args": []}}}'
nan_bad badutf8 "$(printf '{"task": "statistics", "data": {"Torch.\377.0.forward": {}}}')"
mkdir -p "$N/truncated/rank0" && head -c 5000 "$N/gen/step0/rank0/dump.json" > "$N/truncated/rank0/dump.json"
mkdir -p "$N/nodump/rank0" && printf '{}' > "$N/nodump/rank0/stack.json"
mkdir -p "$N/notdump/sub"
mkdir -p "$N/twice/rank" "$N/twice/rank0"
cp "$N/clean/rank0/dump.json" "$N/twice/rank/" && cp "$N/clean/rank0/dump.json" "$N/twice/rank0/"
mkdir -p "$N/procs/proc1" "$N/procs/proc2"
cp "$N/clean/rank0/dump.json" "$N/procs/proc1/" && cp "$N/clean/rank0/dump.json" "$N/procs/proc2/"
# the reported rank's construct.json / stack.json broken: found only when reporting
for b in badconstruct constructlist badstack linkconstruct; do cp -r "$N/gen/step0" "$N/$b"; done
printf '{"a": ' > "$N/badconstruct/rank8/construct.json"
printf '["Module.a"]' > "$N/constructlist/rank8/construct.json"
printf '{"0": [' > "$N/badstack/rank8/stack.json"
rm "$N/linkconstruct/rank8/construct.json" && ln -s "$N/gen/step0/rank8/construct.json" "$N/linkconstruct/rank8/construct.json"
# a dump root whose second step is broken: the first step's result is taken back
mkdir -p "$N/halfroot" && cp -r "$N/gen/step0" "$N/halfroot/step0" && cp -r "$N/malformed" "$N/halfroot/step1"
echo x > "$N/afile"
