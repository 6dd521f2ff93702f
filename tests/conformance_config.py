#!/usr/bin/env python3
"""Conformance of `msprobe config_check` with msprobe 8.1.0's own outputs in
../shared/corpus/config_check and ../shared/corpus/ckpt (standard library only).

usage: conformance_config.py CORPUS MSPROBE_BINARY SCRATCH_DIR

1. Pack compare: every sheet of our result.xlsx against msprobe's result.xlsx,
   cell by cell with the cell types (boolean / number / text / empty, from the
   corpus' result.xlsx.derived.json), rows without fills, sheet order, header
   style (bold, bordered, centred, top); the listed fixes applied to msprobe's
   side first: the env sheet's bench/cmp columns swapped back (README
   difference), weights rows of one step and rank in name order, random rows
   of one rank in op order (msprobe: Python set order); the sheets no fix
   touches also through ../shared/tools/conformance.py. The same with
   --format csv, one file per sheet.
2. Static pack (-d): hyperparameters_static.json byte for byte; env as JSON
   data and in json.dumps(indent=4) layout; pip lines Name=version.
3. Checkpoint compare: every parameter, numel and shape equal, l2 and cos
   within 1e-6 relative.
Prints one line per check; exit status 0 when all pass, 1 otherwise.
"""
import csv
import json
import os
import re
import subprocess
import sys
import zipfile
import xml.etree.ElementTree as ET

NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
failures = 0


def say(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures += 1


def read_book(path):
    """{sheet: rows of typed cells}, sheet order, per sheet: header styled?, any fill?"""
    with zipfile.ZipFile(path) as z:
        shared = []
        if "xl/sharedStrings.xml" in z.namelist():
            for si in ET.fromstring(z.read("xl/sharedStrings.xml")).findall("m:si", NS):
                shared.append("".join(t.text or "" for t in si.iter("{%s}t" % NS["m"])))
        st = ET.fromstring(z.read("xl/styles.xml"))
        fonts = st.findall("m:fonts/m:font", NS)
        fills = st.findall("m:fills/m:fill", NS)
        borders = st.findall("m:borders/m:border", NS)
        xfs = st.findall("m:cellXfs/m:xf", NS)

        def header_style(i):
            xf = xfs[i]
            bold = fonts[int(xf.get("fontId", 0))].find("m:b", NS) is not None
            left = borders[int(xf.get("borderId", 0))].find("m:left", NS)
            al = xf.find("m:alignment", NS)
            return (bold and left is not None and left.get("style") == "thin" and al is not None
                    and al.get("horizontal") == "center" and al.get("vertical") == "top")

        def filled(i):
            pf = fills[int(xfs[i].get("fillId", 0))].find("m:patternFill", NS)
            return pf is not None and pf.get("patternType") == "solid"

        wb = ET.fromstring(z.read("xl/workbook.xml"))
        rels = {r.get("Id"): r.get("Target") for r in ET.fromstring(z.read("xl/_rels/workbook.xml.rels"))}
        book, order, styled, anyfill = {}, [], {}, {}
        for sh in wb.findall("m:sheets/m:sheet", NS):
            name = sh.get("name")
            order.append(name)
            target = rels[sh.get(REL)].lstrip("/")
            target = target if target.startswith("xl/") else "xl/" + target
            rows, ok_head, fill = [], True, False
            for r in ET.fromstring(z.read(target)).findall("m:sheetData/m:row", NS):
                idx = int(r.get("r")) - 1
                while len(rows) < idx:
                    rows.append([])
                cells = []
                for c in r.findall("m:c", NS):
                    col = 0
                    for ch in re.match(r"[A-Z]+", c.get("r")).group(0):
                        col = col * 26 + ord(ch) - 64
                    while len(cells) < col - 1:
                        cells.append(None)
                    t, v = c.get("t"), c.find("m:v", NS)
                    if t == "s":
                        val = shared[int(v.text)]
                    elif t == "inlineStr":
                        val = "".join(x.text or "" for x in c.iter("{%s}t" % NS["m"]))
                    elif t == "str":
                        val = v.text or ""
                    elif t == "b":
                        val = v is not None and v.text == "1"
                    else:
                        val = float(v.text) if v is not None and v.text is not None else None
                    s = int(c.get("s", 0))
                    if idx == 0:
                        ok_head = ok_head and header_style(s)
                    elif filled(s):
                        fill = True
                    cells.append(val)
                rows.append(cells)
            book[name], styled[name], anyfill[name] = rows, ok_head, fill
        return book, order, styled, anyfill


def typed(v):
    return "empty" if v is None or v == "" else "bool" if isinstance(v, bool) else "num" if isinstance(v, (int, float)) else "text"


def same(a, b, rtol):
    if typed(a) != typed(b):
        return False
    if typed(a) == "num":
        return a == b or abs(a - b) <= rtol * max(abs(a), abs(b))
    return typed(a) == "empty" or a == b


def pad(row, n):
    return list(row) + [None] * (n - len(row))


def fix_expected(sheet, rows):
    """msprobe 8.1.0's rows turned into what our listed fixes make of them."""
    head, body = rows[0], [pad(r, len(rows[0])) for r in rows[1:]]
    if sheet == "env":
        swap = {"only bench has this env": "only cmp has this env", "only cmp has this env": "only bench has this env"}
        body = [[swap.get(r[1], r[1]), swap.get(r[0], r[0]), r[3], r[2], r[4]] for r in body]
    elif sheet == "weights":
        body.sort(key=lambda r: (r[0], r[1], r[2].encode()))
    elif sheet == "random":
        body.sort(key=lambda r: (r[1], r[0].encode()))
    return [head] + body


def compare_sheet(sheet, exp, act, rtol=1e-12):
    exp = fix_expected(sheet, exp)
    act = [act[0]] + [pad(r, len(act[0])) for r in act[1:]]
    bad = []
    if exp[0] != act[0]:
        bad.append("header %r != %r" % (act[0], exp[0]))
    if len(exp) != len(act):
        bad.append("%d rows, msprobe %d" % (len(act) - 1, len(exp) - 1))
    for i, (e, a) in enumerate(zip(exp[1:], act[1:]), 2):
        for j, (x, y) in enumerate(zip(e, a)):
            if not same(x, y, rtol):
                bad.append("row %d %s: %r (%s), msprobe %r (%s)" % (i, exp[0][j], y, typed(y), x, typed(x)))
    return bad


def check_packs(corpus, binary, scratch):
    case = os.path.join(corpus, "config_check")
    exp_dir = os.path.join(case, "expected", "compare")
    derived = json.load(open(os.path.join(exp_dir, "result.xlsx.derived.json")))
    exp_book, exp_order, _, _ = read_book(os.path.join(exp_dir, "result.xlsx"))
    out = os.path.join(scratch, "packs")
    r = subprocess.run([binary, "-f", "pytorch", "config_check", "-c", "packs/bench.zip", "packs/cmp.zip", "-o", out,
                        "-q"], cwd=case)
    say(r.returncode == 0, "config_check -c packs/bench.zip packs/cmp.zip exits 0")
    if r.returncode:
        return
    book, order, styled, fills = read_book(os.path.join(out, "result.xlsx"))
    say(order == exp_order, "sheets %s in msprobe's order" % ",".join(order))
    for sheet in exp_order:
        # types come from derived.json (openpyxl's view of msprobe's cells)
        exp_rows = [[c for c in row] for row in derived[sheet]]
        bad = compare_sheet(sheet, exp_rows, book.get(sheet, [[]]))
        # and the values from the xlsx itself
        bad += compare_sheet(sheet, exp_book[sheet], book.get(sheet, [[]]))
        say(not bad and styled.get(sheet) and not fills.get(sheet),
            "sheet %s: %d rows, every cell, type and highlight as msprobe's%s%s" % (
                sheet, len(book.get(sheet, [])) - 1, "" if styled.get(sheet) else " (HEADER STYLE)",
                "" if not bad else ": " + "; ".join(bad[:5])))
    # the sheets no listed fix touches, also through the shared cell-by-cell tool
    tool = os.environ.get("CONFORMANCE_TOOL", os.path.join(os.path.dirname(corpus), "tools", "conformance.py"))
    if os.path.exists(tool):
        for sheet in ("summary", "pip", "dataset", "hyperparameters"):
            r = subprocess.run([sys.executable, tool, os.path.join(exp_dir, "result.xlsx"),
                                os.path.join(out, "result.xlsx"), "--sheet", sheet], capture_output=True, text=True)
            say(r.returncode == 0, "conformance.py --sheet %s: %s" % (sheet, r.stdout.strip().splitlines()[-1]
                                                                      if r.stdout.strip() else r.stderr.strip()))
    # csv: the same cells, one file per sheet
    outc = os.path.join(scratch, "packs_csv")
    r = subprocess.run([binary, "config_check", "-c", "packs/bench.zip", "packs/cmp.zip", "-o", outc, "--format",
                        "csv", "-q"], cwd=case)
    ok = r.returncode == 0
    for sheet in exp_order:
        p = os.path.join(outc, "result_%s.csv" % sheet)
        if not ok or not os.path.exists(p):
            ok = False
            break
        rows = list(csv.reader(open(p, newline="", encoding="utf-8")))
        ref = book[sheet]
        for i, row in enumerate(rows):
            for j, text in enumerate(row):
                v = ref[i][j] if j < len(ref[i]) else None
                want = "" if v is None else ("True" if v else "False") if isinstance(v, bool) else v
                if isinstance(v, float):
                    ok = ok and text != "" and abs(float(text) - v) <= 1e-15 * max(1, abs(v))
                else:
                    ok = ok and text == want
    say(ok, "--format csv: result_<sheet>.csv for every sheet, the cells of the xlsx")


def check_static(corpus, binary, scratch):
    case = os.path.join(corpus, "config_check")
    exp = zipfile.ZipFile(os.path.join(case, "expected", "static", "bench_static_pack.zip"))
    env = {}
    for line in open(os.path.join(case, "bench", "env.txt")):
        k, _, v = line.rstrip("\n").partition("=")
        env[k] = v
    env["MSPROBE_PYTHON"] = ""   # the site-packages scan: this machine's Python is not the corpus'
    env["PYTHONPATH"] = os.path.join(case, "pyenv", "bench")
    out = os.path.join(scratch, "static.zip")
    r = subprocess.run([binary, "-f", "pytorch", "config_check", "-d", "bench/launch_gpt.sh", "bench/gpt_config.yaml",
                        "-o", out, "-q"], cwd=case, env=env)
    say(r.returncode == 0, "config_check -d bench/launch_gpt.sh bench/gpt_config.yaml exits 0")
    if r.returncode:
        return
    z = zipfile.ZipFile(out)
    names = z.namelist()
    say(names == exp.namelist(), "static pack entries %s (msprobe's: %s)" % (names, exp.namelist()))
    name = "hyperparameters/hyperparameters_static.json"
    say(z.read(name) == exp.read(name), "hyperparameters_static.json byte for byte msprobe's")
    ours, theirs = json.loads(z.read("env")), json.loads(exp.read("env"))
    layout = z.read("env").decode() == json.dumps(ours, indent=4)
    skip = {"PATH", "PYTHONPATH", "MSPROBE_PYTHON", "PYTHONHASHSEED", "HCCL_DETERMINISTIC"}
    same_env = {k: v for k, v in ours.items() if k not in skip} == {k: v for k, v in theirs.items() if k not in skip}
    say(layout and same_env, "env: json.dumps(indent=4) layout, the variables msprobe recorded (but those its own "
                             "imports set, and the driver's PATH/PYTHONPATH)")
    pip = z.read("pip").decode().splitlines()
    want = {"transformers=4.40.0", "datasets=2.19.0", "megatron-core=0.6.0"}
    say(want <= set(pip) and all(l.count("=") == 1 for l in pip), "pip: Name=version lines, pyenv/bench's "
                                                                   "distributions among them")
    inter = os.path.join(scratch, "static_vs_msprobe")
    r = subprocess.run([binary, "config_check", "-c", out, os.path.join(case, "expected", "static",
                                                                          "bench_static_pack.zip"), "-o", inter, "-q"])
    say(r.returncode == 0 and os.path.exists(os.path.join(inter, "result.xlsx")),
        "our static pack compares with msprobe's static pack")


def check_ckpt(corpus, binary, scratch):
    case = os.path.join(corpus, "ckpt")
    exp = json.load(open(os.path.join(case, "expected", "tp2", "ckpt_similarity.json")))
    for spelling in (["-f", "pytorch", "config_check", "-c"], ["ckpt_compare"]):
        out = os.path.join(scratch, "ckpt_%d.json" % len(spelling))
        r = subprocess.run([binary] + spelling + ["tp2/ckpt_a", "tp2/ckpt_b", "-o", out, "-q"], cwd=case)
        if r.returncode:
            say(False, "%s exits 0" % " ".join(spelling))
            continue
        act = json.load(open(out))
        bad = []
        if sorted(act) != sorted(exp):
            bad.append("parameters differ")
        for k in exp:
            for m in ("l2", "cos", "numel", "shape"):
                x, y = exp[k][m], act.get(k, {}).get(m)
                if isinstance(x, float) and isinstance(y, float):
                    if not (x == y or abs(x - y) <= 1e-6 * max(abs(x), abs(y))):
                        bad.append("%s %s %r, msprobe %r" % (k, m, y, x))
                elif x != y:
                    bad.append("%s %s %r, msprobe %r" % (k, m, y, x))
        order = list(act) == sorted(act)
        say(not bad and order, "%s tp2/ckpt_a tp2/ckpt_b: %d parameters, l2/cos within 1e-6, numel and shape equal, "
                               "names sorted%s" % (" ".join(spelling), len(act), "" if not bad else ": " +
                                                   "; ".join(bad[:5])))


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    corpus, binary, scratch = argv
    check_packs(corpus, binary, scratch)
    check_static(corpus, binary, scratch)
    check_ckpt(corpus, binary, scratch)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
