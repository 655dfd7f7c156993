# SPDX-License-Identifier: GPL-2.0
"""tools/python/pgfault_trace.py, the Python reader, against pgfreport
export json on the same traces: every record of every type, of format
versions 1 and 6, of a tree file, of a generated trace, plain and
compressed (gzip, xz, zstd), text and binary (pgfreport convert), equal
record for record; malformed and
newer traces refused naming the line; the pandas DataFrame (with
/usr/bin/python3 and Debian's python3-pandas) holds the faults with their
regions, checked against pgfreport export csv."""
import gzip
import json
import lzma
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main, Skip  # noqa: E402
from tracelib import EVERY, TREE, OLD, write  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
BIN = os.path.join(TOP, 'build', 'host', 'bin')
PYDIR = os.path.join(TOP, 'tools', 'python')
sys.path.insert(0, PYDIR)
import pgfault_trace as pt  # noqa: E402

def json_of(path):
    """pgfreport export json's records; a key twice is an error."""
    p = subprocess.run([os.path.join(BIN, 'pgfreport'), 'export', 'json', path],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr

    def unique(pairs):
        keys = [k for k, _ in pairs]
        assert len(keys) == len(set(keys)), ('a key twice', pairs)
        return dict(pairs)
    return [json.loads(l, object_pairs_hook=unique) for l in p.stdout.splitlines()]


def same(path, reader_path=None):
    got = list(pt.records(reader_path or path))
    want = json_of(path)
    assert len(got) == len(want), (len(got), len(want))
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, (i, g, w)
    return got


@test
def every_record_type_reads_as_pgfreport_exports_it():
    with tempfile.TemporaryDirectory() as d:
        got = same(write(d, 'every.trace', EVERY))
        types = {r['type'] for r in got}
        assert types == {'start', 'layout', 'map', 'fault', 'remote', 'change',
                         'rearm', 'child', 'refs', 'sample', 'lost', 'unmap',
                         'stop', 'exec', 'exit', 'file', 'cache', 'move',
                         'evict', 'split', 'collapse', 'mapped'}, types
        files = [r for r in got if r['type'] == 'file']
        assert files[0]['path'] == '/bin/with space' and files[1]['dev'] == '00:2a'
        cache = [r for r in got if r['type'] == 'cache']
        assert sorted(r['cache'] for r in cache) == sorted(pt.CACHE), cache
        assert got[-1]['cache_kept'] == 5 and got[0]['files'] is True
        assert got[2]['name'] == '/bin/with space'
        # a '\r' in a path is part of it, as the C reader reads it
        cr = same(write(d, 'cr.trace', EVERY.replace('/bin/with space',
                                                     '/bin/with\rcr')))
        assert cr[2]['name'] == '/bin/with\rcr'
        # upper-case hex and a trailing space after the runs, as C takes them
        same(write(d, 'up.trace', EVERY.replace('fault 200 7 400010', 'fault 200 7 40001A')
                   .replace('7f0000001000+3\n', '7f0000001000+3 \n')))
        assert [r['path'] for r in got if r['type'] == 'exec'] == ['/usr/bin/next prog']


@test
def a_tree_file_and_an_old_version_read_alike():
    with tempfile.TemporaryDirectory() as d:
        info = {}
        got = same(write(d, 'tree.trace', TREE))
        assert {r['pid'] for r in got} == {10, 11}
        list(pt.records(os.path.join(d, 'tree.trace'), info))
        assert info == {'version': 5, 'pid': 10, 'page_size': 4096, 'tree': True}
        same(write(d, 'old.trace', OLD))


@test
def a_generated_trace_reads_alike_plain_and_compressed():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'g.trace')
        with open(path, 'w') as f:
            subprocess.run([os.path.join(BIN, 'gentrace'), '20000'], stdout=f,
                           check=True, timeout=120)
        with open(path, 'rb') as f:
            raw = f.read()
        with gzip.open(path + '.gz', 'wb') as f:
            f.write(raw)
        with lzma.open(path + '.xz', 'wb') as f:
            f.write(raw)
        got = same(path)
        assert sum(r['type'] == 'fault' for r in got) == 20000
        assert list(pt.records(path + '.gz')) == got
        assert list(pt.records(path + '.xz')) == got
        if shutil.which('zstd'):
            subprocess.run(['zstd', '-q', path, '-o', path + '.zst'], check=True)
            assert list(pt.records(path + '.zst')) == got
            # cut at a line's end: zstd fails, so does the reading
            with open(path + '.zst', 'rb') as f:
                data = f.read()
            with open(path + '.cut.zst', 'wb') as f:
                f.write(data[:len(data) // 2])
            try:
                list(pt.records(path + '.cut.zst'))
            except pt.TraceError as e:
                assert 'cut.zst' in str(e), e
            else:
                raise AssertionError('a cut zstd trace was read')
        with open(path, 'rb') as f:
            assert list(pt.records(f)) == got


@test
def bad_traces_are_refused_naming_the_line():
    with tempfile.TemporaryDirectory() as d:
        for text, words in ((EVERY.replace('fault 210 8', 'fault 210 x'), ':7: malformed'),
                            (EVERY.replace('sample 320 7 40 0 99 baseline incomplete',
                                           'sample 320 7 40 0 99 incomplete baseline'),
                             ':20: malformed'),
                            (OLD.replace('pgfault_history 1', 'pgfault_history 10'),
                             'version 10'),
                            (OLD.rstrip('\n'), ':6: truncated'),
                            ('pgfault_history_tree 1 root 10\n', 'does not start'),
                            (OLD.replace('exit 9 0', 'exit 99999999999999999999 0'),
                             ':6: malformed'),
                            (TREE.replace('fault 1200000 11 2000', 'fault 1200000 11 zz'),
                             ':14: malformed'),
                            ('', 'empty'),
                            ('hello\n', 'not a pgfault_history')):
            path = write(d, 'bad.trace', text)
            try:
                list(pt.records(path))
            except pt.TraceError as e:
                assert words in str(e) and 'bad.trace' in str(e), (words, e)
            else:
                raise AssertionError(('accepted', words))
            # pgfreport refuses the same traces
            p = subprocess.run([os.path.join(BIN, 'pgfreport'), 'export', 'json',
                                path], capture_output=True, text=True, timeout=60)
            assert p.returncode == 1, (words, p)


@test
def the_binary_form_reads_as_its_text():
    with tempfile.TemporaryDirectory() as d:
        g = os.path.join(d, 'g.trace')
        with open(g, 'w') as f:
            subprocess.run([os.path.join(BIN, 'gentrace'), '20000'], stdout=f,
                           check=True, timeout=120)
        texts = [write(d, 'every.trace', EVERY), write(d, 'tree.trace', TREE),
                 write(d, 'old.trace', OLD), g,
                 write(d, 'up.trace', EVERY.replace('fault 200 7 400010',
                                                    'fault 200 7 40001A'))]
        for path in texts:
            binary = path + '.pgfb'
            p = subprocess.run([os.path.join(BIN, 'pgfreport'), 'convert', '-o',
                                binary, path], capture_output=True, text=True,
                               timeout=120)
            assert p.returncode == 0, p.stderr
            want = list(pt.records(path))
            info = {}
            assert list(pt.records(binary, info)) == want, path
            assert info['tree'] == (path.endswith('tree.trace'))
            with open(binary, 'rb') as f:
                raw = f.read()
            with gzip.open(binary + '.gz', 'wb') as f:
                f.write(raw)
            assert list(pt.records(binary + '.gz')) == want
            with open(binary, 'rb') as f:
                assert list(pt.records(f)) == want
        if shutil.which('zstd'):
            subprocess.run(['zstd', '-q', g + '.pgfb', '-o', g + '.pgfb.zst'],
                           check=True)
            assert list(pt.records(g + '.pgfb.zst')) == list(pt.records(g))
        # cut inside a record, a bad magic, a newer version: refused
        with open(g + '.pgfb', 'rb') as f:
            raw = f.read()
        for data, words in ((raw[:len(raw) // 2 + 3], 'truncated'),
                            (raw[:1] + b'X' + raw[2:], 'bad magic'),
                            (raw[:8] + b'\x04' + raw[9:], 'version 4'),
                            (raw[:16 + 48] + b'\x09' + raw[16 + 49:],
                             'record 2: malformed record')):
            path = os.path.join(d, 'bad.pgfb')
            with open(path, 'wb') as f:
                f.write(data)
            try:
                list(pt.records(path))
            except pt.TraceError as e:
                assert words in str(e) and 'bad.pgfb' in str(e), (words, e)
            else:
                raise AssertionError(('accepted', words))
            p = subprocess.run([os.path.join(BIN, 'pgfreport'), 'export', 'json',
                                path], capture_output=True, text=True, timeout=60)
            assert p.returncode == 1 and words in p.stderr, (words, p.stderr)


@test
def the_dataframe_holds_the_faults_and_their_regions():
    py = '/usr/bin/python3'
    probe = subprocess.run([py, '-c', 'import pandas'], capture_output=True)
    if probe.returncode:
        raise Skip('no pandas for /usr/bin/python3 (Debian package python3-pandas)')
    with tempfile.TemporaryDirectory() as d:
        path = write(d, 'every.trace', EVERY)
        code = ('import sys, json; sys.path.insert(0, sys.argv[1]); '
                'import pgfault_trace as pt; df = pt.dataframe(sys.argv[2]); '
                'print(json.dumps(df[["time", "tid", "address", "result", '
                '"region"]].values.tolist()))')
        p = subprocess.run([py, '-c', code, PYDIR, path], capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        rows = json.loads(p.stdout)
        csv = subprocess.run([os.path.join(BIN, 'pgfreport'), 'export', 'csv',
                              path], capture_output=True, text=True, timeout=60)
        want = []
        import csv as csvmod
        import io
        for row in list(csvmod.reader(io.StringIO(csv.stdout, newline='')))[1:]:
            t, tid, addr, _, _, result, _, region = row[:8]
            if row[12]:
                continue        # a change record's row
            want.append([int(t), int(tid), int(addr), result, region])
        assert rows == want, (rows, want)


def pandas_python(code, *args):
    """Run @code in Debian's python3 (the one with python3-pandas), the
    module on its path; its standard output."""
    py = '/usr/bin/python3'
    probe = subprocess.run([py, '-c', 'import pandas'], capture_output=True)
    if probe.returncode:
        raise Skip('no pandas for /usr/bin/python3 (Debian package python3-pandas)')
    p = subprocess.run([py, '-c', 'import sys; sys.path.insert(0, sys.argv[1]); '
                        'import pgfault_trace as pt\n' + code, PYDIR, *args],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout


@test
def read_trace_types_every_column():
    with tempfile.TemporaryDirectory() as d:
        every = write(d, 'every.trace', EVERY)
        empty = write(d, 'empty.trace', 'pgfault_history 6 pid 1 page_size 4096\n'
                      'start 1 first\nexit 2 0 0 0 0\n')
        tree = write(d, 'tree.trace', TREE)
        out = json.loads(pandas_python(
            'import json\n'
            'f = pt.read_trace(sys.argv[2])\n'
            'a = pt.read_trace(sys.argv[2], types=None)\n'
            'e = pt.read_trace(sys.argv[3])\n'
            't = pt.read_trace(sys.argv[4])\n'
            'print(json.dumps({"f": {c: str(f[c].dtype) for c in f}, '
            '"a": {c: str(a[c].dtype) for c in ("time", "address", "faults", '
            '"type", "inherit")}, "e": {c: str(e[c].dtype) for c in e}, '
            '"elen": len(e), "t": list(t.columns), "tpid": t.pid.tolist(), '
            '"alen": len(a), "atypes": a.type.astype(str).tolist()}))',
            every, empty, tree))
    fault = {'type': 'category', 'time': 'int64', 'tid': 'int64',
             'address': 'uint64', 'access': 'category', 'mode': 'category',
             'result': 'category', 'ip': 'uint64', 'pfn': 'UInt64',
             'node': 'Int64', 'order': 'Int64', 'level': 'category',
             'region': 'category'}
    assert out['f'] == fault, out['f']
    # an empty trace: the same columns, the same types
    assert out['e'] == fault and out['elen'] == 0, out['e']
    # every type: a key some lack is nullable, never float
    assert out['a'] == {'time': 'Int64', 'address': 'UInt64', 'faults': 'Int64',
                        'type': 'category', 'inherit': 'boolean'}, out['a']
    assert out['alen'] == sum(1 for l in EVERY.splitlines()[1:]), out['alen']
    assert out['atypes'][:3] == ['start', 'layout', 'map'], out['atypes']
    assert out['t'][:3] == ['type', 'pid', 'time'] and out['tpid'] == [10, 11], out


@test
def region_by_bisection_is_the_region_of_the_time():
    # regions mapped, changed, unmapped and mapped again over random
    # faults: each fault's region against a scan of the regions then
    import random
    rnd = random.Random(5)
    lines = ['pgfault_history 6 pid 1 page_size 4096', 'start 1 first', 'layout 1 0']
    alive, want, t = {}, [], 1
    for k in range(3000):
        t += 1
        op = rnd.random()
        if op < 0.1 or not alive:
            i = len(alive) + k
            s = rnd.randrange(0, 400) * 0x1000
            e = s + rnd.randrange(1, 6) * 0x1000
            if all(e <= a or b <= s for a, b, _ in alive.values()):
                alive[i] = (s, e, f'/r{i}')
                lines.append(f'map {t} {i} {s:x} {e:x} rw-p 0 08:01 {i} /r{i}')
        elif op < 0.15:
            i = rnd.choice(sorted(alive))
            lines.append(f'unmap {t} {i}')
            del alive[i]
        elif op < 0.2:
            i = rnd.choice(sorted(alive))
            s, e, n = alive[i]
            if e - s > 0x1000:
                alive[i] = (s, e - 0x1000, n)
                lines.append(f'change {t} {i} {s:x} {e - 0x1000:x} rw-p 0 08:01 {i} {n}')
        else:
            a = rnd.randrange(0, 410 * 0x1000)
            lines.append(f'fault {t} 1 {a:x} r user minor 0')
            hit = [n for s, e, n in alive.values() if s <= a < e]
            want.append(hit[0] if hit else '')
    with tempfile.TemporaryDirectory() as d:
        path = write(d, 'r.trace', '\n'.join(lines) + '\n')
        got = json.loads(pandas_python(
            'import json; print(json.dumps(pt.read_trace(sys.argv[2])'
            '.region.astype(str).tolist()))', path))
    assert got == want, [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w][:5]


@test
def chunks_add_up_to_the_whole_and_compression_is_told_by_bytes():
    with tempfile.TemporaryDirectory() as d:
        gen = os.path.join(d, 'g.trace')
        with open(gen, 'w') as f:
            subprocess.run([os.path.join(BIN, 'gentrace'), '25000'], stdout=f,
                           check=True, timeout=120)
        with open(gen, 'rb') as f, gzip.open(os.path.join(d, 'g.noext'), 'wb') as z:
            z.write(f.read())
        out = json.loads(pandas_python(
            'import json, pandas as pd\n'
            'whole = pt.read_trace(sys.argv[2])\n'
            'parts = list(pt.read_trace(sys.argv[2], chunksize=7000))\n'
            'z = pt.read_trace(sys.argv[3])\n'
            'cat = pd.concat([p.astype({"region": str, "type": str, "access": str, '
            '"mode": str, "result": str}) for p in parts], ignore_index=True)\n'
            'w = whole.astype({"region": str, "type": str, "access": str, '
            '"mode": str, "result": str})\n'
            'print(json.dumps({"sizes": [len(p) for p in parts], '
            '"same": bool(cat.equals(w)), "z": bool(z.astype(w.dtypes.to_dict())'
            '.equals(w)), "n": len(whole)}))', gen, os.path.join(d, 'g.noext')))
    assert out['n'] == 25000 and out['sizes'] == [7000, 7000, 7000, 4000], out
    assert out['same'] and out['z'], out


main()
