#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""benchdoc - the figures of Documentation/benchmarks.md, from the last run
of each benchmark.

Reads build/bench/NAME.json (scripts/benchjson.py) of each benchmark below
and writes, between the document's two marker lines, a section per
benchmark: the command, the host, the date and the commit of its last run,
then its tables. A benchmark never run on this machine keeps the section
of its last run as the document has it. So the document holds one table
per benchmark, each the latest, and never a history.

    benchdoc.py [--json DIR] [--doc FILE] [--check]

--check: exit 1 (saying which) if the document's sections are not what
the JSON gives, without writing.
"""
import argparse
import json
import os
import re
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
BEGIN = '<!-- BEGIN figures: scripts/benchdoc.py writes this part (make bench-doc) -->'
END = '<!-- END figures -->'
# The benchmarks, in the document's order: (JSON name, what it measures)
BENCHES = [
    ('icount', 'What tracing adds to faults and region changes, in instructions '
               '(x86_64 and arm64, QEMU TCG with -icount: two boots each).'),
    ('peers', 'pgfault_history beside perf record, perf trace and bpftrace, the '
              'same workloads in the same boot (x86_64, QEMU TCG).'),
    ('quick', 'The same on UML in wall-clock time, two boots: a before/after in '
              'minutes.'),
    ('results', 'The full benchmark: both architectures, patched and unpatched '
                'kernels, the record path against an ftrace event, drain rates, '
                'memory, region changes up to 60,000 VMAs, re-reference and '
                'sampling costs.'),
    ('run', 'pgfault-run from start to exit, against the program run natively.'),
    ('tools', 'pgfreport\'s throughput, text and binary traces, and the cache '
              'analyses alone.'),
    ('html', 'pgfreport html at scale, and a browser drawing it.'),
]


def cell(c):
    return str(c).replace('|', '\\|').replace('\n', ' ')


def section(doc, what):
    """The markdown of one benchmark's last run."""
    out = [f'### `{doc["command"]}`: {doc["name"]}', '', what, '',
           f'Host: {doc["host"]}. Run: {doc["date"]}, commit `{doc["commit"]}`.', '']
    for t in doc['tables']:
        if t.get('title'):
            out += [f'**{cell(t["title"])}**', '']
        out.append('| ' + ' | '.join(cell(h) for h in t['head']) + ' |')
        out.append('|' + '|'.join(' --- ' for _ in t['head']) + '|')
        for r in t['rows']:
            out.append('| ' + ' | '.join(cell(c) for c in r) + ' |')
        out.append('')
        if t.get('note'):
            out += [cell(t['note']), '']
    return out


def split_doc(text):
    """The document around its figures, and the figures' sections by name."""
    if BEGIN not in text or END not in text:
        raise ValueError(f'no "{BEGIN}" ... "{END}" part')
    head, rest = text.split(BEGIN, 1)
    body, tail = rest.split(END, 1)
    old = {}
    for part in re.split(r'\n(?=### `)', body):
        m = re.match(r'### `[^`]*`: (\w+)', part)
        if m:
            old[m.group(1)] = part.strip('\n').split('\n')
    return head, old, tail


def render(json_dir, old):
    out, missing = [], []
    for name, what in BENCHES:
        path = os.path.join(json_dir, f'{name}.json')
        try:
            with open(path) as f:
                doc = json.load(f)
            lines = section(doc, what)
        except (OSError, ValueError, KeyError):
            lines = old.get(name)
            if not lines:
                missing.append(name)
                continue
            lines = lines + ['']
        out += lines
    return out, missing


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--json', default=os.path.join(TOP, 'build', 'bench'))
    ap.add_argument('--doc', default=os.path.join(TOP, 'Documentation', 'benchmarks.md'))
    ap.add_argument('--check', action='store_true')
    a = ap.parse_args()
    with open(a.doc) as f:
        text = f.read()
    try:
        head, old, tail = split_doc(text)
    except ValueError as e:
        print(f'benchdoc: {a.doc}: {e}', file=sys.stderr)
        return 1
    lines, missing = render(a.json, old)
    new = head + BEGIN + '\n\n' + '\n'.join(lines).rstrip('\n') + '\n\n' + END + tail
    for name in missing:
        print(f'benchdoc: no run of {name} ({name}.json) and none in the document',
              file=sys.stderr)
    if a.check:
        if new != text:
            print(f'benchdoc: {a.doc} is not what the runs in {a.json} give '
                  '(make bench-doc)', file=sys.stderr)
            return 1
        return 0
    if new != text:
        with open(a.doc, 'w') as f:
            f.write(new)
        print(f'benchdoc: {os.path.relpath(a.doc, TOP)} written')
    return 0


if __name__ == '__main__':
    sys.exit(main())
