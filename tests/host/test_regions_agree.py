# SPDX-License-Identifier: GPL-2.0
"""The per-region outputs of pgfreport agree, and agree with an oracle.

For every trace of the host corpus (the seed's, every record type, the
generated benchmark trace) and for random traces whose regions are mapped,
unmapped, split, merged, shrunk, grown and moved between faults (with an
exec now and then), the map's marks of each region, the summary's touched
pages and faults of it and the HTML report's region table are the same,
and are what a brute-force reading of the trace says: a fault counts for
the region of the final layout that holds its address; a fault at an
address no region holds at the end, for the last region that held it when
it faulted if that region was removed holding it, else for none (the
summary says how many). hot's pages, in every address space, count for
the same regions; the CSV and JSON forms of the reports say the same as
their text. --space N is checked on the traces with an exec."""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main  # noqa: E402
import tracelib  # noqa: E402

TOP = tracelib.TOP
BIN = tracelib.BIN
PGFREPORT = os.path.join(BIN, 'pgfreport')
COUNTED = ('minor', 'major', 'reref')


def run(*args):
    p = subprocess.run([PGFREPORT, *args], capture_output=True, text=True)
    assert p.returncode == 0, (args, p.stderr)
    return p.stdout


def oracle(text, want_space=-1):
    """Per row of address space @want_space (-1: the last), keyed by
    (start, end, alive): [touched, faults, major, reref]; and the pages
    and faults credited to no row."""
    page_size = int(re.search(r'page_size (\d+)', text).group(1))
    spaces = []
    regions, pages = {}, {}

    def holder(addr):
        for rid, r in regions.items():
            if r['alive'] and r['start'] <= addr < r['end']:
                return rid
        return None

    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        kind = f[0]
        if kind == 'exec':
            spaces.append((regions, pages))
            regions, pages = {}, {}
        elif kind == 'layout':
            for r in regions.values():
                r['alive'] = False
        elif kind in ('map', 'change'):
            r = regions.setdefault(int(f[2]), {})
            r.update(start=int(f[3], 16), end=int(f[4], 16), alive=True,
                     name=line.split(' ', 9)[9] if len(f) > 9 else '')
        elif kind == 'unmap':
            regions.setdefault(int(f[2]), {'start': 0, 'end': 0,
                                           'name': ''})['alive'] = False
        elif kind == 'fault' and f[6] in COUNTED:
            addr = int(f[3], 16)
            p = pages.setdefault(addr // page_size,
                                 {'n': 0, 'major': 0, 'reref': 0, 'reg': None})
            p['n'] += 1
            p['major'] += f[6] == 'major'
            p['reref'] += f[6] == 'reref'
            h = holder(addr)
            if h is not None:
                p['reg'] = h
    spaces.append((regions, pages))
    regions, pages = spaces[want_space]
    counts = {rid: [0, 0, 0, 0] for rid, r in regions.items() if r['end']}
    out_pages = out_faults = 0
    for page, p in pages.items():
        addr = page * page_size
        row = None
        for rid, r in regions.items():
            if r['alive'] and r['start'] <= addr < r['end']:
                row = rid
        last = regions.get(p['reg'])
        if row is None and last and not last['alive'] and \
                last['start'] <= addr < last['end']:
            row = p['reg']
        if row is None:
            out_pages += 1
            out_faults += p['n']
            continue
        c = counts[row]
        c[0] += 1
        c[1] += p['n']
        c[2] += p['major']
        c[3] += p['reref']
    rows = Rows()
    for rid, c in counts.items():
        r = regions[rid]
        rows.add((r['start'], r['end'], r['alive'], r['name']), c)
    return rows, out_pages, out_faults


class Rows(dict):
    """Rows by (start, end, alive, name): the sorted values of the rows
    with that key (two removed regions may have had the same)."""

    def add(self, key, value):
        self.setdefault(key, []).append(value)
        self[key].sort()

    def touched(self):
        out = Rows()
        for key, values in self.items():
            for v in values:
                out.add(key, v[0])
        return out


def name_of(rest):
    """The region's name as the outputs print it: '' for none."""
    rest = rest.removesuffix(' (removed)').strip()
    return '' if rest == '[anon]' else rest


def summary_rows(out):
    rows = Rows()
    for line in out.splitlines():
        if line.startswith('#'):
            continue
        f = line.split(None, 9)
        key = (int(f[0], 16), int(f[1], 16), not line.endswith('(removed)'),
               name_of(f[9]))
        rows.add(key, [int(x) for x in (f[4], f[5], f[6], f[7])])
    return rows


MAP_LINE = re.compile(r'Region: ([0-9a-f]+) - ([0-9a-f]+) \( *(\d+) pages\): '
                      r'\|([^|]*)\|(.*)$')


def map_rows(out):
    rows = Rows()
    for line in out.splitlines():
        if line.startswith('#'):
            continue
        m = MAP_LINE.match(line)
        assert m, line
        key = (int(m.group(1), 16), int(m.group(2), 16),
               not line.endswith('(removed)'), name_of(m.group(5)))
        assert len(m.group(4)) == int(m.group(3)), line
        rows.add(key, sum(c != '.' for c in m.group(4)))
    return rows


def html_rows(path, trace, space_args):
    out = os.path.join(os.path.dirname(path), 'r.html')
    run('html', *space_args, '-o', out, trace)
    with open(out) as f:
        page = f.read()
    m = re.search(r'<script type="application/json" id="pgf-data">(.*?)</script>',
                  page, flags=re.S)
    assert m, 'no pgf-data in the HTML report'
    rows = Rows()
    for r in json.loads(m.group(1))['regions']:
        key = (int(r['start'], 16), int(r['end'], 16), r['alive'],
               name_of(r['name']))
        rows.add(key, [r['touched'], r['faults'], r['major'], r['reref']])
    return rows


def hot_rows(path):
    """pgfreport hot's every page, as CSV and as JSON (which must agree),
    by its address space: rows keyed as the oracle's, [pages, refs]; and
    the pages and references credited to no region."""
    import csv
    import io
    rows = list(csv.DictReader(io.StringIO(
        run('hot', '--top', '100000000', '--format', 'csv', path))))
    js = json.loads(run('hot', '--top', '100000000', '--format', 'json', path))
    assert len(js) == len(rows), (len(js), len(rows))
    for c, j in zip(rows, js):
        assert int(c['page']) == j['page'] and int(c['refs']) == j['refs'], (c, j)
        assert (c['region'] or None) == j['region'], (c, j)
    text = run('hot', '--top', '100000000', path)
    names = [l.split(None, 6)[6] for l in text.splitlines()
             if l.strip() and not l.startswith('#')]
    assert len(names) == len(rows), (len(names), len(rows))
    by_space = {}
    for c, n in zip(rows, names):
        space = by_space.setdefault(int(c['space']), [Rows(), 0, 0])
        refs = int(c['refs'])
        if not c['region']:
            assert n == '-', (c, n)
            space[1] += 1
            space[2] += refs
            continue
        removed = c['removed'] == 'true'
        assert n == c['region'] + (' (removed)' if removed else ''), (c, n)
        key = (int(c['region_start']), int(c['region_end']), not removed,
               name_of(c['region']))
        space[0].setdefault(key, {})
        space[0][key].setdefault('pages', 0)
        space[0][key]['pages'] += 1
        space[0][key].setdefault('refs', 0)
        space[0][key]['refs'] += refs
    return by_space


def check(text, name):
    """Every per-region output of @text against the others and the oracle."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 't.trace')
        with open(path, 'w') as f:
            f.write(text)
        n_spaces = 1 + sum(1 for l in text.splitlines() if l.startswith('exec '))
        hot_by_space = hot_rows(path)
        for space in sorted({-1, 0} if n_spaces > 1 else {-1}):
            args = [] if space < 0 else ['--space', str(space)]
            want, out_pages, out_faults = oracle(text, space)
            summ_out = run('summary', *args, path)
            summ = summary_rows(summ_out)
            assert summ == want, (name, space, 'summary', summ, want)
            m = map_rows(run('map', *args, path))
            assert m == want.touched(), (name, space, 'map', m, want)
            # the same as rows for programs
            rows = Rows()
            for r in json.loads(run('summary', *args, '--format', 'json', path)):
                rows.add((r['start'], r['end'], not r['removed'], r['region']
                          if r['region'] != '[anon]' else ''),
                         [r['touched'], r['faults'], r['major'], r['rerefs']])
            assert rows == want, (name, space, 'summary json', rows, want)
            rows = Rows()
            for r in json.loads(run('map', *args, '--format', 'json', path)):
                rows.add((r['start'], r['end'], not r['removed'],
                          name_of(r['region'] or '')), r['touched'])
            assert rows == want.touched(), (name, space, 'map json', rows, want)
            if space < 0:
                h = html_rows(path, path, args)
                assert h == want, (name, 'html', h, want)
            # hot: a page's references for the same region, in every
            # address space; two removed regions with the same range and
            # name are one key here
            space_no = space if space >= 0 else n_spaces - 1
            hot = hot_by_space.get(space_no, [Rows(), 0, 0])
            want_hot = {}
            for key, values in want.items():
                for v in values:
                    if v[0]:
                        w = want_hot.setdefault(key, {'pages': 0, 'refs': 0})
                        w['pages'] += v[0]
                        w['refs'] += v[1]
            assert dict(hot[0]) == want_hot, (name, space, 'hot', hot[0], want_hot)
            assert (hot[1], hot[2]) == (out_pages, out_faults), \
                (name, space, 'hot out', hot[1:], out_pages, out_faults)
            if out_pages:
                assert (f'# {out_pages} pages touched ({out_faults} faults) '
                        'lie in no region') in summ_out, (name, summ_out)
            else:
                assert 'lie in no region' not in summ_out, (name, summ_out)


def random_trace(seed):
    """A trace of one process whose regions change between its faults as
    mmap, munmap, mprotect, mremap and brk change them."""
    rnd = random.Random(seed)
    lo, hi = 0x100, 0x300          # the arena, in pages
    t = 1000
    nid = 1
    alive = {}                     # id -> [start page, end page, perms]
    lines = ['pgfault_history 6 pid 7 page_size 4096', 'start 1000 first']
    faults = 0

    def free(a, b):
        return lo <= a < b <= hi and all(e <= a or b <= s
                                         for s, e, _ in alive.values())

    def rec(kind, rid):
        s, e, perms = alive[rid]
        lines.append(f'{kind} {t} {rid} {s * 4096:x} {e * 4096:x} {perms} '
                     f'{(s - lo) * 4096:x} 08:01 {rid} /lib/r{rid}')

    def new_region(s, e, perms='rw-p'):
        nonlocal nid
        alive[nid] = [s, e, perms]
        rec('map', nid)
        nid += 1

    def place(tries):
        """mmap of 1 to 8 pages where nothing is, if one of @tries finds
        room."""
        for _ in range(tries):
            s = rnd.randrange(lo, hi - 8)
            e = s + rnd.randrange(1, 9)
            if free(s, e):
                new_region(s, e)
                return

    def layout():
        at = len(lines)
        lines.append('')
        for _ in range(3):
            place(50)
        lines[at] = f'layout {t} {len(alive)}'

    layout()
    for _ in range(rnd.randrange(40, 160)):
        t += rnd.randrange(1, 1000)
        op = rnd.random()
        ids = sorted(alive)
        if op < 0.55 or not ids:
            if ids and rnd.random() < 0.85:
                s, e, _ = alive[rnd.choice(ids)]
                addr = rnd.randrange(s * 4096, e * 4096)
            else:
                addr = rnd.randrange(lo * 4096, hi * 4096)
            result = rnd.choice(('minor', 'minor', 'minor', 'major', 'reref',
                                 'SIGSEGV'))
            lines.append(f'fault {t} 7 {addr:x} w user {result} 400000')
            faults += result in COUNTED
        elif op < 0.62:
            place(20)
        elif op < 0.68:
            rid = rnd.choice(ids)
            lines.append(f'unmap {t} {rid}')
            del alive[rid]
        elif op < 0.78:
            # mprotect of a part: the region keeps one side, a new one
            # takes the other
            rid = rnd.choice(ids)
            s, e, perms = alive[rid]
            if e - s >= 2:
                m = rnd.randrange(s + 1, e)
                if rnd.random() < 0.5:
                    alive[rid][1] = m
                    rec('change', rid)
                    new_region(m, e, 'r--p')
                else:
                    alive[rid][0] = m
                    rec('change', rid)
                    new_region(s, m, 'r--p')
        elif op < 0.84:
            # munmap of one end
            rid = rnd.choice(ids)
            s, e, perms = alive[rid]
            if e - s >= 2:
                m = rnd.randrange(s + 1, e)
                alive[rid][0 if rnd.random() < 0.5 else 1] = m
                rec('change', rid)
        elif op < 0.89:
            # brk, mremap in place: the end grows
            rid = rnd.choice(ids)
            s, e, perms = alive[rid]
            g = rnd.randrange(1, 5)
            if free(e, e + g):
                alive[rid][1] = e + g
                rec('change', rid)
        elif op < 0.94:
            # two neighbours merge: one grows over the other, which goes
            for rid in ids:
                s, e, perms = alive[rid]
                nb = [o for o in ids if alive[o][0] == e]
                if nb:
                    o = nb[0]
                    alive[rid][1] = alive[o][1]
                    lines.append(f'unmap {t} {o}')
                    del alive[o]
                    rec('change', rid)
                    break
        elif op < 0.98:
            # mremap that moves: a new region elsewhere, the old one gone
            rid = rnd.choice(ids)
            s, e, perms = alive[rid]
            for _ in range(20):
                ns = rnd.randrange(lo, hi - (e - s))
                del alive[rid]
                ok = free(ns, ns + e - s)
                alive[rid] = [s, e, perms]
                if ok:
                    lines.append(f'unmap {t} {rid}')
                    del alive[rid]
                    new_region(ns, ns + e - s, perms)
                    break
        elif seed % 3 == 0:
            lines.append(f'exec {t} 7 /bin/next')
            alive.clear()
            layout()
    lines.append(f'exit {t + 1} 0 {faults} 0 {nid - 1}')
    return '\n'.join(lines) + '\n'


@test
def the_corpus_s_traces_agree():
    with open(os.path.join(TOP, 'tests', 'host', 'traces', 'seed.trace')) as f:
        check(f.read(), 'seed.trace')
    check(tracelib.EVERY, 'EVERY')
    gen = subprocess.run([os.path.join(BIN, 'gentrace'), '20000'],
                         capture_output=True, text=True, check=True).stdout
    check(gen, 'gentrace 20000')


@test
def random_region_changes_agree():
    for seed in range(200):
        check(random_trace(seed), f'random trace {seed}')


@test
def a_split_after_the_faults_credits_the_new_region():
    # The demo's case: faults in a library's data, then the loader's
    # RELRO mprotect splits it; the part that moved to the new region
    # has its faults there, in every output.
    text = ('pgfault_history 6 pid 7 page_size 4096\nstart 100 first\n'
            'layout 100 1\nmap 100 1 5db000 5e5000 rw-p 0 08:01 9 /bin/busybox\n'
            'fault 200 7 5e2000 w user minor 0\n'
            'fault 201 7 5e3000 w user minor 0\n'
            'fault 202 7 5e4000 w user minor 0\n'
            'fault 203 7 5db000 w user minor 0\n'
            'change 300 1 5db000 5e2000 rw-p 0 08:01 9 /bin/busybox\n'
            'map 300 2 5e2000 5e5000 r--p 7000 08:01 9 /bin/busybox\n'
            'exit 400 0 4 0 2\n')
    check(text, 'split')
    rows, _, _ = oracle(text)
    assert rows[(0x5e2000, 0x5e5000, True, '/bin/busybox')] == [[3, 3, 0, 0]], rows
    assert rows[(0x5db000, 0x5e2000, True, '/bin/busybox')] == [[1, 1, 0, 0]], rows


if __name__ == '__main__':
    main()
