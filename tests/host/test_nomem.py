# SPDX-License-Identifier: GPL-2.0
"""pgfreport out of memory: its library (tools/lib, and tools/pgfreport but
the front end's main()) never calls exit() or abort(), and every report,
its allocations failing from the Nth on (build/host/failmalloc.so), says so
and exits with 125, its own failure, or finishes: never a crash, an
abort, or a trace called bad for want of memory."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main  # noqa: E402
from tracelib import BIN, TOP, TREE, write  # noqa: E402

PGFREPORT = os.path.join(BIN, 'pgfreport')
FAILMALLOC = os.path.join(TOP, 'build', 'host', 'failmalloc.so')


@test
def the_library_never_exits():
    calls = re.compile(r'(?<![\w.>])(exit|_exit|abort)\s*\(')
    for d in ('tools/lib', 'tools/pgfreport'):
        for f in sorted(os.listdir(os.path.join(TOP, d))):
            if not f.endswith(('.c', '.h')) or (d, f) == ('tools/pgfreport', 'pgfreport.c'):
                continue
            text = open(os.path.join(TOP, d, f)).read()
            # comments are not calls
            text = re.sub(r'/\*.*?\*/|//[^\n]*', '', text, flags=re.S)
            for n, line in enumerate(text.splitlines(), 1):
                assert not calls.search(line), f'{d}/{f}:{n}: {line.strip()}'


def run(args, fail_after=None, count=None):
    env = dict(os.environ, LD_PRELOAD=FAILMALLOC)
    if fail_after is not None:
        env['PGF_FAIL_AFTER'] = str(fail_after)
    if count:
        env['PGF_FAIL_COUNT'] = count
    return subprocess.run([PGFREPORT, *args], capture_output=True, text=True,
                          env=env, timeout=120)


@test
def every_report_fails_cleanly_wherever_memory_runs_out():
    with tempfile.TemporaryDirectory() as d:
        gen = os.path.join(d, 'g.trace')
        with open(gen, 'w') as f:
            subprocess.run([os.path.join(BIN, 'gentrace'), '2000'], stdout=f,
                           check=True)
        binary = os.path.join(d, 'g.pgfb')
        subprocess.run([PGFREPORT, 'convert', '-o', binary, gen], check=True,
                       capture_output=True)
        tree = write(d, 'tree.trace', TREE)
        svg, html = os.path.join(d, 'o.svg'), os.path.join(d, 'o.html')
        cases = [['summary', gen], ['map', gen], ['hot', '--format', 'csv', gen],
                 ['mrc', gen], ['reuse', gen], ['wss', gen], ['tlb', gen],
                 ['prefetch', gen], ['timeline', gen], ['symbols', gen],
                 ['summary+hot+wss', binary], ['heatmap', '-o', svg, gen],
                 ['html', '-o', html, gen], ['export', 'csv', gen],
                 ['export', 'perfetto', '-o', os.path.join(d, 'p.pftrace'), gen],
                 ['tree', tree], ['hot', tree], ['convert', '-o',
                                                 os.path.join(d, 'c.pgfb'), gen]]
        count = os.path.join(d, 'count')
        tried = 0
        for args in cases:
            p = run(args, count=count)
            assert p.returncode == 0, (args, p.stderr)
            total = int(open(count).read())
            # every one of the first allocations, then a spread to the last
            points = sorted(set(range(min(total, 40))) |
                            {total * k // 24 for k in range(25)})
            for n in points:
                p = run(args, fail_after=n)
                tried += 1
                assert p.returncode in (0, 125), (args, n, total, p.returncode,
                                                  p.stderr[-500:])
                if p.returncode == 125:
                    assert re.search(r'out of memory|Cannot allocate memory',
                                     p.stderr), (args, n, p.stderr[-500:])
        assert tried > 300, tried


if __name__ == '__main__':
    main()
