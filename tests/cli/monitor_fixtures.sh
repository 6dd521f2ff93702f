# Sourced by tests/cli/run.sh: small training-monitor trees, anomaly files and
# dump trees for tests/cli/monitor_cases.txt, made in $F/mon (never checked
# in), many of them wrong on purpose. Needs $F, run from the top directory.

M=$F/mon
mkdir -p "$M"

# run ROOT RANK: a run directory of ROOT named as TrainerMon names it
run() { d="$M/$1/Nov25_01-23-20-rank$2-0000abc$2"; mkdir -p "$d"; echo "$d"; }

# a good tree: 2 ranks, activations (micro steps) and gradients, 2 files each
for r in 0 1; do
    d=$(run good "$r")
    printf 'vpp_stage,name,step,micro_step,min,max,norm,zeros,nans,mean,shape,dtype\n' > "$d/actv_0-1.csv"
    printf '0,fc.input,0,0,-1.5,2.0,3.25,0.0,0,0.1,"[4, 2]",torch.float32\n' >> "$d/actv_0-1.csv"
    printf '0,fc.input,0,1,-1.0,2.5,3.5,0.0,0,0.2,"[4, 2]",torch.float32\n' >> "$d/actv_0-1.csv"
    printf '0,fc.input,1,0,-1.5,2.0,3.0,0.0,0,0.1,"[4, 2]",torch.float32\n' >> "$d/actv_0-1.csv"
    printf '0,fc.input,1,1,nan,nan,nan,nan,nan,nan,nan,nan\n' >> "$d/actv_0-1.csv"
    printf 'vpp_stage,name,step,micro_step,min,max,norm,zeros,nans,mean,shape,dtype\n' > "$d/actv_2-3.csv"
    printf '0,fc.input,2,0,-1.5,2.0,30.5,0.0,4,0.1,"[4, 2]",torch.float32\n' >> "$d/actv_2-3.csv"
    printf 'vpp_stage,name,step,min,max,norm,zeros,nans,mean,shape,dtype\n' > "$d/grad_reduced_0-1.csv"
    printf '0,fc.weight,0,-0.1,0.1,1e-05,0.0,0,-0.0,"[2, 2]",torch.float32\n' >> "$d/grad_reduced_0-1.csv"
    printf '0,fc.bias,0,inf,-inf,0.5,0.0,0,0.0,[2],torch.float32\n' >> "$d/grad_reduced_0-1.csv"
    printf '0,fc.weight,1,-0.2,0.2,2e-05,0.0,0,0.0,"[2, 2]",torch.float32\n' >> "$d/grad_reduced_0-1.csv"
    echo 'module_name,stack_info' > "$d/stack_info.csv"
done
mkdir -p "$M/good/anomaly_detected/rank0"

# a run with something between its ends (monitor summary): 10 steps on 2
# ranks; fc.weight spikes x95 on rank 0 at step 6, fc.scale drops to 1/50
# on rank 1 at step 4, fc.bias turns Inf on rank 1 at step 5 and NaN on
# rank 0 at step 7; param_origin grows calmly
G='vpp_stage,name,step,min,max,norm,zeros,nans,mean,shape,dtype\n'
for r in 0 1; do
    d=$(run spike "$r")
    printf "$G" > "$d/grad_reduced_0-9.csv"
    printf "$G" > "$d/param_origin_0-9.csv"
    for s in 0 1 2 3 4 5 6 7 8 9; do
        w=$(echo "1.0 1.1 0.9 1.0 1.2 1.0 1.0 1.0 1.1 1.0" | cut -d' ' -f$((s + 1)))
        [ "$r$s" = 06 ] && w=95.0
        c=2.0; [ "$r$s" = 14 ] && c=0.04
        b="-0.1,0.1,0.5,0.0,0,0.0"
        [ "$r$s" = 15 ] && b="-0.1,inf,inf,0.0,0,inf"
        [ "$r$s" = 07 ] && b="nan,nan,nan,0.0,2,nan"
        printf '0,fc.weight,%s,-0.1,0.1,%s,0.0,0,0.0,"[2, 2]",torch.float32\n' "$s" "$w" >> "$d/grad_reduced_0-9.csv"
        printf '0,fc.bias,%s,%s,[2],torch.float32\n' "$s" "$b" >> "$d/grad_reduced_0-9.csv"
        printf '0,fc.scale,%s,0.5,0.5,%s,0.0,0,0.5,[2],torch.float32\n' "$s" "$c" >> "$d/grad_reduced_0-9.csv"
        printf '0,fc.weight,%s,-1.0,1.0,%s.5,0.0,0,0.0,"[2, 2]",torch.float32\n' "$s" "$((s + 10))" \
            >> "$d/param_origin_0-9.csv"
    done
    # the same rows, last step first (msprobe writes them in step order)
    d2=$(run shuffled "$r")
    { printf "$G"; sed 1d "$d/grad_reduced_0-9.csv" | sort -t, -k3,3nr; } > "$d2/grad_reduced_0-9.csv"
done

# malformed_tree NAME FILE-CONTENT: one rank, one actv file
malformed() {
    d=$(run "$1" 0)
    printf "$2" > "$d/actv_0-3.csv"
}
H='vpp_stage,name,step,micro_step,min,max,norm,zeros,nans,mean,shape,dtype\n'
malformed nostep 'vpp_stage,name,micro_step,norm\n0,a,0,1.0\n'
malformed badnum "${H}0,a,0,0,1,2,3,0,0,0.5,[1],f\n0,a,1,0,1,2,x3.5,0,0,0.5,[1],f\n"
malformed dupstep "${H}0,a,0,0,1,2,3,0,0,0.5,[1],f\n0,b,0,0,1,2,3,0,0,0.5,[1],f\n0,a,0,0,1,2,4,0,0,0.5,[1],f\n"
malformed truncated "${H}0,a,0,0,1,2,3,0,0,0.5,[1],f\n0,a,1,0,1,2,3"
malformed badstep "${H}0,a,0.5,0,1,2,3,0,0,0.5,[1],f\n"
malformed outside "${H}0,a,7,0,1,2,3,0,0,0.5,[1],f\n"
malformed extra "${H}0,a,0,0,1,2,3,0,0,0.5,[1],f,g\n"
# a malformed file beside a good one (for --skip-bad)
d=$(run skipbad 0)
cp "$M/good/Nov25_01-23-20-rank0-0000abc0/grad_reduced_0-1.csv" "$d/"
printf "${H}0,a,0,0,1,2,x,0,0,0.5,[1],f\n" > "$d/actv_0-3.csv"
# overlapping step windows
d=$(run overlap 0)
printf "${H}0,a,0,0,1,2,3,0,0,0.5,[1],f\n" > "$d/actv_0-3.csv"
printf "${H}0,a,3,0,1,2,3,0,0,0.5,[1],f\n" > "$d/actv_2-5.csv"
# no run directory at all; a bad stamp
mkdir -p "$M/empty/some_dir"
mkdir -p "$M/badstamp/Foo99_01-23-20-rank0-00000000"

# anomalies: rank1 has one record msprobe cannot build (an unknown field)
A=$M/anomaly
mkdir -p "$A/rank0" "$A/rank1" "$A/notobj/rank0" "$A/none/rank0"
rec() { printf '"%s_step_%s_call_%s": {"rank": %s, "step": %s, "micro_step": 0, "pp_stage": 0, "vpp_stage": 0, "call_id": %s, "tag_name": "%s", "message": "Rule AnomalyNan reports anomaly signal in ('"'"'%s'"'"', '"'"'norm'"'"') at step %s, current value nan, history mean 1.0.", "group_mates": [0, 1]}' \
    "$1" "$2" "$3" "$4" "$2" "$3" "$1" "$1" "$2"; }
{ printf '{'; rec "0:fc.weight/rank0/post_grad" 3 5 0; printf ', '; rec "0:fc.input:0/rank0/actv" 3 2 0
  printf ', '; rec "0:fc.weight/rank0/exp_avg" 1 -1 0; printf '}'; } > "$A/rank0/anomaly.json"
{ printf '{'; rec "0:fc.input:0/rank1/actv" 3 2 1; printf ', "x": {"rank": 1, "bogus": 2}}'; } > "$A/rank1/anomaly.json"
printf '[1, 2]' > "$A/notobj/rank0/anomaly.json"

# dump trees for data2db: step0/rank0 and a proc directory
D=$M/dump
mkdir -p "$D/step0/rank0" "$D/step0/proc4242"
T1='{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 2.0, "Min": -1.0, "Mean": 0.5, "Norm": 2.2}'
T2='{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": Infinity, "Min": 0, "Mean": NaN, "Norm": "3.5"}'
for r in rank0 proc4242; do
    printf '{"task": "statistics", "level": "mix", "data": {"Functional.linear.0.forward": {"input_args": [%s, null], "output": [%s]}, "Module.fc.Linear.forward.0": {"input_args": [%s], "output": [%s]}, "Functional.linear.0.backward": {"input": [%s], "output": [%s]}, "Module.fc.Linear.parameters_grad": {"weight": [%s]}}}' \
        "$T1" "$T2" "$T1" "$T2" "$T1" "$T2" "$T1" > "$D/step0/$r/dump.json"
    printf '{"Module.fc.Linear.forward.0": null, "Functional.linear.0.forward": "Module.fc.Linear.forward.0"}' \
        > "$D/step0/$r/construct.json"
done
mkdir -p "$M/noconstruct/step0/rank0"
cp "$D/step0/rank0/dump.json" "$M/noconstruct/step0/rank0/"
mkdir -p "$M/badjson/step0/rank0"
printf '{"data": {"a.0.forward": [1,}}' > "$M/badjson/step0/rank0/dump.json"
printf '{"Functional.linear": "FL"}' > "$M/mapping.json"
printf '["not", "an object"]' > "$M/badmapping.json"
