#!/usr/bin/env python3
"""Checks the include structure of the sources (run by `make test`).

    check_layers.py [TOP] [--strict]

lib/ is built in layers that include only downwards:
    base < py < format < model
A subcommand family is a folder at the top holding a commands.h (compare/,
parse/, ...: the same list the Makefile builds). It includes lib/ and
itself, never cmd/ or another family; cmd/ may include everything. Every
quoted include is a path from the top (``"base/log.h"``,
``"compare/pipeline/x.h"``).

Inside a family, its sub-folders are layers too. A family with more than
one of them lists them, lowest first, in <family>/LAYERS (one name a line,
``#`` starts a comment); a file includes only its own sub-folder and those
listed before it, and the family's top files (cmd_*.c, commands.h) sit
above all of them. A family without LAYERS gets the order its includes
imply: its sub-folders may not include each other around a loop.
A line ``known A -> B`` of LAYERS names an arrow from sub-folder A to B
that is known to be wrong and is being removed: it is reported and does
not fail the check, unless --strict is given (a known arrow that is gone
is reported too, so that its line is deleted).

A function is declared in a header of the folder whose .c defines it (a
header that promises another folder's function is an arrow to that folder
that no include shows). Finally no two modules (a .c with its .h) may
include each other, directly or around a longer loop. A top folder with C
sources that is neither lib/, cmd/, tests/ nor a family (no commands.h) is
a fault too: nothing would build it. Exit status 1 and one line per fault.
"""
import os
import re
import sys

LAYERS = ["base", "py", "format", "model"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
# A function definition at the start of a line (the style of every .c here:
# return type, name and parameters, then the body), and a prototype in a
# header; static and inline helpers are no one else's business.
DEFINITION = re.compile(r"^(?!static\b)(?!typedef\b)[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\{", re.M)
PROTOTYPE = re.compile(r"^(?:extern\s+)?(?!static\b)(?!typedef\b)(?!return\b)[A-Za-z_][\w \t*]*?[\s*]"
                       r"([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(?:__attribute__\s*\(\(.*?\)\)\s*)?;", re.M)


def families(top):
    """The subcommand families: the top folders holding a commands.h."""
    return sorted(d for d in os.listdir(top)
                  if os.path.isfile(os.path.join(top, d, "commands.h")))


def orphans(top, fams):
    """Top folders with C sources that nothing builds."""
    known = {"lib", "cmd", "tests"} | set(fams)
    for d in sorted(os.listdir(top)):
        if d in known or d.startswith((".", "build")) or not os.path.isdir(os.path.join(top, d)):
            continue
        for _, _, files in os.walk(os.path.join(top, d)):
            if any(f.endswith((".c", ".h")) for f in files):
                yield d
                break


def sources(top, fams):
    for root in ["lib", "cmd"] + fams:
        for dirpath, dirs, files in os.walk(os.path.join(top, root)):
            dirs.sort()
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
    """('lib', layer) / ('sub', family) / ('cmd', None)."""
    parts = path.split(os.sep)
    if parts[0] == "lib":
        return ("lib", parts[1])
    if parts[0] == "cmd":
        return ("cmd", None)
    return ("sub", parts[0])


def room(path):
    """The sub-folder of its family a file is in; None for the top files."""
    parts = path.split(os.sep)
    return parts[1] if len(parts) > 2 else None


class Family:
    """A family's declared sub-folder order (LAYERS) and known arrows."""

    def __init__(self, top, name):
        self.name = name
        self.file = os.path.join(name, "LAYERS")
        self.order = None
        self.known = {}          # (a, b) -> used?
        self.faults = []
        path = os.path.join(top, self.file)
        if not os.path.isfile(path):
            return
        self.order = []
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            m = re.fullmatch(r"known\s+(\w+)\s*->\s*(\w+)", line)
            if m:
                self.known[(m.group(1), m.group(2))] = False
            elif re.fullmatch(r"\w+", line) and line not in self.order:
                self.order.append(line)
            else:
                self.faults.append(f"{self.file}:{n}: '{line}' is neither a sub-folder name nor 'known A -> B'")
        # known arrows alone: the order is still the one the includes imply
        self.order = self.order or None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    strict = "--strict" in sys.argv[1:]
    top = args[0] if args else "."
    fams = families(top)
    rules = {f: Family(top, f) for f in fams}
    faults, known = [], []
    for d in orphans(top, fams):
        faults.append(f"{d}/ holds C sources but no commands.h: it is no family, and nothing builds it")
    for fam in rules.values():
        faults += fam.faults

    def arrow(fam, a, b, text):
        """A fault between sub-folders a -> b of fam: known or not."""
        if (a, b) in fam.known and not strict:
            fam.known[(a, b)] = True
            known.append(f"known (being removed, {fam.file}): {text}")
        else:
            faults.append(text)

    edges = {}
    rooms = {}               # family -> {(a, b): an example "x includes y"}
    rooms_seen = {}          # family -> sub-folders with sources
    defined, declared = {}, {}
    for src in sources(top, fams):
        kind, name = where(src)
        if kind == "lib" and name not in LAYERS:
            faults.append(f"{src}: lib/{name}/ is not a layer ({', '.join(LAYERS)})")
            continue
        text = open(os.path.join(top, src), encoding="utf-8").read()
        code = COMMENT.sub("", text)
        found = DEFINITION if src.endswith(".c") else PROTOTYPE
        for m in found.finditer(code):
            (defined if src.endswith(".c") else declared).setdefault(m.group(1), []).append(src)
        here = room(src) if kind == "sub" else None
        if here is not None:
            rooms_seen.setdefault(name, set()).add(here)
            fam = rules[name]
            if fam.order is not None and here not in fam.order:
                faults.append(f"{src}: {name}/{here}/ is not listed in {fam.file}")
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
            elif kind == "sub" and here is not None:
                there = room(target)
                fam = rules[name]
                if there is None:
                    faults.append(f"{src}: upward include of {target} (a family's top files are above "
                                  f"its sub-folders)")
                elif there != here:
                    rooms.setdefault(name, {}).setdefault((here, there), f"{src} includes {target}")
                    if (fam.order is not None and there in fam.order and here in fam.order
                            and fam.order.index(there) > fam.order.index(here)):
                        arrow(fam, here, there, f"{src}: upward include of {target} "
                                                f"({here} < {there} in {fam.file})")
            a, b = os.path.splitext(src)[0], os.path.splitext(target)[0]
            if a != b:
                edges.setdefault(a, set()).add(b)

    # a function declared in one folder and defined in another
    for fn, headers in sorted(declared.items()):
        for h in headers:
            for c in defined.get(fn, []):
                if os.path.dirname(c) == os.path.dirname(h):
                    continue
                text = (f"{h}: declares {fn}(), which {c} defines (a function is declared in a "
                        f"header of its own folder)")
                kind, name = where(h)
                if kind == "sub" and where(c) == ("sub", name) and room(h) and room(c):
                    arrow(rules[name], room(h), room(c), text)
                else:
                    faults.append(text)

    # families without LAYERS: no loop between their sub-folders
    for name, pairs in sorted(rooms.items()):
        fam = rules[name]
        if fam.order is not None:
            continue
        graph = {}
        for a, b in pairs:
            graph.setdefault(a, set()).add(b)
        for loop in cycles(graph):
            steps = "; ".join(pairs[(x, y)] for x, y in zip(loop, loop[1:]))
            text = f"{name}/: sub-folders include each other: {' -> '.join(loop)} ({steps})"
            if all((x, y) in fam.known for x, y in zip(loop, loop[1:])) and not strict:
                for x, y in zip(loop, loop[1:]):
                    fam.known[(x, y)] = True
                known.append(f"known (being removed, {fam.file}): {text}")
            else:
                faults.append(text)

    for fam in rules.values():
        for (a, b), used in sorted(fam.known.items()):
            if not used and not strict:
                known.append(f"{fam.file}: the known arrow {a} -> {b} is gone: delete its line")

    # cycles between modules (x.c + x.h)
    for loop in cycles(edges):
        faults.append("include cycle: " + " -> ".join(loop))
    for k in known:
        print(k)
    for f in faults:
        print(f)
    return 1 if faults else 0


def cycles(graph):
    """The loops a depth-first search meets, each as [n, ..., n]."""
    state, stack, found = {}, [], []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                found.append(stack[stack.index(m):] + [m])
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n)
    return found


if __name__ == "__main__":
    sys.exit(main())
