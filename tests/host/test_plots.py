# SPDX-License-Identifier: GPL-2.0
"""pgfreport's charts (--plot, heatmap), rendered by a real SVG renderer
(rsvg-convert): the marks are where the data says, and nowhere else.

Each test makes a trace whose analysis is known, takes the numbers from
pgfreport's own table (checked exactly by test_pgfreport.py and the unit
tests), and looks in the rendered image for each point in its series'
colour at the pixel the plot area's axes give (the plot-area rectangle
carries its ranges as data-* attributes: see tools/lib/svg.h)."""
import math
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main  # noqa: E402
from tracelib import ended  # noqa: E402
from pnglib import render  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
PGFREPORT = os.path.join(TOP, 'build', 'host', 'bin', 'pgfreport')
NS = '{http://www.w3.org/2000/svg}'
LRU, FIFO, CLOCK, OPT = '#1f77b4', '#ff7f0e', '#2ca02c', '#d62728'
PLOT_BG = '#fbfbfb'


def pgfreport(*args, trace):
    with tempfile.NamedTemporaryFile('w', suffix='.trace', delete=False) as f:
        f.write(ended(trace))
    try:
        p = subprocess.run([PGFREPORT, *args, f.name], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.unlink(f.name)
    assert p.returncode == 0, p.stderr
    return p.stdout


def rows(out):
    return [line.split() for line in out.splitlines()
            if line and not line.startswith('#')]


class Axes:
    """Value -> pixel, from the plot-area rectangle of an SVG."""

    def __init__(self, root):
        a = next(r for r in root.iter(NS + 'rect')
                 if r.get('class') == 'plot-area')
        self.x, self.y = float(a.get('x')), float(a.get('y'))
        self.w, self.h = float(a.get('width')), float(a.get('height'))
        self.xr = (float(a.get('data-x-lo')), float(a.get('data-x-hi')),
                   a.get('data-x-scale'))
        self.yr = (float(a.get('data-y-lo')), float(a.get('data-y-hi')),
                   a.get('data-y-scale'))

    @staticmethod
    def _u(v, r):
        lo, hi, scale = r
        if scale == 'log2':
            return (math.log2(v) - math.log2(lo)) / (math.log2(hi) - math.log2(lo))
        return (v - lo) / (hi - lo)

    def px(self, xv, yv):
        return (self.x + self._u(xv, self.xr) * self.w,
                self.y + self.h - self._u(yv, self.yr) * self.h)


def draw(args, trace):
    """Run pgfreport with the chart going to a file: (stdout, root, image)."""
    with tempfile.TemporaryDirectory() as d:
        svg = os.path.join(d, 'chart.svg')
        args = [a.replace('SVG', svg) for a in args]
        out = pgfreport(*args, trace=trace)
        root = ET.parse(svg).getroot()
        return out, root, render(svg)


def texts(root):
    return [''.join(t.itertext()) for t in root.iter(NS + 'text')]


def loop_trace(mode, pages=100, rounds=4, region=(0x100000, 0x200000)):
    """A loop over @pages pages, @rounds times, one fault a microsecond."""
    t = [f'pgfault_history 4 pid 1 page_size 4096\nstart 1 {mode}\nlayout 2 1\n'
         f'map 2 1 {region[0]:x} {region[1]:x} rw-p 0 00:00 0\n']
    n = 0
    for _ in range(rounds):
        for p in range(pages):
            n += 1
            t.append(f'fault {1000 * n} 1 {region[0] + p * 4096:x} r user '
                     f'minor 400\n')
    t.append(f'exit {1000 * n + 1000} 0 {n} 0 1\n')
    return ''.join(t)


@test
def mrc_chart_draws_every_policy_where_the_table_says():
    sizes = [8, 32, 64, 100, 128]
    out, root, img = draw(['mrc', '--sizes', ','.join(map(str, sizes)),
                           '--plot', 'SVG'], loop_trace('window=16'))
    table = rows(out)
    assert [int(r[0]) for r in table] == sizes, table
    ax = Axes(root)
    assert ax.xr == (8, 128, 'log2') and ax.yr == (0, 1, 'linear'), (ax.xr, ax.yr)
    # A loop of 100 pages: LRU, FIFO and CLOCK miss every reference below
    # 100 pages and only the cold ones (1/4) from 100; OPT is below them.
    assert [float(r[2]) for r in table] == [1, 1, 1, 0.25, 0.25], table
    for r in table:
        size = int(r[0])
        for k, color in enumerate((LRU, FIFO, CLOCK, OPT)):
            x, y = ax.px(size, float(r[2 + k]))
            assert img.near(x, y, color, radius=7), (color, size, r, x, y)
    # Nothing of the three where no data is: half-way down at 32 pages.
    x, y = ax.px(32, 0.5)
    for color in (LRU, FIFO, CLOCK):
        assert not img.near(x, y, color, radius=6), (color, x, y)
    # OPT's own curve is apart from them at 64 pages, and drawn there.
    opt64 = float(table[2][5])
    assert opt64 < 0.9, table[2]
    assert img.near(*ax.px(64, opt64), OPT, radius=3)
    assert not img.near(*ax.px(64, opt64), LRU, radius=3)
    # The sizes a window=16 trace cannot tell are shaded, the others not.
    x0, y0 = ax.px(10, 0.5)
    x1, y1 = ax.px(90, 0.5)
    shade, bg = img.rgb(x0, y0), img.rgb(x1, y1)
    assert bg == (0xfb, 0xfb, 0xfb) and all(c < 0xf0 for c in shade), (shade, bg)
    # The size axis in pages and in bytes; the legend; the trace's kind.
    t = texts(root)
    for label in ('8', '16', '64', '128', '32 KiB', '256 KiB', '512 KiB'):
        assert label in t, (label, t)
    assert any('OPT' in s for s in t) and any('CLOCK' in s for s in t), t
    assert any('window=16' in s for s in t), t
    assert any('sizes below 16 pages cannot be told' in s for s in t), t


@test
def mrc_chart_of_a_first_touch_trace_says_so():
    out, root, img = draw(['mrc', '--plot', 'SVG'],
                          loop_trace('first', pages=40, rounds=1))
    t = texts(root)
    assert any('first touches only' in s for s in t), t
    # No shading: a first-touch trace has no window.
    assert not [r for r in root.iter(NS + 'rect') if r.get('class') == 'shade']
    ax = Axes(root)
    # 40 cold misses of 40 references: flat at 1 up to the footprint.
    assert ax.xr == (1, 40, 'log2'), ax.xr
    for size in (1, 8, 32, 40):
        assert img.near(*ax.px(size, 1.0), LRU, radius=7), size


@test
def reuse_chart_has_one_bar_per_bin_at_its_share():
    # Every reference after the first round is at distance 99: bin 64-127
    # holds 3/4 of the references, cold ones the other 1/4.
    out, root, img = draw(['reuse', '--plot', 'SVG'], loop_trace('window=16'))
    ax = Axes(root)
    bars = [r for r in root.iter(NS + 'rect') if r.get('class') == 'bar']
    labels = [''.join(t.itertext()) for t in root.iter(NS + 'text')
              if (t.get('class') or '') == 'tick' and 'rotate' in
              (t.get('transform') or '')]
    assert labels == ['0', '1', '2-3', '4-7', '8-15', '16-31', '32-63',
                      '64-127', 'cold'], labels
    share = {'64-127': 0.75, 'cold': 0.25}
    base = ax.y + ax.h
    for label, bar in zip(labels, bars):
        cx = float(bar.get('x')) + float(bar.get('width')) / 2
        color = bar.get('fill')
        want = share.get(label, 0)
        if want:
            _, top = ax.px(0, want)
            # Filled half-way up, and not above its share.
            assert img.near(cx, (top + base) / 2, color, radius=1), label
            assert not img.near(cx, top - 4, color, radius=1), label
        else:
            assert not img.near(cx, base - 3, color, radius=2), label
    # The cumulative line reaches 0.75 at 64-127 on the right axis.
    assert any('LRU cache' in s for s in texts(root))


@test
def timeline_chart_follows_the_working_set():
    # 50 pages in [0, 10) ms, nothing in [10, 20), 100 others in [20, 30):
    # with 10 ms intervals and a window of 2, the working set is 50, 50,
    # 100; the pages per interval 50, 0, 100; the footprint 50, 50, 150.
    t = ['pgfault_history 4 pid 1 page_size 4096\nstart 0 interval=10\n'
         'layout 0 1\nmap 0 1 100000 400000 rw-p 0 00:00 0\n']
    for i in range(50):
        t.append(f'fault {i * 100000} 1 {0x100000 + i * 4096:x} r user minor 4\n')
    for i in range(100):
        t.append(f'fault {20000000 + i * 50000} 1 {0x200000 + i * 4096:x} '
                 'w user minor 4\n')
    out, root, img = draw(['timeline', '--interval', '10', '--window', '2',
                           '--plot', 'SVG'], ''.join(t))
    assert rows(out) == [['0.0', '50', '50', '50', '50'],
                         ['10.0', '0', '0', '50', '50'],
                         ['20.0', '100', '100', '100', '150']], out
    ax = Axes(root)
    ws, pages, foot = '#1f77b4', '#ff7f0e', '#9a9a9a'
    for ms, w, p, f in ((0, 50, 50, 50), (10, 50, 0, 50), (20, 100, 100, 150)):
        assert img.near(*ax.px(ms * 1e6, w), ws, radius=4), ('ws', ms)
        assert img.near(*ax.px(ms * 1e6, p), pages, radius=4), ('pages', ms)
        assert img.near(*ax.px(ms * 1e6, f), foot, radius=4), ('foot', ms)
    # At 10 ms the working set is up at 50, not down with the pages.
    assert not img.near(*ax.px(10e6, 0), ws, radius=3)
    assert any('10 ms' in s for s in texts(root)), texts(root)


@test
def wss_chart_is_denning_curve():
    out, root, img = draw(['wss', '--plot', 'SVG'], loop_trace('window=16'))
    ax = Axes(root)
    assert ax.xr[2] == 'log2' and ax.yr[2] == 'log2', (ax.xr, ax.yr)
    pts = rows(out)
    assert len(pts) >= 5, out
    for r in pts:
        assert img.near(*ax.px(float(r[0]), float(r[1])), LRU, radius=5), r


def heat_trace():
    # Region A (high, 256 pages): 300 faults in [0, 10) ms on its lower
    # half, 200 of them on one page at about 1 ms (the densest cell).
    # Region B (low, 32 pages): 100 faults in [30, 40) ms. A lone fault
    # on A's top page at 5 ms.
    # Times are from the start record's, 1 ns.
    t = ['pgfault_history 4 pid 1 page_size 4096\nstart 1 first\nlayout 1 2\n'
         'map 1 1 7000000 7100000 rw-p 0 00:00 0 /data/a\n'
         'map 1 2 400000 420000 r-xp 0 00:00 0 /bin/b\n']
    ev = []
    for i in range(200):
        ev.append((1000000 + i * 10, 0x7000000 + 5 * 4096))
    for i in range(99):
        ev.append((2000000 + i * 70000, 0x7000000 + (i % 100) * 4096))
    ev.append((5000000, 0x70ff000))
    for i in range(100):
        ev.append((30000000 + i * 99000, 0x400000 + (i % 32) * 4096))
    ev.sort()
    for time, addr in ev:
        t.append(f'fault {time + 1} 1 {addr:x} r user minor 4\n')
    return ''.join(t)


def bands(root):
    out = {}
    for g in root.iter(NS + 'g'):
        if g.get('class') == 'region':
            r = next(r for r in g.iter(NS + 'rect') if r.get('class') == 'band')
            out[g.get('data-name')] = tuple(float(r.get(k)) for k in
                                            ('x', 'y', 'width', 'height'))
    return out


def marks(img, box, x0, x1):
    """Pixels of the colour scale (not the band's grey) in part of a band."""
    bx, by, bw, bh = box
    n = 0
    for y in range(int(by) + 1, int(by + bh) - 1):
        for x in range(int(x0), int(x1)):
            r, g, b = img.rgb(x, y)
            if not (abs(r - g) < 8 and abs(g - b) < 8):   # not a grey
                n += 1
    return n


@test
def heatmap_by_time_puts_each_fault_where_and_when_it_was():
    out, root, img = draw(['heatmap', '-o', 'SVG'], heat_trace())
    b = bands(root)
    assert set(b) == {'/data/a', '/bin/b'}, b
    a, bb = b['/data/a'], b['/bin/b']
    # Higher addresses above; heights by share of the faults (300 : 100).
    assert a[1] < bb[1], (a, bb)
    assert abs(a[3] / bb[3] - 3) < 0.1, (a, bb)
    ax = Axes(root)
    assert ax.xr[2] == 'linear' and 39.801e6 < ax.xr[1] < 80e6, ax.xr
    x10, _ = ax.px(10.5e6, 0)
    x29, _ = ax.px(29.5e6, 0)
    x41, _ = ax.px(41e6, 0)
    # A's marks before 10 ms, B's from 30 ms to 40, none elsewhere.
    assert marks(img, a, a[0], x10) > 50
    assert marks(img, a, x10 + 1, a[0] + a[2]) == 0
    assert marks(img, bb, bb[0], x29) == 0
    assert marks(img, bb, x29, x41) > 20
    assert marks(img, bb, x41 + 1, bb[0] + bb[2]) == 0
    # In A, pages 0-99 of 256: the lower 13 of its 32 rows, and the lone
    # fault in the top row; nothing in between.
    upper = (a[0], a[1] + a[3] / 32 + 1, a[2], a[3] * (19 / 32 - 1 / 32) - 2)
    assert marks(img, (a[0], a[1], a[2], a[3] / 32), a[0], a[0] + a[2]) > 0
    assert marks(img, upper, a[0], a[0] + a[2]) == 0
    # The densest cell is darkest: 200 faults at 1 ms near A's page 5;
    # the lone fault at 5 ms is the palest colour, at A's top.
    x1, _ = ax.px(1e6, 0)
    row5 = a[1] + a[3] - (5 // 8 + 0.5) * a[3] / 32
    assert img.near(x1, row5, '#440154', radius=3, tol=12), img.rgb(x1, row5)
    x5, _ = ax.px(5e6, 0)
    assert img.near(x5, a[1] + a[3] / 64, '#fde725', radius=3, tol=12)
    # The colour legend, from pale to dark, and labelled.
    steps = [r.get('fill') for r in root.iter(NS + 'rect')
             if r.get('class') == 'scale-step']
    assert len(steps) == 12 and steps[-1] == '#fde725' and steps[0] == '#440154'
    for r in root.iter(NS + 'rect'):
        if r.get('class') == 'scale-step':
            x, y = float(r.get('x')) + 9, float(r.get('y')) + 8
            assert img.near(x, y, r.get('fill'), radius=1, tol=6), r.attrib
    t = texts(root)
    assert 'faults per cell' in t and '1' in t and any(s.endswith('-200 (max)') for s in t), t
    assert any(s.startswith('/data/a') and '75.0%' in s for s in t), t
    assert '1 s' not in t and any(s.endswith(' ms') for s in t), t


@test
def heatmap_by_order_has_no_gaps_of_time():
    out, root, img = draw(['heatmap', '-o', 'SVG', '--x', 'order'], heat_trace())
    a, bb = bands(root)['/data/a'], bands(root)['/bin/b']
    ax = Axes(root)
    assert ax.xr[1] >= 400, ax.xr
    # A's 300 faults come first, then B's 100 (the lone one is A's 300th).
    x300, _ = ax.px(300, 0)
    assert marks(img, a, a[0], x300 - 2) > 50
    assert marks(img, a, x300 + 3, a[0] + a[2]) == 0
    assert marks(img, bb, bb[0], x300 - 3) == 0
    assert marks(img, bb, x300 + 2, ax.px(400, 0)[0]) > 20
    assert any('faults in order' in s for s in texts(root))


@test
def plot_is_an_option_of_the_commands_that_draw():
    with tempfile.NamedTemporaryFile('w', suffix='.trace') as f:
        f.write(loop_trace('first', pages=2, rounds=1))
        f.flush()
        for args, msg in (
                (['map', '--plot', '/tmp/x.svg'],
                 "pgfreport map: unknown option '--plot' (pgfreport map --help "
                 "lists its options)"),
                (['hot', '--plot', '/tmp/x.svg'],
                 "pgfreport hot: unknown option '--plot' (pgfreport hot --help "
                 "lists its options)"),
                (['heatmap', '-o', '/tmp/x.svg', '--x', 'space'],
                 "pgfreport heatmap: --x: 'space' is not"),
                (['heatmap'], 'pgfreport heatmap: which file? -o FILE')):
            p = subprocess.run([PGFREPORT, *args, f.name], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=60)
            assert p.returncode == 2 and p.stderr.startswith(msg) and \
                p.stdout == '', (args, p.stderr)
        for args in (['mrc', '--plot', '/nonexistent/x.svg'],
                     ['heatmap', '-o', '/nonexistent/x.svg']):
            p = subprocess.run([PGFREPORT, *args, f.name], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=60)
            assert p.returncode == 125 and '/nonexistent/x.svg' in p.stderr, \
                (args, p.stderr)


main()
