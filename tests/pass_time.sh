# Sourced by tests/run_tests.sh and tests/run_long.sh: every pass says how
# long it took on the clock and in CPU time ("   (12 s, 9 s of CPU)" after
# its lines; on a shared machine the first grows with the load, the second
# hardly), and pass_summary sums them up in one line, so that a slow pass
# shows in any CI log.
#
#   pass SHORT-NAME TITLE    ends the running pass, starts this one
#   pass_summary LABEL       ends the running pass; "time (LABEL): ..."
t_name="" t_start=0 t_cpu0=0 t_cpu=0 t_all=$(date +%s) t_list=""
t_times=$(mktemp "${TMPDIR:-/tmp}/msprobe-times.XXXXXX")
# t_cpu: the CPU seconds (user and system) of every command this shell has
# run and waited for; `times` runs here, not in $(...), whose subshell
# would count only its own children
cpu_now() {
    times > "$t_times"
    t_cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); n += a[1] * 60 + a[2] }
                           printf "%d", n + 0.5 }' "$t_times")
}
cpu_now
t_cpu_all=$t_cpu
pass_end() {
    [ -n "$t_name" ] || return 0
    cpu_now
    took=$(($(date +%s) - t_start)) cpu=$((t_cpu - t_cpu0))
    echo "   ($took s, $cpu s of CPU)"
    t_list="$t_list, $t_name $took s ($cpu)"
    t_name=""
}
pass() {
    pass_end
    cpu_now
    t_name=$1 t_start=$(date +%s) t_cpu0=$t_cpu
    echo "== $2"
}
pass_summary() {
    pass_end
    cpu_now
    echo "time ($1): $(($(date +%s) - t_all)) s in all, $((t_cpu - t_cpu_all)) s of CPU;${t_list#,}"
    rm -f "$t_times"
}
