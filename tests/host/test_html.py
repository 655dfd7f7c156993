# SPDX-License-Identifier: GPL-2.0
"""pgfreport html in a real browser: Debian's headless Chromium, driven
over the DevTools protocol (tests/host/cdplib.py). The page of a hand-made
trace loads with no console error or exception; the heatmap draws the
trace's cells, worked out by hand below, at their pixels and nothing
where there is no fault; a wheel turn zooms it (the visible range
shrinks); hovering a cell shows its region, addresses, faults and first
and last fault; every view draws, and its screenshot is kept in
build/html-report/. A generated trace of 10^5 faults loads too (its size
and load time are printed; make bench-report measures 10^5 to 10^7).
With --files, a file's band and its files table show, and hovering its
cell names the file's pages. A trace with frames (format version 8) has
a Frames view: its tables are pgfreport frames' and its chart draws each
fault in the cell of its block and time."""
import contextlib
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main, Skip  # noqa: E402
import cdplib as cdp  # noqa: E402
import pnglib  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
BIN = os.path.join(TOP, 'build', 'host', 'bin')
SHOTS = os.path.join(TOP, 'build', 'html-report')
VIEWS = ('overview', 'heatmap', 'mrc', 'reuse', 'wss', 'timeline')

# Two regions of 32 pages: in the heatmap, a row per page. The last fault
# is 10.23 ms after the start, so a column is 2^15 ns (the smallest power
# of two whose 512 columns hold 10.23 ms), fault t in column t // 32768.
#   prog  page 0   t = 0, 1, 2 us     column 0,   row 0     3 faults
#   prog  page 5   t = 5 ms           column 152, row 5
#   heap  page 10  t = 7 ms           column 213, row 32 + 10
#   heap  page 31  t = 10.23 ms       column 312, row 32 + 31
# (prog is the lower band: rows 0-31; the heap above it: rows 32-63.)
T0 = 1000000000
TRACE = f'''pgfault_history 6 pid 42 page_size 4096
start {T0}
layout {T0} 2
map {T0} 1 400000 420000 r-xp 0 08:01 11 /usr/bin/prog
map {T0} 2 10000000 10020000 rw-p 0 00:00 0 [heap]
fault {T0} 42 400000 r user minor 400100
fault {T0 + 1000} 42 400010 r user minor 400100
fault {T0 + 2000} 42 400020 r user major 400100
fault {T0 + 5000000} 42 405000 r user minor 400200
fault {T0 + 7000000} 42 1000a000 w user minor 400300
fault {T0 + 10230000} 42 1001f000 w user minor 400300
exit {T0 + 11000000} 0 6 0 2
'''
FILLED = {(0, 0): 3, (152, 5): 1, (213, 42): 1, (312, 63): 1}
EMPTY = [(100, 3), (0, 32), (312, 31), (152, 37), (400, 10)]


def html(text, *args):
    d = tempfile.mkdtemp(prefix='pgf-html-')
    trace = os.path.join(d, 'x.trace')
    with open(trace, 'w') as f:
        f.write(text)
    out = os.path.join(d, 'report.html')
    p = subprocess.run([os.path.join(BIN, 'pgfreport'), 'html', '-o', out,
                        *args, trace], capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr
    return out


def browser():
    try:
        return cdp.Chromium()
    except FileNotFoundError:
        raise Skip('no chromium (Debian package chromium; '
                   'scripts/host-deps.sh installs it)')


@contextlib.contextmanager
def heatmap_of(page):
    """Chromium showing @page's heatmap, closed after."""
    b = browser()
    try:
        b.load('file://' + page + '#heatmap')
        b.wait('!!(window.pgfReport && pgfReport.charts.heatmap)')
        yield b
    finally:
        b.close()


def heat_pixel(b, x, y, chart='heatmap'):
    """The page's pixel (x, y) of the centre of cell (x, y) of a heatmap
    chart (the heatmap, frames)."""
    return b.js(f'''(() => {{
        const c = pgfReport.charts.{chart};
        const [px, py] = c.convertToPixel({{ seriesIndex: 0 }}, [{x}, {y}]);
        const r = c.getDom().getBoundingClientRect();
        return [r.left + px, r.top + py];
    }})()''')


def hover(b, x, y, word, chart='heatmap'):
    """Hover cell (x, y) of a heatmap chart: the tooltip's text, once it
    has @word."""
    px = heat_pixel(b, x, y, chart)
    b.mouse('mouseMoved', px[0], px[1])
    return b.wait(f'''(() => {{
        const t = pgfReport.charts.{chart}.getDom().innerText;
        return t.includes({word!r}) ? t : '';
    }})()''', timeout=20)


def shot(b, name):
    """A screenshot of the page (kept in build/html-report), read back."""
    os.makedirs(SHOTS, exist_ok=True)
    path = os.path.join(SHOTS, name)
    b.screenshot(path)
    return pnglib.read_png(path)


@test
def the_page_loads_without_errors_and_draws_the_cells_of_the_trace():
    with heatmap_of(html(TRACE)) as b:
        time.sleep(0.3)
        img = shot(b, 'heatmap-cells.png')
        # the scale: 1 fault the palest (#fde725), 3 (the most) the darkest
        colour = {1: '#fde725', 3: '#440154'}
        for (x, y), n in FILLED.items():
            px = heat_pixel(b, x, y)
            got = img.rgb(*px)
            assert pnglib.close(got, pnglib.parse_color(colour[n]), 24), \
                ('cell', (x, y), n, 'at', px, 'is', got)
        for x, y in EMPTY:
            px = heat_pixel(b, x, y)
            got = img.rgb(*px)
            assert got == (255, 255, 255), ('cell', (x, y), 'at', px, 'is', got)
        # the data behind them, as the page holds it
        cells = b.js('pgfReport.data.heat.bands.map(b => [b.name, b.cells])')
        assert sorted(cells) == [['/usr/bin/prog', [0, 0, 3, 0, 0.002,
                                                    152, 5, 1, 5, 5]],
                                 ['[heap]', [213, 10, 1, 7, 7,
                                             312, 31, 1, 10.23, 10.23]]], cells
        assert b.js('pgfReport.data.heat.per') == 32768
        assert b.errors == [], b.errors


@test
def hovering_a_cell_shows_its_region_addresses_faults_and_times():
    with heatmap_of(html(TRACE)) as b:
        text = hover(b, 0, 0, 'faults')
        for want in ('/usr/bin/prog', 'addresses 400000 - 401000',
                     '1 page: page 400', 'faults 3',
                     'first 0.000 ms, last 0.002 ms'):
            assert want in text, (want, text)
        text = hover(b, 312, 63, '[heap]')
        assert 'addresses 1001f000 - 10020000' in text and 'faults 1' in text and \
            'first 10.230 ms' in text, text
        assert b.errors == [], b.errors


@test
def the_wheel_zooms_the_heatmap_and_a_drag_pans_it():
    with heatmap_of(html(TRACE)) as b:
        zoom = ('(() => { const z = pgfReport.charts.heatmap.getOption().dataZoom[0];'
                ' return [z.startValue, z.endValue]; })()')
        before = b.js(zoom)
        assert before == [0, 312], before
        px = heat_pixel(b, 152, 5)
        b.mouse('mouseWheel', px[0], px[1], deltaX=0, deltaY=-600)
        after = b.wait(f'(() => {{ const v = {zoom}; '
                       f'return v[1] - v[0] < 312 ? v : null; }})()', timeout=20)
        assert after[0] > 0 or after[1] < 312, after
        # a drag to the right shows earlier columns
        b.mouse('mousePressed', px[0], px[1], button='left', clickCount=1)
        b.mouse('mouseMoved', px[0] + 200, px[1], button='left')
        b.mouse('mouseReleased', px[0] + 200, px[1], button='left', clickCount=1)
        panned = b.wait(f'(() => {{ const v = {zoom}; '
                        f'return v[0] < {after[0]} || v[0] == 0 ? v : null; }})()',
                        timeout=20)
        assert panned[1] - panned[0] <= after[1] - after[0] + 1, (after, panned)
        assert b.errors == [], b.errors


@test
def every_view_draws_and_its_screenshot_is_kept():
    page = html(TRACE)
    os.makedirs(SHOTS, exist_ok=True)
    b = browser()
    try:
        b.load('file://' + page)
        b.wait('!!(window.pgfReport && pgfReport.ready)')
        rows = b.js('document.querySelectorAll("#pgf-regions tr").length')
        assert rows == 3, rows      # a header and two regions
        tree = b.js('document.getElementById("pgf-tree").innerText')
        assert '42' in tree and '/usr/bin/prog' not in tree, tree
        for v in VIEWS:
            b.js(f'location.hash = "{v}"')
            b.wait(f'pgfReport.view === "{v}"')
            if v != 'overview':
                n = b.js(f'pgfReport.charts["{v}"].getOption().series.length')
                assert n >= 1, (v, n)
            time.sleep(0.2)
            img = shot(b, f'{v}.png')
            # something drawn beyond the page's white
            colours = {img.rgb(x, y) for x in range(0, img.width, 23)
                       for y in range(200, img.height, 17)}
            assert len(colours) > 3, (v, colours)
        mrc = b.js('pgfReport.data.mrc')
        # 4 distinct pages, 6 references: LRU at 4 pages misses the 4 cold ones
        assert mrc['refs'] == 6 and mrc['pages'] == 4, mrc
        assert b.errors == [], b.errors
    finally:
        b.close()


@test
def a_generated_trace_of_100000_faults_loads():
    with tempfile.TemporaryDirectory() as d:
        trace = os.path.join(d, 'g.trace')
        with open(trace, 'w') as f:
            subprocess.run([os.path.join(BIN, 'gentrace'), '100000'], stdout=f,
                           check=True, timeout=120)
        with open(trace) as f:
            page = html(f.read())
    b = browser()
    try:
        t = time.time()
        b.load('file://' + page + '#heatmap')
        b.wait('!!(window.pgfReport && pgfReport.charts.heatmap)')
        ms = (time.time() - t) * 1000
        n = b.js('pgfReport.charts.heatmap.getOption().series[0].data.length')
        print(f'# 100000 faults: {os.path.getsize(page)} bytes, heatmap of {n} '
              f'cells drawn {ms:.0f} ms after the load began')
        assert n > 1000, n
        assert b.errors == [], b.errors
    finally:
        b.close()


# --files: a file mapped and read. Its band spans pages 0-63 (page 40
# doubled it from 32), 2 pages a row; the reads of pages 40-41 at 5 ms in
# column 5 ms // 16384 ns = 305, row 20.
TRACE_FILES = f'''pgfault_history 7 pid 42 page_size 4096
start {T0} first files
layout {T0} 1
map {T0} 1 400000 420000 r--s 0 08:01 11 /data/db
fault {T0} 42 401000 r user minor 0
file {T0 + 1000} 0 08:01 11 /data/db
cache {T0 + 2000} 42 0 0 4 r miss
cache {T0 + 5000000} 42 0 40 2 r hit
exit {T0 + 11000000} 0 1 0 1 cache 2 0
'''


@test
def with_files_a_file_has_its_band_its_table_and_its_pages_on_hover():
    page = html(TRACE_FILES, '--files')
    with heatmap_of(page) as b:
        text = hover(b, 305, 20, 'references')
        for want in ('/data/db', 'file pages 40 - 41', 'offsets 28000 - 2a000',
                     'references 2', 'first 5.000 ms'):
            assert want in text, (want, text)
        b.js('location.hash = "overview"')
        b.wait('pgfReport.view === "overview"')
        files = b.js('document.getElementById("pgf-files").innerText')
        assert '/data/db' in files, files
        assert b.js('document.getElementById("pgf-files-view").hidden') is False
        b.js('location.hash = "mrc"')
        b.wait('pgfReport.view === "mrc"')
        title = b.js('pgfReport.charts.mrc.getOption().title[0].text')
        assert "the kernel's page cache: 2 hits, 4 misses" in title, title
        assert b.errors == [], b.errors
    # without --files, no files table
    with heatmap_of(html(TRACE_FILES)) as b:
        b.js('location.hash = "overview"')
        b.wait('pgfReport.view === "overview"')
        assert b.js('document.getElementById("pgf-files-view").hidden') is True
        assert b.errors == [], b.errors


# Three faults with frames: block 0 (0x0, node 0) at 0 and 10.23 ms, block
# 16 (0x40000000, node 1, a THP mapped by the pmd) at 5 ms; 1 ms columns.
TRACE_FRAMES = TRACE.replace('pgfault_history 6', 'pgfault_history 8').replace(
    'r user minor 400100\n', 'r user minor 400100 1000 0 0 pte\n', 1).replace(
    '405000 r user minor 400200', '405000 r user minor 400200 40000 1 9 pmd').replace(
    '1001f000 w user minor 400300', '1001f000 w user minor 400300 1001 0 0 pte')


@test
def with_frames_the_frames_view_draws_its_blocks_and_tables():
    page = html(TRACE_FRAMES)
    b = browser()
    try:
        b.load('file://' + page + '#frames')
        b.wait('!!(window.pgfReport && pgfReport.charts.frames)')
        assert b.js('document.getElementById("pgf-frames-link").hidden') is False
        F = b.js('pgfReport.data.frames')
        assert (F['faults'], F['with'], F['distinct']) == (6, 3, 3), F
        cells = {(x, y): v for y, blk in enumerate(F['blocks'])
                 for x, v in enumerate(blk['cells']) if v}
        assert cells == {(0, 0): 1, (10, 0): 1, (5, 1): 1}, cells
        assert [blk['start'] for blk in F['blocks']] == ['0', '40000000']
        nodes = b.js('document.getElementById("pgf-frames-nodes").innerText')
        sizes = b.js('document.getElementById("pgf-frames-sizes").innerText')
        assert '2.0 MiB\tpmd\t1\t1' in sizes and '4.0 KiB\tpte\t2\t2' in sizes, sizes
        assert '1\t1\t1' in nodes, nodes
        text = hover(b, 5, 1, 'faults', 'frames')
        for want in ('0x40000000 (node 1)', '5.000 - 6.000 ms', 'faults 1'):
            assert want in text, (want, text)
        assert b.errors == [], b.errors
        shot(b, 'frames.png')
    finally:
        b.close()
    # a trace without frames: no Frames view to go to
    with heatmap_of(html(TRACE)) as b:
        assert b.js('document.getElementById("pgf-frames-link").hidden') is True
        assert b.errors == [], b.errors


TRACE_CHANGES = TRACE.replace('pgfault_history 6', 'pgfault_history 9').replace(
    f'exit {T0 + 11000000}',
    f'move {T0 + 8000000} 61 10001000 1 numa 0 1\n'
    f'evict {T0 + 10000000} 33 10002000 2 kswapd 1 -\n'
    f'exit {T0 + 11000000}')


@test
def changes_show_in_the_frames_view_without_frames():
    """A trace read without CAP_SYS_ADMIN: no frames, but the kernel's
    changes to them (nodes only): the Frames view has their tables and
    their chart per region, and not the frames' part."""
    page = html(TRACE_CHANGES)
    b = browser()
    try:
        b.load('file://' + page + '#frames')
        b.wait('!!(window.pgfReport && pgfReport.charts.frames)')
        assert b.js('document.getElementById("pgf-frames-link").hidden') is False
        assert b.js('document.getElementById("pgf-frames-part").hidden') is True
        assert b.js('document.getElementById("pgf-changes-view").hidden') is False
        C = b.js('pgfReport.data.changes')
        assert (C['records'], C['pages']) == (2, 3), C
        cells = {(x, y): v for y, r in enumerate(C['rows'])
                 for x, v in enumerate(r['cells']) if any(v)}
        assert cells == {(0, 0): [1, 0, 0, 0, 0], (2, 0): [0, 2, 0, 0, 0]}, cells
        assert C['rows'][0]['name'] == '[heap]', C['rows']
        causes = b.js('document.getElementById("pgf-changes-causes").innerText')
        nodes = b.js('document.getElementById("pgf-changes-nodes").innerText')
        assert 'move\tnuma\t-\t-\t1\t1' in causes, causes
        assert 'evict\tkswapd\t-\t-\t1\t2' in causes, causes
        assert '0\t0\t1\t0\t0' in nodes and '1\t1\t0\t2\t0' in nodes, nodes
        text = hover(b, 2, 0, 'evicted', 'frames')
        for want in ('10000000-10020000 [heap]', '2.000 - 3.000 ms', 'evicted 2'):
            assert want in text, (want, text)
        assert b.errors == [], b.errors
        shot(b, 'changes.png')
    finally:
        b.close()


main()
