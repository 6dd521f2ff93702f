#!/usr/bin/env python3
"""Checks the include structure of the sources (run by `make test`).

lib/ is built in layers that include only downwards:
    base < py < format < model
A subcommand folder (compare/, parse/, ...) includes lib/ and itself, never
cmd/ or another subcommand; cmd/ may include everything. Every quoted
include is a path from the top (``"base/log.h"``, ``"compare/pipeline/x.h"``).
Finally no two modules (a .c with its .h) may include each other, directly
or around a longer loop. Exit status 1 and one line per fault otherwise.
"""
import os
import re
import sys

LAYERS = ["base", "py", "format", "model"]
SUBCOMMANDS = ["compare", "parse", "nan_analyze", "config_check", "monitor", "graph", "train"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(top):
    for root in ["lib", "cmd"] + SUBCOMMANDS:
        for dirpath, _, files in os.walk(os.path.join(top, root)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, f), top)


def resolve(top, inc):
    """The repository path an include names (-Ilib -I.), or None."""
    for base in ("lib", "."):
        p = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(os.path.join(top, p)):
            return p
    return None


def where(path):
    """('lib', layer) / ('sub', name) / ('cmd', None)."""
    parts = path.split(os.sep)
    if parts[0] == "lib":
        return ("lib", parts[1])
    if parts[0] == "cmd":
        return ("cmd", None)
    return ("sub", parts[0])


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "."
    faults = []
    edges = {}
    for src in sources(top):
        kind, name = where(src)
        if kind == "lib" and name not in LAYERS:
            faults.append(f"{src}: lib/{name}/ is not a layer ({', '.join(LAYERS)})")
            continue
        text = open(os.path.join(top, src), encoding="utf-8").read()
        for inc in INCLUDE.findall(text):
            target = resolve(top, inc)
            if target is None:
                faults.append(f'{src}: includes "{inc}", which is no file under lib/ or the top')
                continue
            if "/" not in inc:
                faults.append(f'{src}: includes "{inc}" without its folder')
            tkind, tname = where(target)
            if kind == "lib":
                if tkind != "lib":
                    faults.append(f"{src}: lib/ includes {target}, outside lib/")
                elif LAYERS.index(tname) > LAYERS.index(name):
                    faults.append(f"{src}: upward include of {target} ({name} < {tname})")
            elif kind == "sub" and (tkind == "cmd" or (tkind == "sub" and tname != name)):
                faults.append(f"{src}: the {name} family includes {target}")
            a, b = os.path.splitext(src)[0], os.path.splitext(target)[0]
            if a != b:
                edges.setdefault(a, set()).add(b)
    # cycles between modules (x.c + x.h), by depth-first search
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                loop = stack[stack.index(m):] + [m]
                faults.append("include cycle: " + " -> ".join(loop))
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(edges):
        if n not in state:
            visit(n)
    for f in faults:
        print(f)
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
