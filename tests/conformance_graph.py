#!/usr/bin/env python3
"""Every msprobe 8.1.0 `graph` run of ../shared/corpus/*/expected/graph
reproduced with our binary and compared with msprobe's .vis files as data:
the same keys in the same order, the same values (the fixes listed in the
README's differences aside, see `fixes` below).

usage: conformance_graph.py BINARY CORPUS_DIR [CASE/RUN ...]
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

STAMP = re.compile(r'_\d{14}(\.vis)$')


def load_pairs(path):
    with open(path, encoding='utf-8') as f:
        return json.load(f, object_pairs_hook=lambda kv: ('__obj__', kv),
                         parse_constant=lambda c: ('__const__', c))


def diff(a, b, where, out, limit=8):
    if len(out) >= limit:
        return
    if isinstance(a, tuple) and a and a[0] == '__obj__' and isinstance(b, tuple) and b and b[0] == '__obj__':
        ka = [k for k, _ in a[1]]
        kb = [k for k, _ in b[1]]
        if ka != kb:
            out.append(f'{where}: keys {ka[:12]} vs {kb[:12]}')
            return
        for (k, va), (_, vb) in zip(a[1], b[1]):
            diff(va, vb, f'{where}/{k}', out, limit)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f'{where}: {len(a)} items vs {len(b)}: {str(a)[:200]} vs {str(b)[:200]}')
            return
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, f'{where}[{i}]', out, limit)
        return
    if type(a) != type(b) or a != b:
        out.append(f'{where}: {a!r} vs {b!r}')


def get(obj, key):
    for k, v in obj[1]:
        if k == key:
            return v
    return None


def put(obj, key, value):
    for i, (k, _) in enumerate(obj[1]):
        if k == key:
            obj[1][i] = (k, value)
            return


def apply_fixes(vis):
    """msprobe's .vis with the README's fixes applied, where the corpus shows
    them: tensor mode sets a root-level collection's index before the tensor
    metrics are known, so always 0 (spec §10 #1); ours is the largest of its
    APIs' indexes, as in the other modes."""
    if get(vis, 'task') != 'all':
        return vis
    nodes = get(get(vis, 'NPU'), 'node')
    root = get(nodes, 'DefaultModel')
    for child in get(root, 'subnodes'):
        node = get(nodes, child)
        if get(node, 'node_type') != 9:
            continue
        index = 0
        for api in get(node, 'subnodes'):
            v = get(get(get(nodes, api), 'data'), 'precision_index')
            v = 0 if v is None else v
            index = v if v > index else index
        data = get(node, 'data')
        put(data, 'precision_index', index)
    return vis


def runs(corpus):
    for case in sorted(os.listdir(corpus)):
        cmds = os.path.join(corpus, case, 'expected', 'graph', 'commands.txt')
        if not os.path.exists(cmds):
            continue
        for line in open(cmds, encoding='utf-8'):
            m = re.match(r'GRAPH (\S+) \(cwd=<case>\) rc=(\d+) : (.*)$', line.strip())
            if m:
                yield case, m.group(1), int(m.group(2)), m.group(3)


def main():
    binary, corpus = os.path.abspath(sys.argv[1]), sys.argv[2]
    only = set(sys.argv[3:])
    failed = checked = 0
    for case, run, rc, cmd in runs(corpus):
        if only and f'{case}/{run}' not in only:
            continue
        casedir = os.path.join(corpus, case)
        rundir = os.path.join(casedir, 'expected', 'graph', run)
        argv = shlex.split(cmd)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, 'out')
            # our output goes to a fresh directory, the rest of the line as msprobe ran it
            i = argv.index('-o')
            argv[i + 1] = out
            argv = [binary] + argv[1:] + ['-q']
            if '--no-such-option' in argv:
                pass
            p = subprocess.run(argv, cwd=casedir, capture_output=True, text=True)
            checked += 1
            problems = []
            if rc != 0:
                if p.returncode == 0:
                    problems.append(f'msprobe failed (rc {rc}), we succeeded')
                if os.path.exists(out) and os.listdir(out):
                    problems.append(f'output left: {os.listdir(out)}')
                lines = p.stderr.splitlines()
                if rc == 2 and len(lines) == 2 and lines[1].startswith('Try '):
                    lines = lines[:1]   # a usage error points to --help
                if len(lines) != 1:
                    problems.append(f'stderr is not one line: {p.stderr!r}')
            else:
                if p.returncode != 0:
                    problems.append(f'exit {p.returncode}: {p.stderr.strip()}')
                else:
                    want = sorted(f for f in os.listdir(rundir) if f.endswith('.vis'))
                    have = sorted(os.listdir(out))
                    wn = [STAMP.sub(r'\1', f) for f in want]
                    hn = [STAMP.sub(r'\1', f) for f in have]
                    if wn != hn:
                        problems.append(f'files {hn} vs msprobe {wn}')
                    for w, h in zip(want, have):
                        a = load_pairs(os.path.join(out, h))
                        b = apply_fixes(load_pairs(os.path.join(rundir, w)))
                        d = []
                        diff(a, b, w, d)
                        problems += d
            if problems:
                failed += 1
                print(f'FAIL {case}/{run}: ' + '\n    '.join(problems))
    print(f'graph conformance: {checked - failed}/{checked} runs as msprobe ({os.path.basename(os.path.normpath(corpus))})')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
