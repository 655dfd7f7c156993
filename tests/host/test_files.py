# SPDX-License-Identifier: GPL-2.0
"""The file I/O records of format version 7 ("file", "cache") through the
tools: pgfreport files (text, csv, json; per file and per process) and
export csv --files, refs --files, lcs-csv --files, against a brute force
over the Python reader's records (tools/python/pgfault_trace.py) on
random traces of one process and of a tree; mrc --files against an LRU
simulated by hand on that reference string, with the kernel's own hit
ratio; a page of a mapped file and the same page read are one page; the
heatmap (SVG) and the html page give each file a band whose cells are
the references binned by hand; the binary form keeps them; a cache
record of a file never named is a bad trace."""
import csv
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main  # noqa: E402
from tracelib import EVERY, write, pgfreport  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'tools', 'python'))
import pgfault_trace as pt  # noqa: E402

HOWS = ('hit', 'miss', 'readahead', 'hole', 'direct')


def process(rng, pid, t0, nfiles, nrefs):
    """The lines of one process's trace: its files, random runs over them
    (half of them where the file's last run ended or in its last page),
    its exit with the cache totals."""
    lines = [f'pgfault_history 7 pid {pid} page_size 4096',
             f'start {t0} first files']
    t = t0
    for i in range(nfiles):
        t += 1
        lines.append(f'file {t} {i} 08:{i % 3:02x} {100 + i} /data/f{i} with space')
    nxt = {}
    for _ in range(nrefs):
        t += 1
        f = rng.randrange(nfiles)
        if f in nxt and rng.random() < 0.5:
            index = max(0, nxt[f] - rng.randrange(2))
        else:
            index = rng.randrange(500)
        pages = rng.randrange(1, 20)
        how = rng.choice(HOWS)
        if how != 'readahead':
            nxt[f] = index + pages
        lines.append(f'cache {t} {pid} {f} {index} {pages} '
                     f'{rng.choice("rw")} {how}')
    lines.append(f'exit {t + 1} 0 0 0 0 cache {nrefs} 0')
    return lines


def one(rng, nfiles=6, nrefs=800):
    return '\n'.join(process(rng, 7, 1000, nfiles, nrefs)) + '\n'


def tree(rng):
    """Three processes, each its own file ids, as tracepgfault -f writes."""
    out = ['pgfault_history_tree 1 root 10']
    for k, pid in enumerate((10, 11, 12)):
        out.append(f'pid {pid}')
        out += process(rng, pid, 1000 + k, 3 + k, 200)
    return '\n'.join(out) + '\n'


def brute(path):
    """Per (pid, file id): the tallies pgfreport files gives, by hand."""
    files, order = {}, []
    for r in pt.records(path):
        pid = r.get('pid', 7)
        if r['type'] == 'file':
            key = (pid, r['id'])
            files[key] = dict(path=r['path'], dev=r['dev'], inode=r['inode'],
                              used=0, distinct=set(), read=0, write=0,
                              runs=0, seq=0, random=0, nxt=None,
                              **{h: 0 for h in HOWS})
            order.append(key)
        elif r['type'] == 'cache':
            f = files[pid, r['file']]
            f[r['cache']] += r['pages']
            if r['cache'] == 'readahead':
                continue
            f['used'] += r['pages']
            f['read' if r['access'] == 'r' else 'write'] += r['pages']
            f['runs'] += 1
            n, i = f['nxt'], r['index']
            if (n is None and i == 0) or (n is not None and i in (n, n - 1)):
                f['seq'] += 1
            else:
                f['random'] += 1
            f['nxt'] = i + r['pages']
            f['distinct'].update(range(i, i + r['pages']))
    return files, order


def check_files(path, tree_file):
    files, _ = brute(path)
    rc, out, err = pgfreport('files', '--format', 'json', path)
    assert rc == 0, err
    rows = json.loads(out)
    assert len(rows) == len(files), (len(rows), len(files))
    for row in rows:
        f = files[row['pid'] if tree_file else 7, row['file']]
        for k in ('path', 'dev', 'inode', 'used', 'read', 'write', 'runs',
                  'seq', 'random') + HOWS:
            assert row[k] == f[k], (k, row, f)
        assert row['distinct'] == len(f['distinct'])
        hm = f['hit'] + f['miss']
        assert (row['hit_ratio'] is None) == (hm == 0)
        if hm:
            assert abs(row['hit_ratio'] - f['hit'] / hm) < 1e-9
    # most pages used first
    used = [r['used'] for r in rows]
    assert used == sorted(used, reverse=True), used
    # csv: the same rows
    rc, out, err = pgfreport('files', '--format', 'csv', path)
    assert rc == 0, err
    got = list(csv.DictReader(io.StringIO(out)))
    assert [int(r['used']) for r in got] == used
    # per process: the sums of its files
    rc, out, err = pgfreport('files', '--format', 'json', '--table',
                             'processes', path)
    assert rc == 0, err
    for row in json.loads(out):
        mine = [f for (p, _), f in files.items() if (p if tree_file else 7) == row['pid']]
        for k in ('used', 'hit', 'miss', 'readahead', 'runs', 'seq'):
            assert row[k] == sum(f[k] for f in mine), (k, row)
    # the text: the totals line
    rc, out, err = pgfreport('files', '--top', '0', path)
    assert rc == 0, err
    total = sum(f['used'] for f in files.values())
    assert out.startswith(f'# {len(files)} files: {total} pages used'), out[:200]


@test
def files_report_against_brute_force():
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as d:
        for i in range(5):
            check_files(write(d, f'one{i}.trace', one(rng)), False)
        check_files(write(d, 'tree.trace', tree(rng)), True)
        check_files(write(d, 'every.trace', EVERY), False)


@test
def export_csv_files_has_every_reference():
    rng = random.Random(8)
    with tempfile.TemporaryDirectory() as d:
        for name, text, is_tree in (('one.trace', one(rng), False),
                                    ('tree.trace', tree(rng), True)):
            path = write(d, name, text)
            paths, want = {}, []
            for r in pt.records(path):
                pid = r.get('pid', 7)
                if r['type'] == 'file':
                    paths[pid, r['id']] = r
                elif r['type'] == 'cache':
                    f = paths[pid, r['file']]
                    row = [str(r['time']), str(r['tid']), f['path'],
                           str(r['index']), str(r['pages']), r['access'],
                           r['cache'], str(r['file']), f['dev'], str(f['inode'])]
                    want.append(row + ([str(pid)] if is_tree else []))
            rc, out, err = pgfreport('export', 'csv', '--files', path)
            assert rc == 0, err
            got = list(csv.reader(io.StringIO(out)))
            head = ['time', 'tid', 'path', 'index', 'pages', 'access', 'cache',
                    'file', 'dev', 'inode'] + (['pid'] if is_tree else [])
            assert got[0] == head, got[0]
            assert got[1:] == want


@test
def export_refs_files_is_the_page_cache_reference_string():
    rng = random.Random(9)
    with tempfile.TemporaryDirectory() as d:
        path = write(d, 'tree.trace', tree(rng))
        num, paths, want = {}, {}, []
        for r in pt.records(path):
            pid = r.get('pid', 7)
            if r['type'] == 'file':
                paths[pid, r['id']] = (r['dev'], r['inode'])
            elif r['type'] == 'cache' and r['cache'] in ('hit', 'miss'):
                n = num.setdefault(paths[pid, r['file']], len(num))
                want += [n << 36 | p for p in range(r['index'], r['index'] + r['pages'])]
        rc, out, err = pgfreport('export', 'refs', '--files', path)
        assert rc == 0, err
        got = [int(x, 16) for x in out.splitlines() if not x.startswith('#')]
        assert got == want
        # lcs-csv: the same pages as obj_id, the next use of each
        rc, out, err = pgfreport('export', 'lcs-csv', '--files', path)
        assert rc == 0, err
        rows = list(csv.DictReader(io.StringIO(out)))
        assert [int(r['obj_id']) for r in rows] == want
        for i, r in enumerate(rows):
            nxt = int(r['next_access_vtime'])
            later = [j for j in range(i + 1, len(want)) if want[j] == want[i]]
            assert nxt == (later[0] + 1 if later else -1), (i, r)
        # the options that do not go together
        rc, _, err = pgfreport('export', 'json', '--files', path)
        assert rc == 2 and '--files' in err, err


@test
def binary_form_keeps_file_records():
    with tempfile.TemporaryDirectory() as d:
        src = write(d, 'every.trace', EVERY)
        pgfb = os.path.join(d, 'every.pgfb')
        back = os.path.join(d, 'back.trace')
        for args in (('convert', '-o', pgfb, src),
                     ('convert', '--to', 'text', '-o', back, pgfb)):
            rc, _, err = pgfreport(*args)
            assert rc == 0, err
        assert open(back).read() == EVERY
        rc1, a, _ = pgfreport('files', '--format', 'json', src)
        rc2, b, _ = pgfreport('files', '--format', 'json', pgfb)
        assert rc1 == rc2 == 0 and a == b


@test
def a_reference_to_an_unnamed_file_is_a_bad_trace():
    with tempfile.TemporaryDirectory() as d:
        path = write(d, 'bad.trace', 'pgfault_history 7 pid 1 page_size 4096\n'
                     'start 1 first files\ncache 2 1 3 0 1 r hit\n'
                     'exit 3 0 0 0 0 cache 1 0\n')
        for args in (('files', path), ('export', 'csv', '--files', path)):
            rc, _, err = pgfreport(*args)
            assert rc == 1 and 'bad.trace:3' in err and 'file 3' in err, (args, err)


@test
def exit_totals_are_checked():
    with tempfile.TemporaryDirectory() as d:
        text = ('pgfault_history 7 pid 1 page_size 4096\nstart 1 first files\n'
                'file 2 0 08:01 5 /x\ncache 3 1 0 0 1 r hit\n'
                'exit 4 0 0 0 0 cache 2 0\n')
        rc, _, err = pgfreport('files', write(d, 'short.trace', text))
        assert rc == 1 and '1 cache records where its exit record says 2' in err, err
        rc, _, err = pgfreport('files', write(d, 'ok.trace',
                                              text.replace('cache 2 0', 'cache 1 0')))
        assert rc == 0, err


def lru_misses(refs, size):
    """An LRU cache of @size pages over @refs, by hand: its misses."""
    from collections import OrderedDict
    cache, misses = OrderedDict(), 0
    for p in refs:
        if p in cache:
            cache.move_to_end(p)
            continue
        misses += 1
        cache[p] = True
        if len(cache) > size:
            cache.popitem(last=False)
    return misses


@test
def mrc_files_is_the_page_cache_reference_string():
    """mrc --files: the LRU, FIFO curves of the pages the page cache served,
    against a simulation by hand of the reference string export refs
    --files gives (checked itself above); and the kernel's own hit ratio."""
    rng = random.Random(10)
    with tempfile.TemporaryDirectory() as d:
        path = write(d, 'one.trace', one(rng, nfiles=3, nrefs=400))
        rc, out, err = pgfreport('export', 'refs', '--files', path)
        assert rc == 0, err
        refs = [int(x, 16) for x in out.splitlines() if not x.startswith('#')]
        rc, out, err = pgfreport('mrc', '--files', '--format', 'json', path)
        assert rc == 0, err
        rows = json.loads(out)
        assert rows
        for row in rows:
            assert row['lru_misses'] == lru_misses(refs, row['size_pages']), row
        hit = miss = 0
        for r in pt.records(path):
            if r['type'] == 'cache':
                hit += r['pages'] * (r['cache'] == 'hit')
                miss += r['pages'] * (r['cache'] == 'miss')
        rc, out, err = pgfreport('mrc', '--files', path)
        assert rc == 0, err
        want = (f"# the kernel's page cache: {hit} hits, {miss} misses of the "
                f"{hit + miss} file references")
        assert want in out, out[:600]
        # without --files: no file reference
        rc, out, err = pgfreport('mrc', path)
        assert rc == 0 and '# 0 references' in out, out[:400]


@test
def a_mapped_page_and_a_read_page_of_a_file_are_one_page():
    """A fault in a shared mapping of a file, a read() of the same page (by
    device and inode), and a write fault to a private mapping of it (the
    process's own copy, another page)."""
    with tempfile.TemporaryDirectory() as d:
        text = ('pgfault_history 7 pid 1 page_size 4096\nstart 1 first files\n'
                'layout 1 2\n'
                'map 1 1 400000 404000 r--s 1000 08:01 1234 /data/db\n'
                'map 1 2 500000 504000 rw-p 1000 08:01 1234 /data/db\n'
                'fault 2 1 401000 r user minor 0\n'
                'file 3 0 08:01 1234 /data/db\n'
                'cache 4 1 0 2 1 r hit\n'
                'fault 5 1 501000 w user minor 0\n'
                'exit 6 0 2 0 2 cache 1 0\n')
        path = write(d, 'map.trace', text)
        rc, out, err = pgfreport('reuse', '--files', '--format', 'json', path)
        assert rc == 0, err
        rows = {r['distance']: r['references'] for r in json.loads(out)}
        # the fault at 0x401000 is page (0x1000 + 0x1000) / 4096 = 2 of the
        # file: cold; the read of page 2 reuses it at distance 0; the write
        # to the private mapping is a page of its own: cold
        assert rows.get('cold') == 2 and rows.get('0') == 1, rows
        rc, out, err = pgfreport('reuse', path)
        assert rc == 0 and '# 2 references' in out, out[:300]
        # hot: the file's page 2 with its two references, named by its path
        rc, out, err = pgfreport('hot', '--files', '--format', 'json', path)
        assert rc == 0, err
        rows = json.loads(out)
        top = rows[0]
        assert (top['refs'], top['region'], top['file_offset'], top['page']) == \
            (2, '/data/db', 2 * 4096, None), rows
        assert sorted(r['refs'] for r in rows) == [1, 2], rows


HEAT_COLS, HEAT_ROWS = 512, 32


def file_refs(path):
    """The file references of a trace of one process, as pgfreport takes
    them with --files: (ns since its first record, (dev, inode), index)
    for every page a hit or a miss used."""
    refs, names, t0 = [], {}, None
    for r in pt.records(path):
        if t0 is None and r.get('time'):
            t0 = r['time']
        if r['type'] == 'file':
            names[r['id']] = (r['dev'], r['inode'])
        elif r['type'] == 'cache' and r['cache'] in ('hit', 'miss'):
            refs += [(r['time'] - t0, names[r['file']], i)
                     for i in range(r['index'], r['index'] + r['pages'])]
    return refs


def binned(refs):
    """Per file: its band's range (pages: HEAT_ROWS doubled until past its
    highest page) and its cells {(column, row): references}, with the
    heatmap's column width (the least power of two that holds the last
    reference in HEAT_COLS columns)."""
    per = 1
    while max(t for t, _, _ in refs) // per >= HEAT_COLS:
        per *= 2
    bands = {}
    for t, f, i in refs:
        end = bands.setdefault(f, [HEAT_ROWS, {}])
        while i >= end[0]:
            end[0] *= 2
    for t, f, i in refs:
        end, cells = bands[f]
        key = (t // per, i // (end // HEAT_ROWS))
        cells[key] = cells.get(key, 0) + 1
    return per, bands


def html_data(trace, *args):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, 'r.html')
        rc, _, err = pgfreport('html', '-o', out, *args, trace)
        assert rc == 0, err
        text = open(out).read()
    m = re.search(r'id="pgf-data">(.*?)</script>', text, re.S)
    return json.loads(m.group(1))


@test
def heatmap_and_html_band_every_file_as_binned_by_hand():
    """Each file's band holds its references, at the column of their time
    and the row of their page in a range that doubled as pages came past
    it; the html page's files table is pgfreport files'; without --files
    there is no file band."""
    rng = random.Random(11)
    with tempfile.TemporaryDirectory() as d:
        for k in range(3):
            path = write(d, f'heat{k}.trace', one(rng, nfiles=4, nrefs=300))
            refs = file_refs(path)
            per, bands = binned(refs)
            data = html_data(path, '--files')
            heat = data['heat']
            assert heat['per'] == per, (heat['per'], per)
            names = {}
            for r in pt.records(path):
                if r['type'] == 'file':
                    names[r['path']] = (r['dev'], r['inode'])
            got = [b for b in heat['bands'] if b['file']]
            assert len(got) == len(bands) == len(heat['bands']), heat['bands']
            for b in got:
                end, cells = bands[names[b['name']]]
                assert int(b['end'], 16) == end, (b['name'], b['end'], end)
                c = b['cells']
                mine = {(c[i], c[i + 1]): c[i + 2] for i in range(0, len(c), 5)}
                assert mine == cells, (b['name'], sorted(mine.items())[:5],
                                       sorted(cells.items())[:5])
                assert b['faults'] == sum(cells.values())
            # the files table: pgfreport files' rows
            rc, out, err = pgfreport('files', '--format', 'json', path)
            assert rc == 0, err
            want = {(r['pid'], r['file']): r for r in json.loads(out)}
            assert len(data['files']['rows']) == len(want)
            for row in data['files']['rows']:
                w = want[row['pid'], row['id']]
                for key in ('path', 'dev', 'inode', 'used', 'distinct', 'read',
                            'write', 'seq', 'random') + HOWS:
                    assert row[key] == w[key], (key, row, w)
            assert data['files']['hit'] + data['files']['miss'] == len(refs)
            # the SVG: a band per file, its references
            svg = os.path.join(d, f'heat{k}.svg')
            rc, _, err = pgfreport('heatmap', '--files', '-o', svg, path)
            assert rc == 0, err
            text = open(svg).read()
            svg_bands = re.findall(r'<g class="file" data-name="([^"]*)" '
                                   r'data-faults="(\d+)"', text)
            assert sorted((names[n], int(v)) for n, v in svg_bands) == \
                sorted((f, sum(c.values())) for f, (_, c) in bands.items())
            assert f'{len(refs)} references: 0 faults in 0 regions' in text
            # without --files: no file references
            rc, _, err = pgfreport('heatmap', '-o', svg, path)
            assert rc == 0, err
            assert 'class="file"' not in open(svg).read()
            assert not html_data(path)['files']['on']


@test
def a_mapped_file_s_faults_are_in_its_band_and_its_region_s_row():
    """With --files, a fault in a shared mapping of a file is a reference
    to the file's page, in the file's band (the heatmap, the html page),
    and still a fault of its region in the html page's region table."""
    t0 = 10**9
    text = (f'pgfault_history 7 pid 42 page_size 4096\nstart {t0} first files\n'
            f'layout {t0} 1\n'
            f'map {t0} 1 400000 420000 r--s 0 08:01 11 /data/db\n'
            f'fault {t0} 42 401000 r user minor 0\n'
            f'file {t0 + 1000} 0 08:01 11 /data/db\n'
            f'cache {t0 + 2000} 42 0 0 4 r miss\n'
            f'cache {t0 + 5000000} 42 0 40 2 r hit\n'
            f'exit {t0 + 11000000} 0 1 0 1 cache 2 0\n')
    with tempfile.TemporaryDirectory() as d:
        path = write(d, 'mapped.trace', text)
        data = html_data(path, '--files')
        # 5 ms in 512 columns: 16384 ns a column; the band: pages 0-63
        # (page 40 doubled it from 32), 2 pages a row
        assert data['heat']['per'] == 16384
        (band,) = data['heat']['bands']
        assert (band['name'], band['file'], band['end'], band['top']) == \
            ('/data/db', True, '40', 42), band
        assert band['cells'] == [0, 0, 3, 0, 0.002, 0, 1, 2, 0.002, 0.002,
                                 305, 20, 2, 5, 5], band['cells']
        (region,) = data['regions']
        assert (region['faults'], region['touched']) == (1, 1), region
        assert (data['files']['hit'], data['files']['miss']) == (2, 4)
        # without --files: the fault in its region's band, no file
        data = html_data(path)
        assert [(b['name'], b['file'], b['faults']) for b in data['heat']['bands']] \
            == [('/data/db', False, 1)]
        assert data['regions'][0]['faults'] == 1


if __name__ == '__main__':
    main()
