# SPDX-License-Identifier: GPL-2.0
"""The frames of format version 8 (a fault's PFN NODE ORDER LEVEL) and the
changes of version 9 (move, evict, split, collapse, mapped) through the tools:
pgfreport frames (its tables, csv and json, and the text) against a brute
force over the Python reader's records (tools/python/pgfault_trace.py) on
random traces, read as text and in the binary form; export csv's frame
and change columns against the records; a trace without frames says so;
bad options are refused."""
import csv
import io
import json
import os
import random
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main  # noqa: E402
from tracelib import write, pgfreport  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'tools', 'python'))
import pgfault_trace as pt  # noqa: E402

LEVELS = ('pte', 'pmd', 'pud')


def trace(rng, n):
    """A trace of @n faults in one region, most with a frame: frames in
    three nodes (and some without one), orders 0, 4 and 9, and some failed
    faults, which carry none."""
    lines = ['pgfault_history 8 pid 7 page_size 4096', 'start 1000 first',
             'layout 1000 1', 'map 1000 1 7f0000000000 7f0040000000 rw-p 0 00:00 0']
    t, kept = 1000, 0
    for i in range(n):
        t += rng.randrange(1, 3000000 if i > n // 2 else 20000)
        addr = 0x7f0000000000 + rng.randrange(0, 1 << 18) * 4096
        if rng.random() < 0.03:
            lines.append(f'fault {t} 7 {addr:x} r user SIGSEGV 401000')
            continue
        kept += 1
        line = f'fault {t} 7 {addr:x} w user minor 401000'
        if rng.random() < 0.9:
            pfn = rng.randrange(0, 1 << 22) if rng.random() < 0.3 else \
                rng.randrange(0x10000, 0x10400)
            node = '-' if pfn < 0x1000 else str(pfn >> 20)
            order = rng.choice((0, 0, 0, 4, 9))
            level = 'pmd' if order == 9 and rng.random() < 0.5 else 'pte'
            line += f' {pfn:x} {node} {order} {level}'
        lines.append(line)
    lines.append(f'exit {t + 1} 0 {kept} 0 1')
    return '\n'.join(lines) + '\n'


def brute(path, block, width):
    """What pgfreport frames should say, from the Python reader's records."""
    faults = [r for r in pt.records(path) if r['type'] == 'fault'
              and r['result'] in ('minor', 'major', 'reref')]
    framed = [r for r in faults if 'pfn' in r]
    seen, nodes, sizes = set(), {}, {}
    for r in framed:
        new = r['pfn'] not in seen
        seen.add(r['pfn'])
        for d, k in ((nodes, r['node']), (sizes, (r['order'], r['level']))):
            f, fr = d.get(k, (0, 0))
            d[k] = (f + 1, fr + new)
    t0 = framed[0]['time']
    span = max(r['time'] for r in framed) - t0
    interval = 1000000
    while span // interval >= width:
        interval *= 2
    cells = {}
    for r in framed:
        key = (r['pfn'] * 4096 // block, (r['time'] - t0) // interval)
        cells[key] = cells.get(key, 0) + 1
    return len(faults), framed, seen, nodes, sizes, interval, cells


def table(path, name, fmt='csv', *opts):
    rc, out, err = pgfreport('frames', '--table', name, '--format', fmt, *opts, path)
    assert rc == 0, err
    if fmt == 'json':
        return json.loads(out)
    return list(csv.DictReader(io.StringIO(out)))


@test
def frames_against_brute_force():
    rng = random.Random(49)
    with tempfile.TemporaryDirectory() as d:
        text = write(d, 't.trace', trace(rng, 6000))
        rc, _, err = pgfreport('convert', '-o', text + '.pgfb', text)
        assert rc == 0, err
        for path in (text, text + '.pgfb'):
            for block_mib, width in ((64, 64), (2, 17)):
                block = block_mib << 20
                opts = ('--block', str(block_mib), '--width', str(width))
                n, framed, seen, nodes, sizes, interval, cells = \
                    brute(path, block, width)
                got = {(None if r['node'] == '' else int(r['node'])):
                       (int(r['faults']), int(r['frames']))
                       for r in table(path, 'nodes', 'csv', *opts)}
                want = {(None if k == -1 else k): v for k, v in nodes.items()}
                assert got == want, (got, want)
                got = {(int(r['order']), r['level']): (int(r['faults']), int(r['frames']))
                       for r in table(path, 'sizes', 'csv', *opts)}
                assert got == sizes, (got, sizes)
                for r in table(path, 'sizes', 'json', *opts):
                    assert r['page_size'] == 4096 << r['order'], r
                rows = table(path, 'blocks', 'json', *opts)
                got = {(r['start'] // block, r['column']): r['faults']
                       for r in rows if r['faults']}
                assert got == cells, 'blocks'
                assert {r['start_ns'] - rows[0]['start_ns'] for r in rows} == \
                    {c * interval for c in range(max(k[1] for k in cells) + 1)}
                rc, out, err = pgfreport('frames', *opts, path)
                assert rc == 0, err
                assert f'# {n} faults, {len(framed)} with the frame' in out, out
                assert f'# {len(seen)} distinct frames' in out, out
                view = [l for l in out.splitlines() if l.endswith('|')]
                assert len(view) == len({k[0] for k in cells}), view
                assert sum(l.split('|')[1].count('#') for l in view) == len(cells)
        print(f'# 6000 faults: {len(framed)} with a frame, {len(seen)} frames, '
              f'{len(cells)} cells referenced')


CAUSES = {'move': ('numa', 'syscall', 'mbind', 'compaction', 'ksm'),
          'evict': ('kswapd', 'direct', 'pageout'), 'split': ('-',),
          'collapse': ('khugepaged', 'madvise'), 'mapped': ('remote', 'around')}


def change_trace(rng, n, frames):
    """A trace of @n change records (and some faults) in four regions and
    outside them, with their frames if @frames."""
    regions = [(1, 0x10000, 0x90000), (2, 0x100000, 0x500000),
               (3, 0x7f0000000000, 0x7f0000400000), (4, 0x7f1000000000, 0x7f1000001000)]
    lines = ['pgfault_history 9 pid 7 page_size 4096', 'start 1000 first',
             f'layout 1000 {len(regions)}']
    lines += [f'map 1000 {i} {a:x} {b:x} rw-p 0 00:00 0' for i, a, b in regions]
    t, faults = 1000, 0
    for i in range(n):
        t += rng.randrange(0, 2000000 if i > n // 2 else 30000)
        if rng.random() < 0.1:
            lines.append(f'fault {t} 7 {regions[0][1]:x} w user minor 401000')
            faults += 1
            continue
        kind = rng.choice(list(CAUSES))
        cause = rng.choice(CAUSES[kind])
        _, a, b = rng.choice(regions)
        addr = rng.randrange(a, b + 0x40000) & ~0xfff     # some outside
        pages = 512 if kind in ('split', 'collapse') else rng.choice((1, 1, 16))
        node = rng.choice(('0', '1', '2', '-'))
        new = '-' if kind == 'evict' else rng.choice(('0', '1', '2'))
        if kind == 'split':
            new = node
        if kind in ('collapse', 'mapped'):
            node = '-'
        line = f'{kind} {t} {rng.choice((0, 55, 7))} {addr:x} {pages} {cause} {node} {new}'
        if frames:
            pfn = '-' if kind in ('collapse', 'mapped') else f'{rng.randrange(1 << 30):x}'
            npfn = '-' if kind == 'evict' else f'{rng.randrange(1 << 30):x}'
            order = 9 if pages == 512 else rng.choice((0, 4))
            level = 'pte' if kind == 'split' or pages < 512 else 'pmd'
            line += f' {pfn} {npfn} {order} {level}'
        lines.append(line)
    lines.append(f'exit {t + 1} 0 {faults} 0 {len(regions)}')
    return '\n'.join(lines) + '\n', regions


def change_brute(path, regions, width):
    """What pgfreport frames should say of the changes, from the Python
    reader's records: the causes, the nodes, the timeline's cells."""
    recs = [r for r in pt.records(path) if r['type'] in CAUSES]
    causes, nodes, cells = {}, {}, {}
    for r in recs:
        key = (r['type'], r['cause'], r.get('order'), r.get('level'))
        c, p = causes.get(key, (0, 0))
        causes[key] = (c + 1, p + r['pages'])
        def add(node, col, n):
            v = nodes.setdefault(node, [0, 0, 0, 0])
            v[col] += n
        if r['type'] == 'move' and r['node'] != r['new_node']:
            add(r['new_node'], 0, r['pages'])
            add(r['node'], 1, r['pages'])
        elif r['type'] == 'evict':
            add(r['node'], 2, r['pages'])
        elif r['type'] == 'collapse':
            add(r['new_node'], 3, r['pages'])
    inside = [(r, i) for r in recs for i, a, b in regions if a <= r['address'] < b]
    t0 = inside[0][0]['time']
    interval = 1000000
    while (max(r['time'] for r, _ in inside) - t0) // interval >= width:
        interval *= 2
    for r, i in inside:
        key = (i, (r['time'] - t0) // interval, r['type'])
        cells[key] = cells.get(key, 0) + r['pages']
    return len(recs), causes, nodes, cells


@test
def changes_against_the_python_reader():
    """The change tables of pgfreport frames (changes, nodes' columns,
    timeline), read as text and binary, with and without frames, against
    sums over the Python reader's records; export csv's change rows
    against the same records."""
    rng = random.Random(9)
    kinds = ('moved', 'evicted', 'split', 'collapsed', 'mapped')
    with tempfile.TemporaryDirectory() as d:
        for frames in (True, False):
            text, regions = change_trace(rng, 3000, frames)
            path = write(d, f't{frames}.trace', text)
            rc, _, err = pgfreport('convert', '-o', path + '.pgfb', path)
            assert rc == 0, err
            for p in (path, path + '.pgfb'):
                for width in (64, 5):
                    opts = ('--width', str(width))
                    n, causes, nodes, cells = change_brute(p, regions, width)
                    got = {(r['change'], r['cause'],
                            int(r['order']) if r['order'] else None,
                            r['level'] or None): (int(r['records']), int(r['pages']))
                           for r in table(p, 'changes', 'csv', *opts)}
                    assert got == causes, (got, causes)
                    got = {(-1 if r['node'] == '' else int(r['node'])):
                           [int(r[k]) for k in ('moved_in', 'moved_out', 'evicted',
                                                'collapsed')]
                           for r in table(p, 'nodes', 'csv', *opts)}
                    got = {k: v for k, v in got.items() if any(v)}
                    assert got == nodes, (got, nodes)
                    got = {}
                    for r in table(p, 'timeline', 'json', *opts):
                        for k, name in zip(CAUSES, kinds):
                            if r[name]:
                                got[(r['region'], r['column'], k)] = r[name]
                    assert got == cells, 'timeline'
                    rc, out, err = pgfreport('frames', *opts, p)
                    assert rc == 0, err
                    assert f'# {n} changes the kernel made' in out, out
            rc, out, err = pgfreport('export', 'csv', path)
            assert rc == 0, err
            rows = [r for r in csv.DictReader(io.StringIO(out)) if r['change']]
            recs = [r for r in pt.records(path) if r['type'] in CAUSES]
            assert len(rows) == len(recs) == n
            for row, r in zip(rows, recs):
                want = (r['time'], r['address'], r['type'], r['pages'], r['cause'],
                        r['node'], r['new_node'], r.get('pfn'), r.get('new_pfn'))
                got = (int(row['time_ns']), int(row['address']), row['change'],
                       int(row['pages']), row['cause'],
                       int(row['node']) if row['node'] else -1,
                       int(row['new_node']) if row['new_node'] else -1,
                       int(row['pfn']) if row['pfn'] else None,
                       int(row['new_pfn']) if row['new_pfn'] else None)
                assert got == want, (got, want)
        print(f'# {n} change records, {len(causes)} causes, {len(cells)} cells')


@test
def export_csv_carries_the_frame():
    rng = random.Random(8)
    with tempfile.TemporaryDirectory() as d:
        path = write(d, 't.trace', trace(rng, 500))
        rc, out, err = pgfreport('export', 'csv', path)
        assert rc == 0, err
        rows = list(csv.DictReader(io.StringIO(out)))
        faults = [r for r in pt.records(path) if r['type'] == 'fault']
        assert len(rows) == len(faults)
        for row, r in zip(rows, faults):
            if 'pfn' not in r:
                assert row['pfn'] == row['node'] == row['page_size'] == \
                    row['level'] == '', row
                continue
            assert int(row['pfn']) == r['pfn'], (row, r)
            assert row['node'] == ('' if r['node'] == -1 else str(r['node']))
            assert int(row['page_size']) == 4096 << r['order']
            assert row['level'] == r['level']


@test
def phys_makes_the_frames_the_pages():
    """hot --phys: each frame's references, at its physical address, as
    the records count them; mrc --phys: the cold misses are the distinct
    frames; the faults without a frame are counted out on stderr."""
    rng = random.Random(50)
    with tempfile.TemporaryDirectory() as d:
        path = write(d, 't.trace', trace(rng, 3000))
        faults = [r for r in pt.records(path) if r['type'] == 'fault'
                  and r['result'] in ('minor', 'major', 'reref')]
        want = {}
        for r in faults:
            if 'pfn' in r:
                want[r['pfn'] * 4096] = want.get(r['pfn'] * 4096, 0) + 1
        rc, out, err = pgfreport('hot', '--phys', '--top', '100000',
                                 '--format', 'csv', path)
        assert rc == 0, err
        got = {int(r['page']): int(r['refs'])
               for r in csv.DictReader(io.StringIO(out))}
        assert got == want
        none = len(faults) - sum(want.values())
        assert f'--phys: {none} of {len(faults)} faults carry no frame' in err, err
        rc, out, err = pgfreport('mrc', '--phys', '--format', 'csv', path)
        assert rc == 0, err
        rows = list(csv.DictReader(io.StringIO(out)))
        big = max(rows, key=lambda r: int(r['size_pages']))
        assert int(big['lru_misses']) == len(want), (big, len(want))
        svg = os.path.join(d, 'h.svg')
        rc, out, err = pgfreport('heatmap', '--phys', '-o', svg, path)
        assert rc == 0, err
        text = open(svg).read()
        # one band, physical memory, with every fault that has a frame
        assert text.count('data-name=') == 1, text[:2000]
        assert f'physical memory" data-faults="{sum(want.values())}"' in text
        top = max(want) + 4095
        m = re.search(r'>0-([0-9a-f]+) \(used: up to ([0-9a-f]+)\)<', text)
        assert m and int(m.group(2), 16) == top and int(m.group(1), 16) >= top, m
        for cmd in ('frames', 'map', 'summary'):
            rc, out, err = pgfreport(cmd, '--phys', path)
            assert rc != 0 and '--phys does not apply' in err, (cmd, err)
        rc, out, err = pgfreport('hot', '--phys', '--files', path)
        assert rc != 0 and 'file pages have no frames' in err, err


@test
def a_trace_without_frames_says_so_and_bad_options_are_refused():
    with tempfile.TemporaryDirectory() as d:
        path = write(d, 't.trace', 'pgfault_history 8 pid 7 page_size 4096\n'
                     'start 1 first\nlayout 1 1\n'
                     'map 1 1 1000 3000 rw-p 0 00:00 0\n'
                     'fault 2 7 1000 w user minor 0\nexit 3 0 1 0 1\n')
        rc, out, err = pgfreport('frames', path)
        assert rc == 0 and 'no fault carries a frame' in out and \
            'CAP_SYS_ADMIN' in out, (out, err)
        for opts, words in ((('--block', '3'), 'power of two'),
                            (('--block', '0'), '--block'),
                            (('--width', '0'), '--width'),
                            (('--width', '5000'), '4096 columns')):
            rc, out, err = pgfreport('frames', *opts, path)
            assert rc == 1 and words in err, (opts, rc, err)


main()
