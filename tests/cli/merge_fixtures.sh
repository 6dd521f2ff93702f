# Sourced by tests/cli/run.sh: per-rank compare results, configs and broken
# inputs for tests/cli/merge_cases.txt, made in $F/m (never checked in).
# Needs $BIN, $F (fixture directory) and $T (testdata/), run from the top
# directory. The results come from our own compare of the example dumps;
# the golden merges were checked against msprobe 8.1.0's merge_result.

M=$F/m
mkdir -p "$M"
stamp=20261121080525
"$BIN" compare -q -c -n "$T/example/target/step0" -b "$T/example/bench/step0" -o "$M/cmp"
"$BIN" compare -q -c -n "$T/example/target/step0" -b "$T/example/bench/step0" -o "$M/cmpcsv" --format csv
"$BIN" compare -q -c -n "$T/features_md5/target/step0/rank0" -b "$T/features_md5/bench/step0/rank0" -o "$M/md5"
"$BIN" compare -q -c -n "$T/features/target/step0/rank0" -b "$T/features/bench/step0/rank0" -o "$M/single"
# the newest msprobe's results (its dialect: -tp/-gp), xlsx and csv
"$BIN" compare -q -tp "$T/example/target/step0" -gp "$T/example/bench/step0" -o "$M/newest" --xlsx
"$BIN" compare -q -tp "$T/example/target/step0" -gp "$T/example/bench/step0" -o "$M/newestcsv"
r0=$(ls "$M"/cmp/compare_result_rank0_*.xlsx)
r1=$(ls "$M"/cmp/compare_result_rank1_*.xlsx)
md5=$(ls "$M"/md5/compare_result_*.xlsx)
mkd() { mkdir -p "$M/$1"; }

# ranks 0 and 1 as our compare names them, 2 and 10 as msprobe 8.1.0 does
mkd ranks && cp "$r0" "$r1" "$M/ranks/" && cp "$r0" "$M/ranks/compare_result_rank2-rank2_$stamp.xlsx" &&
    cp "$r1" "$M/ranks/compare_result_rank10-rank10_$stamp.xlsx"
mkd two && cp "$r0" "$r1" "$M/two/"
mkd msnames && cp "$r0" "$M/msnames/compare_result_rank0-rank0_$stamp.xlsx" &&
    cp "$r1" "$M/msnames/compare_result_rank1-rank1_$stamp.xlsx"
mkd withmd5 && cp "$r0" "$r1" "$M/withmd5/" && cp "$md5" "$M/withmd5/compare_result_rank5_$stamp.xlsx"
mkd allmd5 && cp "$md5" "$M/allmd5/compare_result_rank0_$stamp.xlsx" && cp "$md5" "$M/allmd5/compare_result_rank1_$stamp.xlsx"
mkd withsingle && cp "$r0" "$r1" "$M/withsingle/" && cp "$r0" "$M/withsingle/compare_result_rank_$stamp.xlsx" &&
    echo "not a result" > "$M/withsingle/notes.txt" && cp "$M"/cmp/advisor_* "$M/withsingle/" 2>/dev/null
mkd wrongname && cp "$r0" "$r1" "$M/wrongname/" && cp "$(ls "$M"/single/compare_result_*.xlsx)" "$M/wrongname/"
mkd one && cp "$r0" "$M/one/"
mkd none && echo x > "$M/none/readme.txt"
mkd dup && cp "$r0" "$r1" "$M/dup/" && cp "$r0" "$M/dup/compare_result_rank0-rank0_$stamp.xlsx"
mkd link && cp "$r0" "$M/link/" && ln -s "$r1" "$M/link/compare_result_rank1_$stamp.xlsx"
mkd text && cp "$r0" "$M/text/" && echo "NPU Name,rank0" > "$M/text/compare_result_rank1_$stamp.xlsx"
mkd trunc && cp "$r0" "$M/trunc/" && head -c 5000 "$r1" > "$M/trunc/compare_result_rank1_$stamp.xlsx"
: > "$M/afile"

printf 'api:\n- Distributed.all_reduce\n- Functional.softmax\n- Tensor.__neg__\n- Nothing.here\ncompare_index:\n- Max diff\n- MeanRelativeErr\n- NormRelativeErr\n' > "$M/cfg.yaml"
cp "$M/cfg.yaml" "$M/cfg.yml"
cp "$M/cfg.yaml" "$M/cfg.txt"
printf 'api: [Torch.cos]\n' > "$M/default.yaml"
printf 'api: [Distributed.all_reduce, Functional.softmax, Tensor.__neg__]\ncompare_index: [Max diff, NormRelativeErr, Requires_grad Consistent]\n' > "$M/newest.yaml"
printf 'api: [Distributed.all_reduce]\ncompare_index: [Cosine]\n' > "$M/cosine.yaml"
printf 'api: [Distributed.all_reduce]\ncompare_index: [Max diff, Nope]\n' > "$M/unknown.yaml"
printf 'api: [Distributed.all_reduce\n' > "$M/malformed.yaml"
printf 'compare_index: [Max diff]\n' > "$M/noapi.yaml"
printf 'api: Distributed.all_reduce\n' > "$M/apistr.yaml"
printf 'api: [Distributed.all_reduce, [x]]\n' > "$M/apiitem.yaml"
printf 'api: [Distributed.all_reduce]\ncompare_index: Max diff\n' > "$M/indexstr.yaml"
printf '# nothing\n' > "$M/empty.yaml"
printf -- '- Distributed.all_reduce\n' > "$M/list.yaml"
printf -- '--- {api: [a]}\n--- {api: [b]}\n' > "$M/twodocs.yaml"
printf 'api: [Distributed.all_reduce]\ncompare_index: [Max diff, Min diff, Mean diff, L2norm diff, MaxRelativeErr, MinRelativeErr, MeanRelativeErr, NormRelativeErr, Cosine, EucDist, MaxAbsErr, One Thousandth Err Ratio, Five Thousandths Err Ratio, Max diff]\n' > "$M/bothmodes.yaml"
