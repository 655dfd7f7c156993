# SPDX-License-Identifier: GPL-2.0
"""pgfreport's analyses of sampled traces (tracepgfault -s MS, format
version 6): pgfreport samples, its --plot and --map, and pgfreport
compare.

Every trace here is written by the test from runs of pages it chooses,
and every number pgfreport prints is checked against a brute-force
simulation of the same runs in Python: each interval's page set, W(t,tau)
as the union of the sets of the last tau intervals (never before the
interval's address space began), the statistics from those lists, the
Jaccard similarity from Python sets.

Runs as a KTAP suite (python3 tests/host/test_sample.py, as
scripts/run-tests.py does) and under pytest (its test_* functions)."""
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test as ktap_test, main  # noqa: E402
from pnglib import render  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
PGFREPORT = os.path.join(TOP, 'build', 'host', 'bin', 'pgfreport')
NS = '{http://www.w3.org/2000/svg}'
PAGE = 4096
T0 = 1_000_000          # the start record, ns
TEXT = 0x400000 // PAGE     # the program's text, 256 pages
HEAP = 0x10000000 // PAGE   # its heap, 256 pages
LAYOUT = [(0x400000, 0x500000, 'r-xp', '/bin/prog'),
          (0x10000000, 0x10100000, 'rw-p', '[heap]'),
          (0x7ffff000000, 0x7ffff100000, 'rw-p', '[stack]')]


# ---- running pgfreport ----------------------------------------------------

def run(*args, trace=None, files=()):
    """pgfreport ARGS TRACE (TRACE: text written to a temporary file, which
    replaces the word TRACE in ARGS, or goes last); @files: other texts,
    replacing FILE0, FILE1, ...; SVG0, SVG1 name output files. Returns
    (status, stdout, stderr, {SVGk: its text or None})."""
    with tempfile.TemporaryDirectory() as d:
        names = {}
        if trace is not None:
            names['TRACE'] = os.path.join(d, 'main.trace')
            with open(names['TRACE'], 'w') as f:
                f.write(trace)
        for k, text in enumerate(files):
            names[f'FILE{k}'] = os.path.join(d, f'other{k}.trace')
            with open(names[f'FILE{k}'], 'w') as f:
                f.write(text)
        for k in range(3):
            names[f'SVG{k}'] = os.path.join(d, f'out{k}.svg')
        argv = [names.get(a, a) for a in args]
        if trace is not None and 'TRACE' not in args:
            argv.append(names['TRACE'])
        p = subprocess.run([PGFREPORT, *argv], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        svgs = {}
        for k in range(3):
            path = names[f'SVG{k}']
            svgs[f'SVG{k}'] = open(path).read() if os.path.exists(path) else None
        return p.returncode, p.stdout, p.stderr, svgs


def sections(out):
    """The data lines of @out grouped under the '#' line before them that
    names their columns: {first column name: [fields, ...]}."""
    sec, cur = {}, None
    for line in out.splitlines():
        if line.startswith('# ') and len(line.split()) > 2 and \
                not line.startswith('# ' * 2):
            words = line[2:].split()
            if re.fullmatch(r'[a-z_]+', words[0]) and len(words) > 3 and \
                    all(re.fullmatch(r'[A-Za-z_()0-9]+', w) for w in words):
                cur = words[0]
                sec[cur] = []
                continue
        if line.startswith('#'):
            continue
        if cur is not None:
            sec[cur].append(line.split())
    return sec


def summary(out, pattern):
    """The groups of the first '#' line matching @pattern."""
    for line in out.splitlines():
        m = re.search(pattern, line)
        if line.startswith('#') and m:
            return m.groups()
    raise AssertionError(f'no line matches {pattern!r}:\n{out}')


# ---- the traces and their simulation ---------------------------------------

def runs_of(pages):
    """Sorted maximal runs (first page, count) of a set of page numbers."""
    runs = []
    for p in sorted(pages):
        if runs and runs[-1][0] + runs[-1][1] == p:
            runs[-1][1] += 1
        else:
            runs.append([p, 1])
    return [tuple(r) for r in runs]


def map_lines(t, first_id=1, stack=0x7ffff000000):
    out = [f'layout {t} {len(LAYOUT)}']
    for k, (a, e, perms, name) in enumerate(LAYOUT):
        if name == '[stack]':
            a, e = stack, stack + (e - a)
        out.append(f'map {t} {first_id + k} {a:x} {e:x} {perms} 0 '
                   f'{"08:01 42" if name[0] == "/" else "00:00 0"} {name}')
    return out


class Sampled:
    """A sampled trace built scan by scan, and the intervals it holds:
    each a dict with its times, page set, the scan's counts and flags, and
    its address space."""

    def __init__(self, ms=100, pid=100, stack=0x7ffff000000):
        self.ms, self.pid, self.stack = ms, pid, stack
        self.lines = [f'pgfault_history 6 pid {pid} page_size {PAGE}',
                      f'start {T0} sample={ms}'] + map_lines(T0, stack=stack)
        self.t = T0 + 150_000
        self.scans = [(1000, 40_000)]   # (scanned, ns), the baseline first
        self.lines.append(f'sample {self.t} 0 1000 0 40000 baseline')
        self.iv = []
        self.space = 0
        self.exec_pending = False
        self.ids = len(LAYOUT) + 1

    def scan(self, pages, extra=0, flags=(), scanned=None, ns=None, gap=None):
        """A scan finding @pages referenced (and @extra more whose refs
        were lost: flags should then say incomplete)."""
        t0 = self.t
        self.t += gap if gap is not None else self.ms * 1_000_000 + \
            37_000 * (len(self.iv) % 5)
        runs = runs_of(pages)
        # Several refs lines a scan, each with up to three runs.
        for k in range(0, len(runs), 3):
            self.lines.append(f'refs {self.t - 5000} 0 ' + ' '.join(
                f'{p * PAGE:x}+{n}' for p, n in runs[k:k + 3]))
        ref = len(set(pages)) + extra
        # A scan tests every present page: at least those it found.
        scanned = scanned if scanned is not None else \
            max(1000, 2 * ref) + 7 * len(self.iv)
        ns = ns if ns is not None else 50_000 + 1_111 * len(self.iv)
        self.lines.append(f'sample {self.t} 0 {scanned} {ref} {ns}' +
                          ''.join(' ' + f for f in flags))
        self.scans.append((scanned, ns))
        fl = list(flags)
        if self.exec_pending:
            fl.append('exec')
            self.exec_pending = False
        self.iv.append(dict(t0=t0, t1=self.t, pages=set(pages), ref=ref,
                            scanned=scanned, ns=ns, flags=fl, space=self.space))

    def cut_scan(self, pages):
        """The refs of a scan that the next record (an exec, a stop)
        ends: no sample record, no interval."""
        runs = runs_of(pages)
        for k in range(0, len(runs), 3):
            self.lines.append(f'refs {self.t + 500} 0 ' + ' '.join(
                f'{p * PAGE:x}+{n}' for p, n in runs[k:k + 3]))

    def exec(self):
        t = self.t + 1000
        self.lines.append(f'exec {t} {self.pid} /bin/next')
        self.lines += map_lines(t, self.ids, self.stack)
        self.ids += len(LAYOUT)
        self.space += 1
        self.exec_pending = True

    def fault(self, page, result='reref'):
        self.lines.append(f'fault {self.t + 10} {self.pid} {page * PAGE:x} r user '
                          f'{result} 400000')

    def text(self, end=True):
        tail = [f'exit {self.t + 1000} 0 0 0 {self.ids}'] if end else []
        return '\n'.join(self.lines + tail) + '\n'


class Interval:
    """An interval trace (interval=MS) built fault by fault, and its
    intervals' page sets: from the start, or a re-arm, to the next re-arm;
    an exec drops its interval's pages so far (the old space's)."""

    def __init__(self, ms=100, pid=200, stack=0x7ffff000000):
        self.ms, self.pid, self.stack = ms, pid, stack
        self.lines = [f'pgfault_history 6 pid {pid} page_size {PAGE}',
                      f'start {T0} interval={ms}'] + map_lines(T0, stack=stack)
        self.t = T0
        self.iv = []
        self.space = 0
        self.cur = set()
        self.ids = len(LAYOUT) + 1

    def fault(self, page, result='minor'):
        self.t += 1000
        self.lines.append(f'fault {self.t} {self.pid} {page * PAGE:x} w user '
                          f'{result} 400000')
        if result in ('minor', 'major', 'reref'):
            self.cur.add(page)

    def rearm(self):
        self.t += self.ms * 1_000_000
        self.lines.append(f'rearm {self.t} 77 interval')
        self.iv.append(dict(pages=self.cur, space=self.space))
        self.cur = set()

    def exec(self):
        self.t += 1000
        self.lines.append(f'exec {self.t} {self.pid} /bin/next')
        self.lines += map_lines(self.t, self.ids, self.stack)
        self.ids += len(LAYOUT)
        self.space += 1
        self.cur = set()

    def text(self):
        return '\n'.join(self.lines + [f'exit {self.t + 1000} 0 0 0 {self.ids}']) + '\n'


def W(iv, t, tau):
    """Denning's working set over intervals, brute force: the union of the
    page sets of intervals t - tau + 1 .. t of t's address space."""
    lo = max(0, t - tau + 1)
    while iv[lo]['space'] != iv[t]['space']:
        lo += 1
    return len(set().union(*(iv[i]['pages'] for i in range(lo, t + 1))))


def taus(n):
    out, k = [], 1
    while k <= n:
        out.append(k)
        k *= 2
    if n and out[-1] != n:
        out.append(n)
    return out


def ws_stats(iv, tau):
    v = [W(iv, t, tau) for t in range(len(iv))]
    return sum(v) / len(v), max(v)


def random_pages(rng, n):
    """@n pages from the text and heap, in clumps."""
    pages = set()
    while len(pages) < n:
        base = rng.choice((TEXT, HEAP)) + rng.randrange(0, 200)
        for k in range(rng.randrange(1, 6)):
            pages.add(base + k)
    return pages


def close(a, b, eps=1e-3):
    return abs(float(a) - float(b)) <= eps


# ---- samples -----------------------------------------------------------------

def check_samples(out, tr, k=4):
    """Every number of samples's output against the simulation of @tr."""
    iv = tr.iv
    sec = sections(out)
    rows = sec['interval']
    assert len(rows) == len(iv), (len(rows), out)
    for t, (row, v) in enumerate(zip(rows, iv)):
        want_flags = ','.join(v['flags']) or '-'
        assert int(row[0]) == t + 1, row
        assert close(row[1], (v['t1'] - T0) / 1e6), (row, v)
        assert close(row[2], (v['t1'] - v['t0']) / 1e6), (row, v)
        assert int(row[3]) == v['ref'], (row, v)
        assert int(row[4]) == v['scanned'], (row, v)
        assert close(row[5], v['ns'] / 1e3), (row, v)
        assert int(row[6]) == W(iv, t, k), (t, row, W(iv, t, k))
        assert row[7] == want_flags, (row, want_flags)
    refs = [v['ref'] for v in iv]
    mean, median, mx = summary(out, r'referenced pages per interval: mean '
                               r'([\d.]+), median ([\d.]+), max (\d+)')
    assert close(mean, sum(refs) / len(refs), 1e-4), (mean, refs)
    assert close(median, statistics.median(refs), 0.05), (median, refs)
    assert int(mx) == max(refs)
    scans, smean, smax, per = summary(
        out, r'over the (\d+) scans .*: mean ([\d.]+) us, max ([\d.]+) us; '
        r'([\d.]+) ns per page scanned')
    assert int(scans) == len(tr.scans)
    assert close(smean, sum(n for _, n in tr.scans) / len(tr.scans) / 1e3)
    assert close(smax, max(n for _, n in tr.scans) / 1e3)
    assert close(per, sum(n for _, n in tr.scans) /
                 sum(s for s, _ in tr.scans), 0.01)
    table = sec['tau_intervals']
    assert [int(r[0]) for r in table] == taus(len(iv)), table
    for r in table:
        m, x = ws_stats(iv, int(r[0]))
        assert int(r[1]) == int(r[0]) * tr.ms, r
        assert close(r[2], m, 1e-4), (r, m)
        assert int(r[3]) == x, (r, x)
        assert close(r[4], m * PAGE, 1), (r, m)


def random_sampled(seed, n=14):
    rng = random.Random(seed)
    tr = Sampled()
    for t in range(n):
        # Now and then an empty interval, else a few clumps of pages that
        # often come back.
        tr.scan(set() if t % 6 == 4 else random_pages(rng, rng.randrange(3, 40)))
    return tr


@ktap_test
def test_samples_table_and_working_set_match_a_simulation():
    for seed in (1, 2, 3):
        tr = random_sampled(seed)
        rc, out, err, _ = run('samples', trace=tr.text())
        assert rc == 0, err
        check_samples(out, tr)
        # The method, in one line.
        assert summary(out, r'(working set W\(t,tau\): distinct pages referenced '
                       r'in the last tau intervals \(Denning\), from the '
                       r'accessed bits sampled every 100 ms)')
        rc, out, err, _ = run('samples', '--ws-intervals', '3', trace=tr.text())
        assert rc == 0, err
        assert sections(out)['interval'] and ' W(3) ' in out
        check_samples(out, tr, k=3)


@ktap_test
def test_exec_starts_the_window_over():
    rng = random.Random(7)
    tr = Sampled()
    for t in range(5):
        tr.scan(random_pages(rng, 20))
    tr.exec()
    # The new image uses the same addresses: a window that reached back
    # over the exec would count them once more, or not at all.
    for t in range(6):
        tr.scan({TEXT + k for k in range(10 * (t % 3), 10 * (t % 3) + 12)} |
                {HEAP + 3 * t})
    rc, out, err, _ = run('samples', '--ws-intervals', '4', trace=tr.text())
    assert rc == 0, err
    check_samples(out, tr)
    rows = sections(out)['interval']
    assert rows[5][7] == 'exec', rows[5]
    # The first interval after the exec has only its own pages: without
    # the reset it would have the five before it too.
    assert int(rows[5][6]) == len(tr.iv[5]['pages'])
    merged = len(set().union(*(v['pages'] for v in tr.iv[2:6])))
    assert int(rows[5][6]) < merged
    assert '1 exec ' in out, out


@ktap_test
def test_a_scan_an_exec_ends_counts_in_no_interval():
    # The kernel lets a scan's walk pause; an exec there ends the scan:
    # its refs so far, of the old image, then the exec, and no sample.
    tr = Sampled()
    tr.scan({TEXT + k for k in range(6)})
    tr.cut_scan({HEAP + k for k in range(9)})
    tr.exec()
    tr.scan({TEXT + 1, TEXT + 2})
    tr.scan({HEAP})
    rc, out, err, _ = run('samples', trace=tr.text())
    assert rc == 0, err
    check_samples(out, tr)
    rows = sections(out)['interval']
    # The first scan of the new image holds its own two pages only.
    assert [int(r[3]) for r in rows] == [6, 2, 1], rows
    assert rows[1][7] == 'exec', rows


@ktap_test
def test_incomplete_and_stopped_scans_are_flagged_and_counted():
    tr = Sampled()
    tr.scan({TEXT + k for k in range(8)})
    # Refs of 5 more pages were lost: the scan says 13, its runs hold 8.
    tr.lines.append('lost 0 1')
    tr.scan({HEAP + k for k in range(8)}, extra=5, flags=('incomplete',))
    tr.scan({HEAP + 1, HEAP + 2}, flags=('stopped',))
    tr.scan({TEXT}, extra=1, flags=('incomplete', 'stopped'))
    rc, out, err, _ = run('samples', trace=tr.text())
    assert rc == 0, err
    check_samples(out, tr)
    rows = sections(out)['interval']
    assert [r[7] for r in rows] == ['-', 'incomplete', 'stopped',
                                    'incomplete,stopped'], rows
    # The referenced column is the scan's own count, not the runs'.
    assert int(rows[1][3]) == 13
    bad = [v for v in tr.iv if 'incomplete' in v['flags']]
    assert summary(out, r'; (\d+) incomplete \(refs records lost: (\d+) of '
                   r'their (\d+) referenced pages are not in the trace') == \
        (str(len(bad)), str(sum(v['ref'] - len(v['pages']) for v in bad)),
         str(sum(v['ref'] for v in bad))) == ('2', '6', '15')
    assert summary(out, r'; (2) stopped') == ('2',)


@ktap_test
def test_refs_that_do_not_add_up_are_an_error():
    tr = Sampled()
    tr.scan({TEXT, TEXT + 1})
    tr.scan({TEXT + 5}, extra=2)     # says 3, holds 1, not incomplete
    rc, out, err, _ = run('samples', trace=tr.text())
    n = tr.text().splitlines().index(tr.lines[-1]) + 1
    assert rc == 1, (out, err)
    assert re.search(rf'main\.trace:{n}: the scan found 3 pages referenced, '
                     r'but the refs records before it hold 1 \(and it is not '
                     r'marked incomplete\)', err), err
    # What came before is still reported.
    assert len(sections(out)['interval']) == 1, out


@ktap_test
def test_a_trace_without_samples_is_refused():
    text = (f'pgfault_history 6 pid 1 page_size {PAGE}\nstart {T0} first\n' +
            '\n'.join(map_lines(T0)) +
            f'\nfault {T0 + 5} 1 400000 x user minor 400000\n')
    for args in (['samples'], ['samples', '--map', 'SVG0'],
                 ['compare', 'TRACE', 'FILE0']):
        rc, out, err, svgs = run(*args, trace=text, files=[Interval().text()])
        assert rc == 1 and out == '', (args, out)
        assert 'has no sample records: trace with tracepgfault -s MS' in err, err
        assert svgs['SVG0'] is None
    # An interval trace given as the sampled one: said so.
    rc, out, err, _ = run('samples', trace=Interval().text())
    assert rc == 1 and 'is an interval trace (interval=100), not a sampled one' \
        in err, err


def tree(*blocks):
    """A tree file (tracepgfault -f) of (pid, trace text) blocks."""
    out = [f'pgfault_history_tree 1 root {blocks[0][0]}']
    for pid, text in blocks:
        out += [f'pid {pid}'] + text.splitlines()
    return '\n'.join(out) + '\n'


@ktap_test
def test_tree_files_need_a_pid():
    a, b = random_sampled(4, n=6), Sampled(pid=101)
    b.scan({HEAP + 9})
    text = tree((100, a.text()), (101, b.text()))
    for args in (['samples'], ['samples', '--map', 'SVG0'],
                 ['compare', 'TRACE', 'FILE0']):
        rc, out, err, _ = run(*args, trace=text, files=[Interval().text()])
        assert rc == 2 and out == '', (args, out)
        assert f'is a tree of 2 processes: {args[0]} reports on one process: ' \
            'give --pid, one of 100 101' in err, err
    # With --pid: the process's own analysis, as from its trace alone.
    rc, out, err, _ = run('samples', '--pid', '100', trace=text)
    assert rc == 0, err
    check_samples(out, a)
    rc, out, err, _ = run('samples', '--pid', '101', trace=text)
    assert rc == 0, err
    check_samples(out, b)


@ktap_test
def test_options_are_checked():
    tr = random_sampled(5, n=3)
    for args, msg in (
            (['samples', '--ws-intervals', '0'],
             "pgfreport samples: --ws-intervals: '0' is not a positive number"),
            # The options of samples are its own.
            (['mrc', '--ws-intervals', '3'],
             "pgfreport mrc: unknown option '--ws-intervals' (pgfreport mrc "
             "--help lists its options)"),
            (['mrc', '--map', 'SVG0'],
             "pgfreport mrc: unknown option '--map' (pgfreport mrc --help "
             "lists its options)"),
            (['compare', '--plot', 'SVG0', 'TRACE', 'FILE0'],
             "pgfreport compare: unknown option '--plot' (pgfreport compare "
             "--help lists its options)"),
            (['compare', '--ws-intervals', '3', 'TRACE', 'FILE0'],
             "pgfreport compare: unknown option '--ws-intervals'"),
            (['compare', 'TRACE'],
             'pgfreport compare: two traces: the sampled one, then the '
             'interval one'),
            (['compare', 'TRACE', '/nonexistent/x.trace'],
             'pgfreport compare: /nonexistent/x.trace: No such file')):
        rc, out, err, _ = run(*args, trace=tr.text(), files=[Interval().text()])
        # a command line that is wrong: 2; a file pgfreport cannot read: 125
        assert rc == (125 if 'No such file' in msg else 2) and msg in err, \
            (args, rc, err)
    rc, out, err, _ = run('--help')
    assert rc == 0 and '\n  samples ' in out and '\n  compare ' in out, out
    rc, out, err, _ = run('samples', '--help')
    assert rc == 0 and '--ws-intervals K' in out and '--map FILE' in out \
        and '--plot FILE' in out, out
    rc, out, err, _ = run('compare', '--help')
    assert rc == 0 and 'pgfreport compare [OPTION...] SAMPLED INTERVAL' in out \
        and '--map FILE' in out, out


@ktap_test
def test_json_has_the_sampling_records():
    import json
    tr = random_sampled(6, n=4)
    rc, out, err, _ = run('export', 'json', trace=tr.text())
    assert rc == 0, err
    recs = [json.loads(line) for line in out.splitlines()]
    refs = [r for r in recs if r['type'] == 'refs']
    samples = [r for r in recs if r['type'] == 'sample']
    assert len(samples) == 5 and samples[0].get('baseline') is True
    got = set()
    for r in refs:
        for a, n in r['runs']:
            got |= {a // PAGE + k for k in range(n)}
    assert got == set().union(*(v['pages'] for v in tr.iv))
    assert [s['referenced'] for s in samples[1:]] == [v['ref'] for v in tr.iv]


# ---- samples --plot and --map ---------------------------------------------------

class Axes:
    """Value -> pixel, from the plot-area rectangle of an SVG."""

    def __init__(self, root):
        a = next(r for r in root.iter(NS + 'rect')
                 if r.get('class') == 'plot-area')
        self.x, self.y = float(a.get('x')), float(a.get('y'))
        self.w, self.h = float(a.get('width')), float(a.get('height'))
        self.x0, self.x1 = float(a.get('data-x-lo')), float(a.get('data-x-hi'))
        self.y0, self.y1 = float(a.get('data-y-lo')), float(a.get('data-y-hi'))
        assert a.get('data-x-scale') == a.get('data-y-scale') == 'linear'

    def px(self, xv, yv):
        return (self.x + (xv - self.x0) / (self.x1 - self.x0) * self.w,
                self.y + self.h - (yv - self.y0) / (self.y1 - self.y0) * self.h)

    def val_y(self, py):
        return self.y0 + (self.y + self.h - py) / self.h * (self.y1 - self.y0)


@ktap_test
def test_plot_draws_pages_and_working_set_over_time():
    tr = random_sampled(8, n=10)
    rc, out, err, svgs = run('samples', '--ws-intervals', '3', '--plot', 'SVG0',
                             trace=tr.text())
    assert rc == 0, err
    root = ET.fromstring(svgs['SVG0'])
    ax = Axes(root)
    series = {g.get('data-name'): g for g in root.iter(NS + 'g')
              if g.get('class') == 'series'}
    want = {'W(t,3)': [W(tr.iv, t, 3) for t in range(len(tr.iv))],
            'pages referenced in the interval': [v['ref'] for v in tr.iv]}
    assert len(series) == 2, series.keys()
    for name, ys in want.items():
        g = next(g for n, g in series.items() if n.startswith(name))
        pts = [tuple(map(float, p.split(',')))
               for p in g.find(NS + 'polyline').get('points').split()]
        assert len(pts) == len(ys), (name, pts)
        for (x, y), v, yv in zip(pts, tr.iv, ys):
            ex, ey = ax.px((v['t1'] - T0) / 1e6, yv)
            assert abs(x - ex) < 0.11 and abs(y - ey) < 0.11, (name, x, y, ex, ey)
    # The x axis is ms from the trace's start.
    assert ax.x0 == 0 and close(ax.x1, (tr.iv[-1]['t1'] - T0) / 1e6)
    assert any('(ms' in ''.join(t.itertext()) for t in root.iter(NS + 'text'))


def map_cells(root):
    """{column: set of rows filled} and the columns' elements, from the
    rects of a samples --map, rows found from their pixels."""
    ax = Axes(root)
    cols, cells = [], {}
    for g in root.iter(NS + 'g'):
        if g.get('class') != 'column':
            continue
        c = len(cols)
        cols.append(g)
        cells[c] = {}
        for r in g.iter(NS + 'rect'):
            x, w = float(r.get('x')), float(r.get('width'))
            y, h = float(r.get('y')), float(r.get('height'))
            assert close(ax.px(c, 0)[0], x, 0.01) and \
                close(ax.px(c + 1, 0)[0], x + w, 0.02), (c, x, w)
            lo, hi = round(ax.val_y(y + h)), round(ax.val_y(y))
            for row in range(lo, hi):
                cells[c][row] = float(r.get('fill-opacity', '1'))
    return cols, cells


@ktap_test
def test_sample_map_has_a_column_per_interval_and_a_row_per_page():
    tr = random_sampled(9, n=12)
    tr.exec()
    tr.scan({HEAP + 250, HEAP + 251, TEXT + 3})
    rc, out, err, svgs = run('samples', '--map', 'SVG0', trace=tr.text())
    assert rc == 0, err
    check_samples(out, tr)
    root = ET.fromstring(svgs['SVG0'])
    every = set().union(*(v['pages'] for v in tr.iv))
    blocks = runs_of(every)
    m = next(g for g in root.iter(NS + 'g') if g.get('class') == 'map')
    assert int(m.get('data-intervals')) == int(m.get('data-columns')) == len(tr.iv)
    assert int(m.get('data-rows')) == len(every) and m.get('data-pages-per-row') == '1'
    # Rows by address, gaps collapsed: each block where it says, with a
    # separator line (but the first) and its address.
    bl = [g for g in root.iter(NS + 'g') if g.get('class') == 'block']
    row, row_of = 0, {}
    assert len(bl) == len(blocks)
    for g, (p, n) in zip(bl, blocks):
        assert int(g.get('data-start'), 16) == p * PAGE and \
            int(g.get('data-row')) == row and int(g.get('data-pages')) == n, \
            (g.attrib, p, n)
        assert (g.find(NS + 'line') is not None) == (row > 0)
        for k in range(n):
            row_of[p + k] = row + k
        row += n
    labels = {''.join(t.itertext()) for t in root.iter(NS + 'text')
              if t.get('class') == 'addr'}
    assert f'{blocks[0][0] * PAGE:x}' in labels and len(labels) >= 2, labels
    # Each column holds its interval's pages, and nothing else.
    cols, cells = map_cells(root)
    assert len(cols) == len(tr.iv)
    for c, v in enumerate(tr.iv):
        assert cols[c].get('data-first') == cols[c].get('data-last') == str(c + 1)
        assert set(cells[c]) == {row_of[p] for p in v['pages']}, c
        assert all(o == 1 for o in cells[c].values())
    assert cols[-1].get('data-flags') == 'exec'
    assert sum(1 for g in root.iter(NS + 'g') if g.get('class') == 'space') == 1
    # Drawn where the data says: a filled cell is blue, an empty one not.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'map.svg')
        with open(path, 'w') as f:
            f.write(svgs['SVG0'])
        img = render(path)
    ax = Axes(root)
    filled = next(iter(cells[0]))
    empty = next(r for r in range(len(every)) if r not in cells[0])
    assert img.near(*ax.px(0.5, filled + 0.5), '#1f77b4', radius=1)
    assert not img.near(*ax.px(0.5, empty + 0.5), '#1f77b4', radius=1)


@ktap_test
def test_sample_map_shares_rows_when_there_are_too_many():
    # 5000 pages in three blocks: more than 2000 rows' worth.
    tr = Sampled()
    a = {TEXT + k for k in range(1000)}
    b = {HEAP + k for k in range(3000)}
    c = {HEAP + 5000 + k for k in range(1000)}
    tr.scan(a | b | c)
    tr.scan(set(list(sorted(b))[:1500]))
    tr.scan(set())
    rc, out, err, svgs = run('samples', '--map', 'SVG0', trace=tr.text())
    assert rc == 0, err
    check_samples(out, tr)
    root = ET.fromstring(svgs['SVG0'])
    m = next(g for g in root.iter(NS + 'g') if g.get('class') == 'map')
    per, rows = int(m.get('data-pages-per-row')), int(m.get('data-rows'))
    # The fewest pages a row that keep blocks apart and fit 2000 rows.
    assert per == 3 and rows == 334 + 1000 + 334, (per, rows)
    title = root.find(NS + 'title').text
    assert 'a row per 3 pages: 5000 pages, more than 2000 rows' in title, title
    cols, cells = map_cells(root)
    assert len(cols) == 3
    assert set(cells[0]) == set(range(rows)) and all(
        o == 1 for o in cells[0].values())
    # The second interval: b's first 1500 pages, rows 334 .. 833, full.
    assert set(cells[1]) == set(range(334, 834)), sorted(cells[1])
    assert cells[2] == {}


# ---- compare -----------------------------------------------------------------------

def check_compare(out, s, i, same):
    sec = sections(out)
    rows = sec['interval']
    n = max(len(s.iv), len(i.iv))
    assert len(rows) == n, rows
    js = []
    for k, row in enumerate(rows):
        assert int(row[0]) == k + 1
        assert row[1] == (str(s.iv[k]['ref']) if k < len(s.iv) else '-'), row
        assert row[2] == (str(len(i.iv[k]['pages'])) if k < len(i.iv) else '-'), row
        if not same:
            assert len(row) == 4, row
            continue
        if k >= min(len(s.iv), len(i.iv)):
            assert row[3:6] == ['-', '-', '-'], row
            continue
        a, b = s.iv[k]['pages'], i.iv[k]['pages']
        assert int(row[3]) == len(a & b) and int(row[4]) == len(a | b), row
        if a | b:
            j = len(a & b) / len(a | b)
            assert close(row[5], j, 1e-4), (row, j)
            js.append(j)
        else:
            assert row[5] == '-', row
    for name, tr, counts in (('sampled', s, [v['ref'] for v in s.iv]),
                             ('interval', i, [len(v['pages']) for v in i.iv])):
        r = next(r for r in sec['trace'] if r[0] == name)
        assert int(r[2]) == len(counts), r
        assert close(r[3], sum(counts) / len(counts), 1e-4), (r, counts)
        assert close(r[4], statistics.median(counts), 0.05), (r, counts)
        assert int(r[5]) == max(counts), (r, counts)
    table = sec['tau_intervals']
    assert [int(r[0]) for r in table] == taus(n), table
    for r in table:
        tau = int(r[0])
        for k, tr in ((1, s), (3, i)):
            m, x = ws_stats(tr.iv, tau)
            assert close(r[k], m, 1e-4) and int(r[k + 1]) == x, (r, k, m, x)
    if same:
        mean, cnt = summary(out, r'jaccard: mean ([\d.]+) over (\d+) intervals')
        assert int(cnt) == len(js) and close(mean, sum(js) / len(js), 1e-4)
    else:
        assert 'jaccard' not in out


def pair(seed, aslr=False):
    """The same program traced twice: sampled, and in interval mode,
    mostly the same pages per interval, with an exec after the first few."""
    rng = random.Random(seed)
    s = Sampled(ms=100)
    i = Interval(ms=100, stack=0x7ffe0000000 if aslr else 0x7ffff000000)
    # Before the exec: one interval in each, then the exec in the next.
    for k in range(9):
        pages = random_pages(rng, rng.randrange(2, 30)) if k != 5 else set()
        if k == 1:
            s.exec()
            i.fault(TEXT + 99)      # the old space's: left out
            i.exec()
        s.scan(pages)
        # The interval trace sees about the same, faults in any order,
        # some twice, a failed one, a page of its own now and then.
        faulted = set(p for p in pages if rng.random() < 0.85)
        if rng.random() < 0.5:
            faulted.add(HEAP + 230 + k)
        for p in sorted(faulted, key=lambda _: rng.random()):
            i.fault(p, rng.choice(('minor', 'reref', 'reref', 'major')))
            if rng.random() < 0.2:
                i.fault(p, 'reref')
        i.fault(HEAP + 255, 'SIGSEGV')
        if k < 8 or seed % 2:
            i.rearm()
    # After the last re-arm: not an interval.
    i.fault(TEXT + 120)
    return s, i


@ktap_test
def test_compare_sample_side_by_side_with_jaccard():
    for seed in (11, 12, 13):
        s, i = pair(seed)
        rc, out, err, _ = run('compare', 'TRACE', 'FILE0', trace=s.text(),
                              files=[i.text()])
        assert rc == 0, err
        assert 'the same addresses' in out, out
        check_compare(out, s, i, same=True)
        assert len(i.iv) == (9 if seed % 2 else 8)


@ktap_test
def test_compare_sample_with_other_addresses_compares_counts_only():
    s, i = pair(21, aslr=True)
    rc, out, err, _ = run('compare', 'TRACE', 'FILE0', trace=s.text(),
                          files=[i.text()])
    assert rc == 0, err
    assert re.search(r'# addresses differ \(ASLR\? a region starts at 7ff\w+ in '
                     r'one, 7ff\w+ in the other\): the page sets are not '
                     r'compared', out), out
    check_compare(out, s, i, same=False)


@ktap_test
def test_compare_sample_refuses_the_wrong_kinds():
    s, i = pair(31)
    window = i.text().replace('interval=100', 'window=64')
    for args, files, msg in (
            (['compare', 'TRACE', 'FILE0'], [s.text()],
             'is not an interval trace (its mode: sample=100; a sampled trace '
             'goes first): give one made with tracepgfault -i MS second'),
            (['compare', 'TRACE', 'FILE0'], [window],
             'is not an interval trace (its mode: window=64)'),
            (['compare', 'TRACE', 'FILE0'], [tree((200, i.text()))],
             'is a tree file (tracepgfault -f): give the interval trace of one '
             'process'),
            (['compare', 'TRACE', 'FILE0'],
             [i.text().replace(' interval\n', ' user\n')],
             'has no complete interval')):
        rc, out, err, _ = run(*args, trace=s.text(), files=files)
        assert rc == 1 and msg in err, (msg, err)
    # The two the other way round.
    rc, out, err, _ = run('compare', 'TRACE', 'FILE0', trace=i.text(),
                          files=[s.text()])
    assert rc == 1 and 'is an interval trace (interval=100), not a sampled ' \
        'one' in err and 'pgfreport compare takes the sampled trace first, then ' \
        'the interval one' in err, err


if __name__ == '__main__':
    main()
