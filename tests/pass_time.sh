# Sourced by tests/run_tests.sh and tests/run_long.sh: every pass says how
# long it took ("   (12 s)" after its lines), and pass_summary sums them up
# in one line, so that a slow pass shows in any CI log.
#
#   pass SHORT-NAME TITLE    ends the running pass, starts this one
#   pass_summary LABEL       ends the running pass; "time (LABEL): ..."
t_name="" t_start=0 t_all=$(date +%s) t_list=""
pass_end() {
    [ -n "$t_name" ] || return 0
    took=$(($(date +%s) - t_start))
    echo "   ($took s)"
    t_list="$t_list, $t_name $took s"
    t_name=""
}
pass() {
    pass_end
    t_name=$1 t_start=$(date +%s)
    echo "== $2"
}
pass_summary() {
    pass_end
    echo "time ($1): $(($(date +%s) - t_all)) s in all;${t_list#,}"
}
