#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pgfreport html at scale: for generated traces of 10^5, 10^6 and 10^7
faults (gentrace: random addresses in four regions, the worst case for
the heatmap's cells), the time pgfreport takes to write the page, the
page's size, and the time Debian's headless Chromium takes to load it and
draw the heatmap (the DevTools protocol, tests/host/cdplib.py): from the
navigation to the heatmap's chart existing, then to its first frame.

    tests/bench/htmlbench.py [FAULTS...]     (make bench-report runs it)

The table also goes to build/bench/html.json (scripts/benchjson.py).
"""
import os
import subprocess
import sys
import tempfile
import time

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'tests', 'host'))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
import benchjson  # noqa: E402
import cdplib as cdp  # noqa: E402

BIN = os.path.join(TOP, 'build', 'host', 'bin')


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [10**5, 10**6, 10**7]
    print('pgfreport html on generated traces (this host; Chromium headless, '
          'software rendering):')
    print(f'{"faults":>10} {"trace":>9} {"pgfreport":>10} {"page":>9} '
          f'{"cells":>7} {"load+draw":>10}')
    rows = []
    for n in sizes:
        with tempfile.TemporaryDirectory() as d:
            trace = os.path.join(d, 'g.trace')
            with open(trace, 'w') as f:
                subprocess.run([os.path.join(BIN, 'gentrace'), str(n)], stdout=f,
                               check=True)
            page = os.path.join(d, 'g.html')
            t = time.time()
            subprocess.run([os.path.join(BIN, 'pgfreport'), 'html', '-o', page,
                            trace], check=True)
            gen = time.time() - t
            b = cdp.Chromium()
            try:
                t = time.time()
                b.load('file://' + page + '#heatmap')
                b.wait('!!(window.pgfReport && pgfReport.charts.heatmap)', 120)
                # the first frame after the chart was made
                b.js('new Promise(r => requestAnimationFrame(() => r(1)))')
                load = time.time() - t
                cells = b.js('pgfReport.charts.heatmap.getOption().series[0]'
                             '.data.length')
                errors = b.errors
            finally:
                b.close()
            print(f'{n:>10} {os.path.getsize(trace) / 1e6:>7.0f}MB {gen:>9.1f}s '
                  f'{os.path.getsize(page) / 1e6:>7.2f}MB {cells:>7} '
                  f'{load:>9.2f}s{"  ERRORS: " + str(errors) if errors else ""}')
            rows.append([str(n), f'{os.path.getsize(trace) / 1e6:.0f}',
                         f'{gen:.1f}', f'{os.path.getsize(page) / 1e6:.2f}',
                         str(cells), f'{load:.2f}' + (' (errors)' if errors else '')])
    path = benchjson.write('html', 'make bench-report', [{
        'title': 'pgfreport html on generated traces (random addresses in four '
                 'regions, the heatmap\'s worst case); Chromium headless, software '
                 'rendering, from navigation to the heatmap\'s first frame',
        'head': ['faults', 'trace MB', 'pgfreport s', 'page MB', 'heatmap cells',
                 'load and draw s'],
        'rows': rows}])
    print(f'# written to {os.path.relpath(path, TOP)}')


main()
