#!/usr/bin/env python3
"""Cell-by-cell comparison of a compare result with the newest msprobe's own.

usage: conformance_newest.py EXPECTED ACTUAL [--rtol R] [--show N] [--tool PATH]

EXPECTED and ACTUAL are both csv or both xlsx (the newest msprobe writes csv
by default, xlsx with --xlsx). Rules, stricter than ../shared/tools/
conformance.py's (whose xlsx reader and number rule are used):
  - headers identical, rows compared in order, sheet names identical (xlsx);
  - csv: each cell's text must be equal, except that two cells that are both
    floats (or both percentages "<float>%") are equal within rtol; an int
    never equals a float ("0" is not "0.0");
  - xlsx: each cell's type (text, number, bool, empty) must be equal, texts
    by the csv rule, numbers within rtol; the row highlights must be equal.
The last line printed is the summary; exit 0 when everything is equal, 1
otherwise, 2 on unreadable input.
"""
import csv
import math
import os
import re
import sys
import zipfile
import xml.etree.ElementTree as ET

NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
REL_NS = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
INT_RE = re.compile(r"^[+-]?\d+$")


def load_tool(path):
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    import conformance  # noqa: E402  (../shared/tools/conformance.py)
    return conformance


def col_index(ref):
    n = 0
    for ch in re.match(r"[A-Z]+", ref).group(0):
        n = n * 26 + (ord(ch) - 64)
    return n - 1


def read_xlsx_typed(path):
    """{sheet name: rows of (type, value)}, type in text/num/bool, None for an empty cell."""
    with zipfile.ZipFile(path) as z:
        shared = []
        if "xl/sharedStrings.xml" in z.namelist():
            for si in ET.fromstring(z.read("xl/sharedStrings.xml")).findall("m:si", NS):
                shared.append("".join(t.text or "" for t in si.iter("{%s}t" % NS["m"])))
        wb = ET.fromstring(z.read("xl/workbook.xml"))
        rels = ET.fromstring(z.read("xl/_rels/workbook.xml.rels"))
        targets = {r.get("Id"): r.get("Target") for r in rels}
        sheets = []
        for sh in wb.findall("m:sheets/m:sheet", NS):
            target = targets[sh.get(REL_NS)].lstrip("/")
            if not target.startswith("xl/"):
                target = "xl/" + target
            rows = []
            for r in ET.fromstring(z.read(target)).findall("m:sheetData/m:row", NS):
                idx = int(r.get("r")) - 1
                while len(rows) < idx:
                    rows.append([])
                cells = []
                for c in r.findall("m:c", NS):
                    ci = col_index(c.get("r"))
                    while len(cells) < ci:
                        cells.append(None)
                    t = c.get("t")
                    v = c.find("m:v", NS)
                    if t == "s":
                        cell = ("text", shared[int(v.text)])
                    elif t == "inlineStr":
                        cell = ("text", "".join(x.text or "" for x in c.iter("{%s}t" % NS["m"])))
                    elif t == "str":
                        cell = ("text", v.text if v is not None and v.text else "")
                    elif t == "b":
                        cell = ("bool", v is not None and v.text == "1")
                    elif v is None or v.text is None:
                        cell = None
                    else:
                        cell = ("num", float(v.text))
                    if cell is not None and cell[0] == "text" and cell[1] == "":
                        cell = None
                    cells.append(cell)
                rows.append(cells)
            sheets.append((sh.get("name"), rows))
        return sheets


def float_text(s):
    if INT_RE.match(s):
        return None
    try:
        x = float(s)
    except ValueError:
        return None
    if s.strip().lower() in ("nan", "inf", "-inf", "infinity", "-infinity"):
        return None
    return x


def close(a, b, rtol):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return a == b or abs(a - b) <= rtol * max(abs(a), abs(b))


def text_equal(a, b, rtol):
    if a == b:
        return True
    pa, pb = a.endswith("%"), b.endswith("%")
    if pa != pb:
        return False
    if pa:
        a, b = a[:-1], b[:-1]
    fa, fb = float_text(a), float_text(b)
    return fa is not None and fb is not None and close(fa, fb, rtol)


def cell_equal(e, a, rtol):
    if e is None or a is None:
        return e is None and a is None
    if e[0] != a[0]:
        return False
    if e[0] == "num":
        return close(e[1], a[1], rtol)
    if e[0] == "bool":
        return e[1] == a[1]
    return text_equal(e[1], a[1], rtol)


def show(c):
    if c is None:
        return "<empty>"
    return "%s %r" % (c[0], c[1])


def compare_rows(exp, act, rtol, where, problems, by_col, counts):
    header = [show(x) for x in exp[0]] if exp else []
    if [show(x) for x in (act[0] if act else [])] != header:
        problems.append("%sheader differs:\n  expected %s\n  actual   %s" % (
            where, header, [show(x) for x in (act[0] if act else [])]))
    for i in range(1, max(len(exp), len(act))):
        er = exp[i] if i < len(exp) else None
        ar = act[i] if i < len(act) else None
        if er is None or ar is None:
            problems.append("%srow %d: %s" % (where, i + 1, "missing in actual" if ar is None else "extra in actual"))
            continue
        for j in range(max(len(er), len(ar), len(header))):
            e = er[j] if j < len(er) else None
            a = ar[j] if j < len(ar) else None
            counts[0] += 1
            if cell_equal(e, a, rtol):
                counts[1] += 1
            else:
                name = exp[0][j][1] if j < len(exp[0]) and exp[0][j] else "col%d" % (j + 1)
                by_col[name] = by_col.get(name, 0) + 1
                problems.append("%srow %d [%s] %s: expected %s, actual %s" % (
                    where, i + 1, er[0][1] if er and er[0] else "", name, show(e), show(a)))


def read_csv_typed(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = [list(r) for r in csv.reader(f)]
    return [[("text", c) if c != "" else None for c in r] for r in rows]


def main(argv):
    args, rtol, nshow = [], 1e-9, 20
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "tools", "conformance.py")
    it = iter(argv)
    for a in it:
        if a == "--rtol":
            rtol = float(next(it))
        elif a == "--show":
            nshow = int(next(it))
        elif a == "--tool":
            tool = next(it)
        else:
            args.append(a)
    if len(args) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    exp_path, act_path = args
    problems, by_col, counts = [], {}, [0, 0]
    fills_bad = None
    try:
        if exp_path.endswith(".csv"):
            if not act_path.endswith(".csv"):
                print("conformance: expected csv, actual %s" % act_path, file=sys.stderr)
                return 2
            compare_rows(read_csv_typed(exp_path), read_csv_typed(act_path), rtol, "", problems, by_col, counts)
        else:
            ref = load_tool(tool)
            es, as_ = read_xlsx_typed(exp_path), read_xlsx_typed(act_path)
            if [n for n, _ in es] != [n for n, _ in as_]:
                problems.append("sheets differ: expected %s, actual %s" % ([n for n, _ in es], [n for n, _ in as_]))
            for (name, exp), (_, act) in zip(es, as_):
                compare_rows(exp, act, rtol, "" if len(es) == 1 else "[%s] " % name, problems, by_col, counts)
            fills_bad = 0
            for name, _ in es:
                _, ef = ref.read_xlsx(exp_path, name)
                try:
                    _, af = ref.read_xlsx(act_path, name)
                except ValueError:
                    continue
                for i in range(1, min(len(ef), len(af))):
                    if ef[i] != af[i]:
                        fills_bad += 1
                        problems.append("row %d highlight: expected %r, actual %r" % (i + 1, ef[i] or "none",
                                                                                     af[i] or "none"))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, ET.ParseError, ImportError) as e:
        print("conformance: cannot read input: %s" % e, file=sys.stderr)
        return 2
    for p in problems[:nshow]:
        print(p)
    if len(problems) > nshow:
        print("... %d more" % (len(problems) - nshow))
    if by_col:
        print("differing cells by column: " + ", ".join("%s=%d" % kv for kv in sorted(by_col.items(), key=lambda kv: -kv[1])))
    total, same = counts
    pct = 100.0 * same / total if total else 100.0
    hl = "" if fills_bad is None else ", rows with a different highlight: %d" % fills_bad
    print("cells equal: %d/%d (%.2f%%)%s" % (same, total, pct, hl))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
