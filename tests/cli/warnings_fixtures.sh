# Sourced by tests/cli/run.sh: a small tensor-mode pair (tests/tools/gen_dump)
# whose target lacks 8 tensor files, for tests/cli/warnings_cases.txt, in
# $F/missing. Needs $F, $BUILD, run from the top directory.
if [ -x "$BUILD/tools/gen_dump" ]; then
    "$BUILD/tools/gen_dump" --out "$F/missing" --mode tensor --layers 1 --entries 40 --seed 1 >/dev/null
    (cd "$F/missing/target/step0/rank/dump_tensor_data" && ls | LC_ALL=C sort | head -8 | xargs rm -f)
fi
