# SPDX-License-Identifier: GPL-2.0
"""pgfreport --format csv|json: the rows of every report for programs
(summary, tree, hot, mrc, wss, tlb, reuse, timeline, map, symbols,
prefetch, samples, compare; --table for the second and third tables of
reuse, prefetch, samples and compare). Each is loaded by pandas (Debian's python3-pandas: CSV with
read_csv, JSON with read_json), its columns numeric where the text's are
numbers, and every number checked against the text report's; and the
CSV and the JSON hold the same rows. A report that is not a table, or a
shared pass, refuses the option."""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main, Skip  # noqa: E402
from tracelib import BIN, TREE, ended, gentrace, write  # noqa: E402

PGFREPORT = os.path.join(BIN, 'pgfreport')
# a map's marks: a character a page, a large region's more than csv's 128 KiB
csv.field_size_limit(sys.maxsize)


def run(*args):
    p = subprocess.run([PGFREPORT, *args], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, (args, p.stderr)
    return p.stdout


def rows_of_text(out):
    return [line.split() for line in out.splitlines()
            if line.strip() and not line.startswith('#')]


def loaded(fmt, out):
    """@out read by pandas in Debian's python3: columns, dtypes, rows."""
    py = '/usr/bin/python3'
    if subprocess.run([py, '-c', 'import pandas'], capture_output=True).returncode:
        raise Skip('no pandas for /usr/bin/python3 (python3-pandas)')
    code = ('import io, json, sys, pandas as pd\n'
            'd = sys.stdin.read()\n'
            f'df = pd.read_csv(io.StringIO(d)) if "{fmt}" == "csv" else '
            'pd.read_json(io.StringIO(d), orient="records", dtype=False)\n'
            'print(json.dumps({"cols": list(df.columns), '
            '"kinds": {c: df[c].dtype.kind for c in df}, '
            '"rows": json.loads(df.to_json(orient="values"))}))')
    p = subprocess.run([py, '-c', code], input=out, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def both(args, numeric):
    """The CSV and JSON of pgfreport @args: the same rows; as pandas reads
    them, the @numeric columns numbers. Their rows, as dicts."""
    c = run(*args, '--format', 'csv')
    j = run(*args, '--format', 'json')
    from_csv = list(csv.DictReader(io.StringIO(c)))
    from_json = json.loads(j)
    assert len(from_csv) == len(from_json) > 0, (len(from_csv), len(from_json))
    for a, b in zip(from_csv, from_json):
        assert list(a) == list(b), (list(a), list(b))
        for k in a:
            want = '' if b[k] is None else (str(b[k]).lower()
                                             if isinstance(b[k], bool) else str(b[k]))
            if isinstance(b[k], float):
                assert abs(float(a[k]) - b[k]) < 1e-9, (k, a[k], b[k])
            else:
                assert a[k] == want, (k, a[k], b[k])
    for fmt, out in (('csv', c), ('json', j)):
        df = loaded(fmt, out)
        assert df['cols'] == list(from_json[0]), df['cols']
        for col in numeric:
            assert df['kinds'][col] in 'iuf', (fmt, col, df['kinds'])
    return from_json


@test
def summary_rows_are_the_text_s():
    with tempfile.TemporaryDirectory() as d:
        g = gentrace(d, 20000)
        text = rows_of_text(run('summary', g))
        got = both(['summary', g], ('start', 'end', 'pages', 'touched', 'faults',
                                    'major', 'rerefs', 'first_ms'))
    assert len(got) == len(text), (got, text)
    for r, t in zip(got, text):
        assert (f"{r['start']:08x}", f"{r['end']:08x}", r['perms']) == tuple(t[:3]), (r, t)
        assert [r['pages'], r['touched'], r['faults'], r['major'], r['rerefs']] == \
            [int(x) for x in t[3:8]], (r, t)
        assert (t[8] == '-' and r['first_ms'] is None) or \
            abs(float(t[8]) - r['first_ms']) < 0.0005, (r, t)
        assert r['region'] == t[9] and r['removed'] == (t[-1] == '(removed)'), (r, t)


@test
def hot_rows_are_the_text_s():
    with tempfile.TemporaryDirectory() as d:
        g = gentrace(d, 20000)
        text = rows_of_text(run('hot', '-n', '30', g))
        got = both(['hot', '-n', '30', g], ('rank', 'page', 'refs', 'share',
                                           'cumulative'))
    assert len(got) == len(text) == 30, (len(got), len(text))
    for r, t in zip(got, text):
        assert [r['rank'], r['page'], r['refs']] == \
            [int(t[0]), int(t[1], 16), int(t[2])], (r, t)
        # the text rounds to 4 places
        assert abs(r['share'] - float(t[3])) <= 5.001e-5 and \
            abs(r['cumulative'] - float(t[4])) <= 5.001e-5, (r, t)
        assert (t[5] == '-' and r['file_offset'] is None) or \
            r['file_offset'] == int(t[5], 16), (r, t)
        assert r['region'] == t[6], (r, t)


@test
def mrc_rows_are_the_text_s():
    with tempfile.TemporaryDirectory() as d:
        g = gentrace(d, 20000)
        text = rows_of_text(run('mrc', g))
        got = both(['mrc', g], ('size_pages', 'size_bytes', 'lru', 'fifo',
                                'clock', 'opt', 'lru_misses', 'opt_misses'))
    assert len(got) == len(text) > 3, (len(got), len(text))
    for r, t in zip(got, text):
        assert [r['size_pages'], r['size_bytes']] == [int(t[0]), int(t[1])], (r, t)
        for k, name in enumerate(('lru', 'fifo', 'clock', 'opt')):
            assert abs(r[name] - float(t[2 + k])) <= 5.001e-5, (name, r, t)
            assert r[name + '_misses'] == int(t[6 + k]), (name, r, t)


@test
def tree_rows_are_the_text_s():
    with tempfile.TemporaryDirectory() as d:
        path = write(d, 'tree.trace', TREE)
        text = {int(t[0]): t for t in rows_of_text(run('tree', path))
                if t[0] != 'PID'}
        got = both(['tree', path], ('pid', 'parent', 'start_ms', 'end_ms',
                                    'faults', 'pages', 'lost', 'children'))
    assert {r['pid'] for r in got} == set(text), (got, text)
    for r in got:
        t = text[r['pid']]
        assert [r['parent'], r['faults'], r['pages'], r['lost'], r['children']] == \
            [int(t[1]), int(t[4]), int(t[5]), int(t[6]), int(t[7])], (r, t)
        assert abs(r['start_ms'] - float(t[2])) < 0.0005, (r, t)
        assert r['status'] == ' '.join(t[8:10]), (r, t)


@test
def wss_tlb_reuse_and_timeline_rows_are_the_text_s():
    with tempfile.TemporaryDirectory() as d:
        g = gentrace(d, 20000)
        for cmd, numeric, check in (
                ('wss', ('tau_refs', 'wss_pages', 'wss_bytes', 'fault_rate'),
                 lambda r, t: int(t[0]) == r['tau_refs'] and
                 abs(float(t[1]) - r['wss_pages']) <= 5.001e-5 and
                 abs(float(t[3]) - r['fault_rate']) <= 5.001e-5),
                ('tlb', ('entries', 'sets', 'reach_bytes', 'misses', 'miss_ratio'),
                 lambda r, t: [int(t[0]), int(t[2]), int(t[3]), int(t[4])] ==
                 [r['entries'], r['sets'], r['reach_bytes'], r['misses']] and
                 (t[1] == 'full' if r['ways'] is None else int(t[1]) == r['ways'])),
                ('reuse', ('references', 'share'),
                 lambda r, t: t[0] == r['distance'] and int(t[1]) == r['references']
                 and abs(float(t[2]) - r['share']) <= 5.001e-5 and
                 (len(t) == 3 if r['cumulative'] is None else
                  abs(float(t[3]) - r['cumulative']) <= 5.001e-5)),
                ('timeline', ('t_ms', 'faults', 'pages', 'working_set', 'footprint'),
                 lambda r, t: abs(float(t[0]) - r['t_ms']) <= 0.05 and
                 [float(x) for x in t[1:]] == [r['faults'], r['pages'],
                                               r['working_set'], r['footprint']])):
            text = rows_of_text(run(cmd, g))
            got = both([cmd, g], numeric)
            if cmd == 'reuse':
                text = text[:len(got)]      # the histogram; then per region
            assert len(got) == len(text) > 0, (cmd, len(got), len(text))
            for r, t in zip(got, text):
                assert check(r, t), (cmd, r, t)


def text_sections(out):
    """The text's tables: lists of split rows, a new one after each run
    of comment lines."""
    tables, cur, in_comment = [], None, True
    for line in out.splitlines():
        if line.startswith('#') or not line.strip():
            in_comment = True
            continue
        if in_comment:
            cur = []
            tables.append(cur)
            in_comment = False
        cur.append(line.split())
    return tables


def close(a, b, eps=5.001e-5):
    return abs(float(a) - float(b)) <= eps


@test
def map_rows_are_the_text_s():
    with tempfile.TemporaryDirectory() as d:
        g = gentrace(d, 20000)
        for extra in ([], ['--width', '8'], ['--counts']):
            text = [l for l in run('map', *extra, g).splitlines()
                    if l.startswith('Region: ')]
            got = both(['map', *extra, g], ('start', 'end', 'pages', 'touched'))
            assert len(got) == len(text) > 2, (extra, len(got), len(text))
            for r, t in zip(got, text):
                head, marks, tail = t.split('|')
                f = head.replace('(', ' ').split()
                assert (int(f[1], 16), int(f[3], 16), int(f[4])) == \
                    (r['start'], r['end'], r['pages']), (r, t)
                assert r['marks'] == marks, (r, t)
                name = tail.strip().removesuffix('(removed)').strip()
                assert (r['region'] or '') == name and \
                    r['removed'] == tail.endswith('(removed)'), (r, t)
                if not extra:
                    assert r['touched'] == sum(c != '.' for c in marks), (r, t)


@test
def symbols_and_prefetch_rows_are_the_text_s():
    with tempfile.TemporaryDirectory() as d:
        g = gentrace(d, 20000)
        text = rows_of_text(run('symbols', g))
        got = both(['symbols', g], ('faults', 'share', 'major', 'rerefs'))
        assert len(got) == len(text) > 0, (len(got), len(text))
        for r, t in zip(got, text):
            assert [r['faults'], r['major'], r['rerefs']] == \
                [int(t[0]), int(t[2]), int(t[3])] and close(r['share'], t[1]), (r, t)
            assert os.path.basename(r['dso']) == t[4] and r['symbol'] == t[5], (r, t)
        runs, regions, nexts = text_sections(run('prefetch', g))
        for table, rows, numeric, check in (
                ('next', nexts, ('n', 'avoided_demand', 'demand_share'),
                 lambda r, t: [r['n'], r['avoided_demand'], r['avoided_every']] ==
                 [int(t[0]), int(t[1]), int(t[3])] and close(r['demand_share'], t[2])
                 and close(r['every_share'], t[4])),
                ('runs', runs, ('min_strides', 'max_strides', 'runs', 'of_faults'),
                 lambda r, t: r['run_strides'] == t[0] and r['runs'] == int(t[1])
                 and close(r['of_faults'], t[2])),
                ('regions', regions, ('faults', 'next_page', 'share'),
                 lambda r, t: [r['faults'], r['next_page']] == [int(t[0]), int(t[1])]
                 and close(r['share'], t[2]) and (r['region'] or '-') == t[3])):
            got = both(['prefetch', '--table', table, g], numeric)
            assert len(got) == len(rows) > 0, (table, len(got), len(rows))
            for r, t in zip(got, rows):
                assert check(r, t), (table, r, t)
        # reuse's second table: per region, a column per bin
        hist, regions = text_sections(run('reuse', g))
        got = both(['reuse', '--table', 'regions', g], ('references', 'cold'))
        assert len(got) == len(regions) > 0, (len(got), len(regions))
        for r, t in zip(got, regions):
            assert (r['region'] or '-') == t[-1], (r, t)
            assert [v for k, v in r.items() if k != 'region'] == \
                [int(x) for x in t[:-1]], (r, t)


@test
def samples_and_compare_rows_are_the_text_s():
    import test_sample as ts
    s, i = ts.pair(11)
    with tempfile.TemporaryDirectory() as d:
        sp = write(d, 's.trace', s.text())
        ip = write(d, 'i.trace', i.text())
        ivs, taus = text_sections(run('samples', sp))
        got = both(['samples', sp], ('interval', 'end_ms', 'referenced', 'ws_k'))
        assert len(got) == len(ivs) > 3, (len(got), len(ivs))
        for r, t in zip(got, ivs):
            assert [r['interval'], r['referenced'], r['scanned'], r['ws_k']] == \
                [int(t[0]), int(t[3]), int(t[4]), int(t[6])], (r, t)
            assert close(r['end_ms'], t[1], 5e-4) and close(r['scan_us'], t[5], 5e-4)
            assert (r['flags'] or '-') == t[7], (r, t)
        got = both(['samples', '--table', 'wss', sp], ('tau_intervals', 'mean_pages'))
        assert len(got) == len(taus) > 1, (len(got), len(taus))
        for r, t in zip(got, taus):
            assert [r['tau_intervals'], r['tau_ms'], r['max_pages']] == \
                [int(t[0]), int(t[1]), int(t[3])] and close(r['mean_pages'], t[2]), (r, t)
        sections = text_sections(run('compare', sp, ip))
        ivs, taus = sections[0], sections[-1]
        got = both(['compare', sp, ip], ('interval', 'both', 'either'))
        assert len(got) == len(ivs) > 3, (len(got), len(ivs))
        for r, t in zip(got, ivs):
            want = [None if x == '-' else int(x) for x in t[:5]]
            assert [r['interval'], r['sampled'], r['faulted'], r['both'],
                    r['either']] == want, (r, t)
            assert (t[5] == '-' and r['jaccard'] is None) or close(r['jaccard'], t[5])
            flags = f"{r['sampled_flags'] or '-'}/{r['interval_flags'] or '-'}"
            assert (flags if flags != '-/-' else '-') == t[6], (r, t)
        got = both(['compare', '--table', 'wss', sp, ip],
                   ('tau_intervals', 'sampled_mean', 'interval_max'))
        assert len(got) == len(taus) > 1, (len(got), len(taus))
        for r, t in zip(got, taus):
            assert [r['tau_intervals'], r['sampled_max'], r['interval_max']] == \
                [int(t[0]), int(t[2]), int(t[4])] and \
                close(r['sampled_mean'], t[1]) and close(r['interval_mean'], t[3])


@test
def the_option_is_refused_where_there_is_no_table():
    with tempfile.TemporaryDirectory() as d:
        path = write(d, 't.trace', ended('pgfault_history 6 pid 1 page_size 4096\n'
                                         'start 1 first\nlayout 1 1\n'
                                         'map 1 1 1000 2000 rw-p 0 00:00 0\n'
                                         'fault 2 1 1000 r user minor 0\n'))
        for args in (['heatmap', '-o', os.path.join(d, 'h.svg'), '--format', 'csv'],
                     ['mrc+hot', '--format', 'csv'], ['summary', '--format', 'xml'],
                     ['reuse', '--table', 'regions'],
                     ['reuse', '--format', 'csv', '--table', 'bins'],
                     ['summary', '--format', 'csv', '--table', 'regions']):
            p = subprocess.run([PGFREPORT, *args, path], capture_output=True,
                               text=True, timeout=60)
            assert p.returncode == 2 and \
                ('--format' in p.stderr or '--table' in p.stderr) and \
                p.stdout == '', (args, p)
        # an empty table: the header alone, an empty array
        empty = write(d, 'e.trace', 'pgfault_history 6 pid 1 page_size 4096\n'
                      'start 1 first\nexit 2 0 0 0 0\n')
        assert run('summary', '--format', 'csv', empty).startswith('start,end,'), \
            run('summary', '--format', 'csv', empty)
        assert json.loads(run('summary', '--format', 'json', empty)) == []


if __name__ == '__main__':
    main()
