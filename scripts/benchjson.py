#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""benchjson - a benchmark's figures as JSON, for the benchmarks document.

Every benchmark target writes build/bench/NAME.json (and NAME-COMMIT.json,
to compare runs) with what scripts/benchdoc.py needs to print its tables
in Documentation/benchmarks.md:

    {"name": "icount", "command": "make bench-icount",
     "commit": "1a2b3c4", "date": "2026-11-29 02:10",
     "host": "2 CPUs, Intel(R) Xeon(R) ..., L2 ..., a KVM guest, load 0.31",
     "tables": [{"title": ..., "head": [...], "rows": [[...], ...],
                 "note": optional text under the table}],
     ... the benchmark's own fields (every raw figure) ...}

From Python: benchjson.write(name, command, tables, **fields). From a
shell script, tables as tab-separated files (a first line "# TITLE", then
the header, then the rows):

    benchjson.py NAME COMMAND FILE.tsv...
"""
import json
import os
import subprocess
import sys
import time

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
OUT = os.path.join(TOP, 'build', 'bench')


def commit():
    """The source tree's commit (with + if it has changes), or 'unknown'."""
    try:
        rev = subprocess.run(['git', '-C', TOP, 'rev-parse', '--short', 'HEAD'],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(['git', '-C', TOP, 'status', '--porcelain', '-uno'],
                               capture_output=True, text=True).stdout.strip()
        return rev + ('+' if dirty else '')
    except (OSError, subprocess.CalledProcessError):
        return 'unknown'


def host():
    """What the figures depend on: the CPUs, their caches, a hypervisor,
    the load when the run started."""
    model, cpus = 'unknown CPU', os.cpu_count() or 0
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    model = ' '.join(line.split(':', 1)[1].split())
                    break
    except OSError:
        pass
    caches, hv = [], ''
    try:
        out = subprocess.run(['lscpu'], capture_output=True, text=True,
                             check=False).stdout
    except OSError:
        out = ''
    for line in out.splitlines():
        key, _, val = line.partition(':')
        val = val.strip().split(' (')[0]
        if key.strip() in ('L2 cache', 'L3 cache'):
            caches.append(f'{key.strip()[:2]} {val}')
        elif key.strip() == 'Hypervisor vendor':
            hv = val
    try:
        load = open('/proc/loadavg').read().split()[0]
    except OSError:
        load = '?'
    return ', '.join([f'{cpus} CPUs', model] + caches +
                     ([f'a {hv} guest'] if hv else []) + [f'load {load}'])


def write(name, command, tables, **fields):
    """The JSON of a run as build/bench/NAME.json and NAME-COMMIT.json;
    the first's path."""
    doc = dict(fields)
    doc.setdefault('commit', commit())
    doc.setdefault('date', time.strftime('%Y-%m-%d %H:%M'))
    doc.setdefault('host', host())
    doc.update(name=name, command=command, tables=tables)
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, f'{name}.json')
    for p in (path, os.path.join(OUT, f'{name}-{doc["commit"]}.json')):
        with open(p, 'w') as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write('\n')
    return path


def read_tsv(path):
    """A table from a tab-separated file: "# TITLE", the header, the rows."""
    with open(path) as f:
        lines = [line.rstrip('\n') for line in f if line.strip()]
    if not lines or not lines[0].startswith('# '):
        raise ValueError(f'{path}: no "# TITLE" line first')
    table = {'title': lines[0][2:], 'head': lines[1].split('\t'),
             'rows': [line.split('\t') for line in lines[2:]]}
    if any(len(r) != len(table['head']) for r in table['rows']):
        raise ValueError(f'{path}: a row whose cells are not the header\'s')
    return table


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        tables = [read_tsv(p) for p in argv[2:]]
    except (OSError, ValueError) as e:
        print(f'benchjson: {e}', file=sys.stderr)
        return 1
    print(f'# written to {os.path.relpath(write(argv[0], argv[1], tables), TOP)}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
