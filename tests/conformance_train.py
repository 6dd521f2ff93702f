#!/usr/bin/env python3
"""Conformance of `msprobe train_compare` with Megatron-LM's checker, on the
corpus in ../shared/corpus/train (standard library only).

usage: conformance_train.py TRAIN_CORPUS MSPROBE_BINARY SCRATCH_DIR

1. megatron/expected/verdicts.jsonl: every ordered pair of golden files of
   a case in both modes, with the case's model_config.yaml: the exit status
   (2 where the checker could not load a file, else 3 / 0 for FAILED /
   PASSED) and, from --summary-json, the verdict of every metric and test
   (the checker's "missing" is our FAILED; what it never ran, "not_run", is
   not compared).
2. tensorboard/expected/verdicts.jsonl: the same for the toy runs, each
   record twice where possible -- from the golden files Megatron's reader
   wrote, and from the TensorBoard directories themselves with the reader's
   arguments (--train-iters 100, --tb-file-index, --step-interval) -- for
   the regular pipeline (default and perf configs), the resume pipeline
   (--steps 51-100) and the MindSpore Transformers tags with explicit checks.
3. tensorboard/expected/goldens (read_tb_logs_as_list with all tags) and
   tensorboard/expected/cli (the CLI's whitelist): each reproduced by
   --save-golden, equal as data, value types included.
4. ../monitor/monitor_output (msprobe's training monitor): converted by our
   monitor2tb, both read back by --save-golden (no rounding, step 0 kept)
   give the same series, steps and values (the csv's as float32, what the
   event files hold), but the data type "other", which monitor2tb (as
   msprobe's csv2tensorboard) does not convert.
Prints one line per group and one per failure; exit 0 when all pass.
"""
import json
import os
import struct
import subprocess
import sys

CORPUS, BIN, TMP = sys.argv[1:4]
failures = 0
SUMMARY = os.path.join(TMP, "summary.json")


def fail(what):
    global failures
    failures += 1
    if failures <= 40:
        print("FAIL " + what)


def run(args):
    if os.path.exists(SUMMARY):
        os.remove(SUMMARY)
    p = subprocess.run([BIN, "train_compare", "-q"] + args + ["--summary-json", SUMMARY],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    summary = None
    if os.path.exists(SUMMARY):
        with open(SUMMARY) as f:
            summary = json.load(f)
    return p.returncode, p.stderr, summary


def check_record(label, rec, rc, err, summary):
    """Our exit status and verdicts against the checker's record."""
    if rec["overall"] == "ERROR":
        if rc != 2:
            fail(f"{label}: the checker could not load a file; we exited {rc}, not 2 ({err.strip()[:200]})")
        return
    want = 3 if rec["overall"] == "FAILED" else 0
    if rc != want:
        fail(f"{label}: exit {rc}, want {want} ({rec['overall']}) {err.strip()[:200]}")
        return
    if summary is None:
        fail(f"{label}: no summary JSON")
        return
    for metric, tests in rec["results"].items():
        ours = summary["metrics"].get(metric)
        if ours is None:
            fail(f"{label}: no verdict for {metric}")
            continue
        for test, v in tests.items():
            if v == "not_run":
                continue
            w = "FAILED" if v == "missing" else v
            if ours.get(test) != w:
                fail(f"{label}: {metric} {test}: {ours.get(test)}, want {w}")


def megatron():
    n = 0
    cases = os.path.join(CORPUS, "megatron", "cases")
    with open(os.path.join(CORPUS, "megatron", "expected", "verdicts.jsonl")) as f:
        for line in f:
            rec = json.loads(line)
            d = os.path.join(cases, rec["case"])
            gv = lambda v: os.path.join(d, f"golden_values_{v}.json")
            args = ["-n", gv(rec["actual"]), "-b", gv(rec["golden"]), "--model-config",
                    os.path.join(d, "model_config.yaml"), "--mode", rec["mode"]]
            rc, err, summary = run(args)
            check_record(f"{rec['case']} {rec['actual']} vs {rec['golden']} {rec['mode']}", rec, rc, err, summary)
            n += 1
    return n


# the toy runs' variants: the golden file Megatron's reader wrote, and the
# directory with the reader's arguments that make it
TB_VARIANTS = {
    "base": ("base", 0, 1), "repeat": ("repeat", 0, 1), "lr20": ("lr20", 0, 1), "seed2": ("seed2", 0, 1),
    "interval5": ("interval5", 0, 1), "resume@idx0": ("resume", 0, 1), "resume@idxall": ("resume", -1, 1),
    "base@ss5": ("base", 0, 5),
}
MF_CHECKS = ["--check", "loss:exact,rtol=0.05", "--check", "grad-norm:rtol=0.05", "--check",
             "learning-rate:exact", "--check", "iteration-time:rtol=0.05"]


def tensorboard():
    n = 0
    tb = os.path.join(CORPUS, "tensorboard")
    goldens = os.path.join(tb, "expected", "goldens")
    configs = os.path.join(tb, "expected", "configs")
    with open(os.path.join(tb, "expected", "verdicts.jsonl")) as f:
        recs = [json.loads(line) for line in f]
    for rec in recs:
        kind = rec["kind"]
        if kind == "pipeline_explicit_checks_mindformers":
            checks = MF_CHECKS
        else:
            checks = ["--model-config", os.path.join(configs, rec["config"] + "_model_config.yaml")]
        steps = ["--steps", "51-100"] if kind == "resume_checkpoint_pipeline" else []
        mode = ["--mode", rec["mode"]]
        label = f"tb {kind} {rec['actual']} vs {rec['golden']} {rec.get('config')} {rec['mode']}"
        # from the golden files
        args = ["-n", os.path.join(goldens, rec["actual_file"]), "-b", os.path.join(goldens, rec["golden_file"])]
        rc, err, summary = run(args + checks + steps + mode)
        check_record(label + " (json)", rec, rc, err, summary)
        n += 1
        # from the event files, when one set of reader arguments makes both
        a = TB_VARIANTS.get(rec["actual"].split("(")[0])
        g = TB_VARIANTS.get(rec["golden"])
        if not a or not g or a[1:] != g[1:] and not (a[0] != "resume" and g[0] != "resume" and a[2] == g[2]):
            continue
        idx = a[1] if a[0] == "resume" else g[1]
        writer = "mindformers" if "mindformers" in rec["actual_file"] else "megatron"
        gwriter = "mindformers" if "mindformers" in rec["golden_file"] else "megatron"
        args = ["-n", os.path.join(tb, "runs", a[0], writer), "-b", os.path.join(tb, "runs", g[0], gwriter),
                "--train-iters", "100", "--tb-file-index", str(idx), "--step-interval", str(a[2])]
        rc, err, summary = run(args + checks + steps + mode)
        check_record(label + " (tfevents)", rec, rc, err, summary)
        n += 1
    return n


def same_data(a, b, where):
    """Equal as data, ints and floats told apart."""
    if type(a) != type(b) and not (isinstance(a, float) and isinstance(b, float)):
        fail(f"{where}: {a!r} ({type(a).__name__}) vs {b!r} ({type(b).__name__})")
        return False
    if isinstance(a, dict):
        if list(a) != list(b):
            missing = set(a) ^ set(b)
            fail(f"{where}: keys differ: {sorted(missing)[:5]} ({len(a)} vs {len(b)})")
            return False
        return all(same_data(a[k], b[k], f"{where}/{k}") for k in a)
    if a != b and not (a != a and b != b):
        fail(f"{where}: {a!r} vs {b!r}")
        return False
    return True


def save_golden(args, expected, label):
    out = os.path.join(TMP, "golden.json")
    if os.path.exists(out):
        os.remove(out)
    p = subprocess.run([BIN, "train_compare", "-q", "--save-golden", out] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        fail(f"{label}: exit {p.returncode}: {p.stderr.strip()[:200]}")
        return
    with open(out) as f:
        ours = json.load(f)
    with open(expected) as f:
        want = json.load(f)
    same_data(want, ours, label)


def goldens():
    n = 0
    tb = os.path.join(CORPUS, "tensorboard")
    gdir = os.path.join(tb, "expected", "goldens")
    with open(os.path.join(gdir, "manifest.json")) as f:
        manifest = json.load(f)
    for m in manifest:
        if not m["file"]:
            continue
        args = ["-n", os.path.join(tb, "runs", m["run"], m["writer"]), "--train-iters", str(m["train_iters"]),
                "--start-step", str(m["start_idx"]), "--step-interval", str(m["step_size"]),
                "--tb-file-index", str(m["index"])]
        save_golden(args, os.path.join(gdir, m["file"]), "save-golden " + m["file"])
        n += 1
    cli = os.path.join(tb, "expected", "cli")
    whitelist = "iteration-time,mem-allocated-bytes,mem-max-allocated-bytes,lm loss,num-zeros,mtp_1 loss," \
                "mtp_2 loss,total loss"
    for name in sorted(os.listdir(cli)):
        # golden_values_{run}_ss{N}[_convergence].json
        stem = name[len("golden_values_"):-len(".json")]
        conv = stem.endswith("_convergence")
        if conv:
            stem = stem[:-len("_convergence")]
        run_, ss = stem.rsplit("_ss", 1)
        args = ["-n", os.path.join(tb, "runs", run_, "megatron"), "--train-iters", "100", "--step-interval", ss,
                "--tb-file-index", "-1" if conv else "0", "--metrics", whitelist]
        save_golden(args, os.path.join(cli, name), "save-golden cli/" + name)
        n += 1
    return n


def monitor_readback():
    mon = os.path.join(os.path.dirname(CORPUS.rstrip("/")), "monitor", "monitor_output")
    if not os.path.isdir(mon):
        return 0
    tb = os.path.join(TMP, "monitor_tb")
    p = subprocess.run([BIN, "monitor2tb", "-q", "-m", mon, "-o", tb], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        fail(f"monitor2tb: exit {p.returncode}: {p.stderr.strip()[:200]}")
        return 0
    out = {}
    for name, src in (("csv", mon), ("tb", tb)):
        dst = os.path.join(TMP, f"monitor_{name}.json")
        p = subprocess.run([BIN, "train_compare", "-q", "-n", src, "--save-golden", dst, "--round", "-1",
                            "--start-step", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            fail(f"--save-golden of {src}: exit {p.returncode}: {p.stderr.strip()[:200]}")
            return 0
        with open(dst) as f:
            out[name] = json.load(f)
    # monitor2tb converts the 8 data types csv2tensorboard takes, not "other"
    csv = {k: v for k, v in out["csv"].items() if k.split("/")[1] != "other"}
    tbv = out["tb"]
    if sorted(csv) != sorted(tbv):
        fail(f"monitor read back: {len(csv)} series from the csv, {len(tbv)} from the event files")
        return len(csv)
    f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]
    for k in csv:
        a, b = csv[k]["values"], tbv[k]["values"]
        if list(a) != list(b):
            fail(f"monitor read back: {k}: steps differ")
            continue
        for s in a:
            x, y = a[s], b[s]
            if isinstance(x, str) or isinstance(y, str):
                if x != y:
                    fail(f"monitor read back: {k} step {s}: {x!r} vs {y!r}")
            elif f32(x) != y:
                fail(f"monitor read back: {k} step {s}: {x!r} (float32 {f32(x)!r}) vs {y!r}")
    return len(csv)


n1 = megatron()
print(f"{'ok  ' if not failures else 'FAIL'} megatron verdicts: {n1} records")
f1 = failures
n2 = tensorboard()
print(f"{'ok  ' if failures == f1 else 'FAIL'} tensorboard verdicts: {n2} runs")
f2 = failures
n3 = goldens()
print(f"{'ok  ' if failures == f2 else 'FAIL'} --save-golden: {n3} golden files reproduced")
f3 = failures
n4 = monitor_readback()
if n4:
    print(f"{'ok  ' if failures == f3 else 'FAIL'} monitor2tb read back: {n4} series the same as their csv")
else:
    print("SKIPPED monitor2tb read back (no ../monitor corpus)")
sys.exit(1 if failures else 0)
