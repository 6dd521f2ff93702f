# Sourced by tests/cli/run.sh: the outputs that exist already, for the
# overwrite rule of tests/cli/newcomer_cases.txt (one file per case: a case
# that replaces one must not change what another case sees), and a .vis.
# Needs $F, $BIN and the fixtures of graph_fixtures.sh, run from the top.

N=$F/nc
mkdir -p "$N"
for f in summary_exists.json summary_force.json ck_exists.json ck_force.json page_exists.html page_force.html; do
    printf 'old\n' > "$N/$f"
done
cp "$F/cc/existing.zip" "$N/pack_exists.zip"
cp "$F/cc/existing.zip" "$N/pack_force.zip"
# outputs msprobe replaces: a result directory, an anomaly directory, a
# monitor2db, a data2db and a monitor2tb output that hold one already
mkdir -p "$N/ccout" "$N/anout" "$N/dbout" "$N/trend" "$N/tbout/rank0/actv"
printf 'old\n' > "$N/ccout/result.xlsx"
printf '{}' > "$N/anout/anomaly_analyse.json"
printf 'old\n' > "$N/dbout/monitor_metrics.db"
printf 'old\n' > "$N/trend/monitor_data.trend.db"
printf 'old\n' > "$N/tbout/rank0/actv/events.out.tfevents.1.old"
# a .vis of ours for graph view
"$BIN" graph -q -tp "$F/graph/n/rank" -o "$N/vis" && cp "$N"/vis/build_*.vis "$N/model.vis"
# make demo twice into one directory: how many files the second run lists
printf '#!/bin/sh\nout=$1\nDEMO_OUT="$out" sh "%s/tests/demo.sh" "%s" > /dev/null || exit 1\nDEMO_OUT="$out" sh "%s/tests/demo.sh" "%s" > "$out.log" || exit 1\necho "second run lists $(sed -n "/^this run.s results/,/^$/p" "$out.log" | grep -c "^-") files"\n' \
    "$top" "$(dirname "$BIN")" "$top" "$(dirname "$BIN")" > "$W/demo-twice"
chmod +x "$W/demo-twice"
# make install into a temporary DESTDIR (tests/cli/install_check.sh)
printf '#!/bin/sh\nexec sh "%s/tests/cli/install_check.sh" "%s"\n' "$top" "$BUILD" > "$W/install-check"
chmod +x "$W/install-check"
