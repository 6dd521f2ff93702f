#!/usr/bin/env python3
"""Every `msprobe graph_visualize` run of ../shared/corpus/*/expected/
graph_newest (the newest msprobe's .vis.db) reproduced with our binary and
compared in schema and structure: the tables, columns and indexes as
sqlite_master holds them; every node of tb_nodes by its id -- graph, order,
name, type, parent, children, micro step, matched and distributed links,
source, dump_data_dir, step, rank, the distributed flag, its overflow level,
the names of its inputs and outputs, its stack (through tb_stack) -- and
tb_config's graph type, task, micro steps, overflow check, ranks and steps.
Node values, precision indexes, the tool tips and the legend are ours (those
of msprobe 8.1.0's .vis) and are not compared. A run msprobe refused must
fail here too (non-zero status, nothing left).

usage: conformance_graph_db.py BINARY CORPUS_DIR
"""
import json
import os
import re
import shlex
import sqlite3
import subprocess
import sys
import tempfile

SAME = ['graph_id', 'node_order', 'node_name', 'node_type', 'up_node', 'sub_nodes', 'overflow_level',
        'micro_step_id', 'matched_node_link', 'parallel_merge_info', 'matched_distributed', 'modified',
        'data_source', 'dump_data_dir', 'step', 'rank', 'is_distributed']
CONFIG = ['id', 'graph_type', 'task', 'micro_steps', 'overflow_check', 'rank_list', 'step_list']


def read(path):
    c = sqlite3.connect(path)
    c.row_factory = sqlite3.Row
    schema = [tuple(r) for r in c.execute('select type, name, tbl_name, sql from sqlite_master')]
    stacks = {r['id']: r['stack_info'] for r in c.execute('select * from tb_stack')}
    nodes = {}
    for r in c.execute('select * from tb_nodes'):
        d = {k: r[k] for k in SAME}
        # an absolute path where the dump was when it ran: from the corpus on
        if d['dump_data_dir'] and '/corpus/' in d['dump_data_dir']:
            d['dump_data_dir'] = d['dump_data_dir'][d['dump_data_dir'].index('/corpus/'):]
        d['stack'] = stacks.get(r['stack_id'])
        d['inputs'] = list(json.loads(r['input_data']))
        d['outputs'] = list(json.loads(r['output_data']))
        nodes[r['id']] = d
    config = [{k: r[k] for k in CONFIG} for r in c.execute('select * from tb_config')]
    c.close()
    return schema, nodes, config


def compare(ours, theirs):
    problems = []
    so, no, co = read(ours)
    st, nt, ct = read(theirs)
    if so != st:
        problems.append(f'schema: {so} vs {st}')
    if set(no) != set(nt):
        problems.append(f'nodes: only ours {sorted(set(no) - set(nt))[:5]}, only theirs '
                        f'{sorted(set(nt) - set(no))[:5]}')
    for k in sorted(set(no) & set(nt)):
        for f in no[k]:
            if no[k][f] != nt[k][f]:
                problems.append(f'{k}: {f} {no[k][f]!r:.200} vs {nt[k][f]!r:.200}')
                if len(problems) > 12:
                    return problems
    if co != ct:
        problems.append(f'tb_config: {co} vs {ct}')
    return problems


def main():
    binary, corpus = os.path.abspath(sys.argv[1]), sys.argv[2]
    failed = checked = 0
    for case in sorted(os.listdir(corpus)):
        cmds = os.path.join(corpus, case, 'expected', 'graph_newest', 'commands.txt')
        if not os.path.exists(cmds):
            continue
        for line in open(cmds, encoding='utf-8'):
            m = re.match(r'GRAPH_VISUALIZE (\S+) \(cwd=<case>\) rc=(\d+) : (.*)$', line.strip())
            if not m:
                continue
            run, rc, argv = m.group(1), int(m.group(2)), shlex.split(m.group(3))
            rundir = os.path.join(corpus, case, 'expected', 'graph_newest', run)
            want = [f for f in os.listdir(rundir) if f.endswith('.vis.db')] if os.path.isdir(rundir) else []
            if rc == 0 and not want:
                continue   # msprobe's run left no database in the corpus
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, 'out')
                argv[argv.index('-o') + 1] = out
                p = subprocess.run([binary] + argv[1:] + ['-q'], cwd=os.path.join(corpus, case),
                                   capture_output=True, text=True)
                checked += 1
                problems = []
                if rc != 0:
                    if p.returncode == 0:
                        problems.append('msprobe failed, we succeeded')
                    if os.path.exists(out) and os.listdir(out):
                        problems.append(f'left {os.listdir(out)}')
                elif p.returncode != 0:
                    problems.append(f'exit {p.returncode}: {p.stderr.strip()}')
                else:
                    have = [f for f in os.listdir(out) if f.endswith('.vis.db')]
                    if len(have) != 1 or set(os.listdir(out)) != set(have):
                        problems.append(f'wrote {os.listdir(out)}')
                    else:
                        problems += compare(os.path.join(out, have[0]), os.path.join(rundir, want[0]))
                if problems:
                    failed += 1
                    print(f'FAIL {case}/{run}: ' + '\n    '.join(problems))
    print(f'graph .vis.db conformance: {checked - failed}/{checked} runs as the newest msprobe ({os.path.basename(os.path.normpath(corpus))})')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
