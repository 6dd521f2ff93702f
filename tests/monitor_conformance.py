#!/usr/bin/env python3
"""Conformance of anomaly, monitor2tb, monitor2db and data2db against msprobe's
own runs in ../shared/corpus (monitor/ and nan4/expected/data2db/).

Every command line of the corpus' commands.txt files is translated into ours
and run from the case directory, then compared:
  anomaly_topk   anomaly_analyse.json byte for byte (for every k and step list);
                 error runs: exit status 2 and no file
  csv2tb         every event file record's CRC valid, the same (tag, step,
                 float32 value) set per rank and data type (tests/tools/monitor_check.py)
  csv2db         the same rows, as query results (ids resolved to names)
  data2db        the same trend database, as data; "err_" runs: exit status 2
Where msprobe writes nothing and ends normally (a time window without runs,
no dump found) we exit 2: that is checked too.

  monitor_conformance.py MSPROBE CORPUS
Exit status 0 when everything conforms, 1 otherwise.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "tools"))
import monitor_check  # noqa: E402


def kwargs(call):
    """The keyword arguments of a Python call as written in commands.txt."""
    out = {}
    for m in re.finditer(r"(\w+)=('[^']*'|\[[^\]]*\]|\d+)", call):
        k, v = m.group(1), m.group(2)
        if v.startswith("'"):
            v = v[1:-1]
        elif v.startswith("["):
            v = ",".join(x.strip().strip("'") for x in v[1:-1].split(","))
        out[k] = v
    return out


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    msprobe, corpus = os.path.abspath(sys.argv[1]), sys.argv[2]
    fails, checks = [], 0
    tmp = tempfile.mkdtemp(prefix="msprobe-monitor-conf.")
    try:
        mon = os.path.join(corpus, "monitor")
        lines = open(os.path.join(mon, "commands.txt"), encoding="utf-8").read().splitlines()
        for line in lines:
            m = re.match(r"(\S+) \(cwd=<case>\) rc=(\d+) : (.*)$", line)
            if not m:
                continue
            tool, rc, cmd = m.group(1), int(m.group(2)), m.group(3)
            out = os.path.join(tmp, "out%d" % checks)
            if tool == "anomaly_topk":
                args = shlex.split(cmd)
                args = args[args.index("msprobe.core.monitor.anomaly_processor") + 1:]
                name = os.path.basename(args[args.index("-o") + 1])
                args[args.index("-o") + 1] = out
                code, _, err = run([msprobe, "anomaly", "-q"] + args, mon)
                checks += 1
                expected = os.path.join(mon, "expected/anomaly_topk", name, "anomaly_analyse.json")
                steps = args[args.index("-s") + 1] if "-s" in args else "[]"
                if rc != 0 and re.fullmatch(r"\d+(,\d+)*", steps):
                    # msprobe wants a Python list; a bare "13" is ours to accept: as "[13]"
                    args[args.index("-s") + 1] = "[%s]" % steps
                    code2, _, _ = run([msprobe, "anomaly", "-q"] + args[:args.index("-o") + 1] + [out + "b"] +
                                      args[args.index("-o") + 2:], mon)
                    same = code == 0 and code2 == 0 and open(os.path.join(out, "anomaly_analyse.json"), "rb").read() \
                        == open(os.path.join(out + "b", "anomaly_analyse.json"), "rb").read()
                    if not same:
                        fails.append("anomaly %s: -s %s not read as [%s]" % (name, steps, steps))
                    continue
                if rc != 0:
                    if code != 2 or os.path.exists(os.path.join(out, "anomaly_analyse.json")):
                        fails.append("anomaly %s: exit %d, expected 2 and no file" % (name, code))
                elif code != 0:
                    fails.append("anomaly %s: exit %d: %s" % (name, code, err.strip()))
                elif open(os.path.join(out, "anomaly_analyse.json"), "rb").read() != open(expected, "rb").read():
                    fails.append("anomaly %s: anomaly_analyse.json differs from msprobe's" % name)
            elif tool in ("csv2tb", "csv2db"):
                kw = kwargs(cmd)
                name = os.path.basename(kw["output_dirpath"])
                args = ["-m", "monitor_output", "-o", out, "-q"]
                for k, opt in (("time_start", "--time-start"), ("time_end", "--time-end"),
                               ("data_type_list", "--types"), ("process_num", "-j"),
                               ("step_partition", "--partition")):
                    if k in kw:
                        args += [opt, kw[k]]
                code, _, err = run([msprobe, "monitor2tb" if tool == "csv2tb" else "monitor2db"] + args, mon)
                checks += 1
                expected = os.path.join(mon, "expected", tool, name)
                produced = os.path.isdir(expected) and (tool == "csv2db" or os.listdir(expected))
                if rc != 0 or not produced:
                    # msprobe failed (rc 1), or wrote nothing (an empty window): exit 2, nothing left
                    if code != 2 or os.path.exists(out):
                        fails.append("%s %s: exit %d, expected 2 and nothing written" % (tool, name, code))
                    continue
                if code != 0:
                    fails.append("%s %s: exit %d: %s" % (tool, name, code, err.strip()))
                    continue
                if tool == "csv2tb":
                    bad, summary = monitor_check.check_events(out, expected)
                else:
                    a = monitor_check.db_content(os.path.join(out, "monitor_metrics.db"))
                    b = monitor_check.db_content(os.path.join(expected, "monitor_metrics.db"))
                    bad, summary = monitor_check.compare_dicts(a, b), "%d rows" % len(b["rows"])
                if bad:
                    fails.append("%s %s: %s" % (tool, name, "; ".join(bad[:3])))
                else:
                    print("ok   %s %s: %s" % (tool, name, summary))
        n4 = os.path.join(corpus, "nan4")
        for line in open(os.path.join(n4, "expected/data2db/commands.txt"), encoding="utf-8"):
            m = re.match(r"DATA2DB (\S+) \(cwd=<case>\) rc=(\d+) : msprobe data2db (.*)$", line.strip())
            if not m:
                continue
            name, args = m.group(1), shlex.split(m.group(3))
            out = os.path.join(tmp, "d2d_" + name)
            args[args.index("--db") + 1] = out
            code, _, err = run([msprobe, "data2db", "-q"] + args, n4)
            checks += 1
            expected = os.path.join(n4, "expected/data2db", name, "dump_data.trend.db")
            if not os.path.exists(expected):
                if code != 2 or os.path.exists(os.path.join(out, "dump_data.trend.db")):
                    fails.append("data2db %s: exit %d, expected 2 and no database" % (name, code))
                continue
            if code != 0:
                fails.append("data2db %s: exit %d: %s" % (name, code, err.strip()))
                continue
            bad = monitor_check.compare_dicts(monitor_check.trend_content(os.path.join(out, "dump_data.trend.db")),
                                              monitor_check.trend_content(expected))
            if bad:
                fails.append("data2db %s: %s" % (name, "; ".join(bad[:3])))
            else:
                print("ok   data2db %s" % name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print("FAIL " + f)
    print("monitor conformance: %d runs, %d failed" % (checks, len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
