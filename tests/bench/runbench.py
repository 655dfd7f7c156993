#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What pgfault-run costs from start to exit: a few programs of the host
run natively, then under pgfault-run in the UML guest and in the x86_64
guest (the benchmark kernels, its defaults), RUNS times each, one after
another; the fastest and slowest of each. The table also goes to
build/bench/run.json (scripts/benchjson.py).

    tests/bench/runbench.py [RUNS]          (make bench-run)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
import benchjson  # noqa: E402

RUN = os.path.join(TOP, 'scripts', 'pgfault-run')
PROGRAMS = [['/bin/true'], ['python3', '-c', 'pass'],
            ['sh', '-c', 'ls -R /usr/include > /dev/null']]


def timed(argv, cwd):
    t = time.monotonic()
    p = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=1800, check=False)
    if p.returncode:
        raise RuntimeError(f'{" ".join(argv)}: status {p.returncode}: {p.stderr.strip()}')
    return time.monotonic() - t


def span(v):
    return f'{min(v):.2f}' if len(v) == 1 else f'{min(v):.2f}–{max(v):.2f}'


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for prog in PROGRAMS:
            if not shutil.which(prog[0]):
                continue
            row = [' '.join(prog)]
            for how in ([], ['--arch', 'um'], ['--arch', 'x86_64']):
                argv = prog if not how else \
                    [RUN, '-q', '--force', '-o', os.path.join(d, 't.trace'), *how, '--', *prog]
                row.append(span([timed(argv, d) for _ in range(runs)]))
            rows.append(row)
            print(' | '.join(row), flush=True)
    path = benchjson.write('run', 'make bench-run', [{
        'title': f'seconds from start to exit, fastest–slowest of {runs} runs: '
                 'natively, and under pgfault-run -q (its benchmark kernels; '
                 'x86_64 on QEMU, TCG where KVM does not work)',
        'head': ['program', 'native', 'pgfault-run, UML', 'pgfault-run, x86_64'],
        'rows': rows}])
    print(f'# written to {os.path.relpath(path, TOP)}')


main()
