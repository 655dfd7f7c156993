# SPDX-License-Identifier: GPL-2.0
"""pgfreport export perfetto against Perfetto's own schema: the file
decodes with protoc --decode=perfetto.protos.Trace and the merged
perfetto_trace.proto (tests/host/data, from Perfetto's public source;
protoc is Debian's protobuf-compiler), and holds what a hand-made trace
says: a process track, a thread track per thread that faulted, an
instant per fault on its thread's track with its address, access, mode,
IP and region, a track per region whose slices open and close at its map,
change, unmap and the process's end, counters of faults per interval and
of the working set; the filters narrow the faults; the size limit writes
nothing and says why."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main, Skip  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
BIN = os.path.join(TOP, 'build', 'host', 'bin')
SCHEMA = os.path.join(os.path.dirname(__file__), 'data', 'perfetto_trace.proto')

# Process 100: threads 100 and 101; regions prog, heap (changed at 1.5 s:
# it grows), an anonymous one mapped at 2.1 s and unmapped at 2.4 s.
T0 = 1000000000
TRACE = f'''pgfault_history 6 pid 100 page_size 4096
start {T0}
exec {T0} 100 /usr/bin/prog
layout {T0} 2
map {T0} 1 400000 404000 r-xp 0 08:01 11 /usr/bin/prog
map {T0} 3 10000000 10010000 rw-p 0 00:00 0 [heap]
fault {T0 + 100000} 100 400000 x user minor 400000
fault {T0 + 500000000} 101 10000000 w user minor 400100
change {T0 + 1500000000} 3 10000000 10020000 rw-p 0 00:00 0 [heap]
fault {T0 + 1600000000} 101 10011000 w kernel major 400200
map {T0 + 2100000000} 4 20000000 20004000 rw-p 0 00:00 0
fault {T0 + 2200000000} 100 20000000 r user minor 400300
unmap {T0 + 2400000000} 4
fault {T0 + 2500000000} 100 0 r user SIGSEGV 400400
exit {T0 + 2600000000} 139 4 0 2
'''


def parse(text):
    """protoc's text format as nested lists of (key, value) pairs."""
    stack = [[]]
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.endswith('{'):
            node = []
            stack[-1].append((line[:-1].strip(), node))
            stack.append(node)
        elif line == '}':
            stack.pop()
        else:
            k, v = line.split(':', 1)
            v = v.strip()
            stack[-1].append((k, v[1:-1] if v.startswith('"') else v))
    assert len(stack) == 1, 'unbalanced braces'
    return stack[0]


def get(node, key, default=None):
    for k, v in node:
        if k == key:
            return v
    return default


def export(text, *args):
    if not shutil.which('protoc'):
        raise Skip('no protoc (Debian package protobuf-compiler)')
    d = tempfile.mkdtemp(prefix='pgf-perfetto-')
    trace = os.path.join(d, 'x.trace')
    with open(trace, 'w') as f:
        f.write(text)
    out = os.path.join(d, 'x.pftrace')
    p = subprocess.run([os.path.join(BIN, 'pgfreport'), 'export', 'perfetto',
                        '-o', out, *args, trace], capture_output=True, text=True,
                       timeout=300)
    return p, out


def decode(path):
    with open(path, 'rb') as f:
        p = subprocess.run(['protoc', '--decode=perfetto.protos.Trace',
                            '-I', os.path.dirname(SCHEMA), SCHEMA], stdin=f,
                           capture_output=True, timeout=300)
    assert p.returncode == 0 and not p.stderr, p.stderr.decode()
    packets = [v for k, v in parse(p.stdout.decode()) if k == 'packet']
    assert packets, 'no packet'
    return packets


def events(packets):
    """(timestamp, track_event) of every packet with one."""
    return [(int(get(p, 'timestamp', 0)), get(p, 'track_event'))
            for p in packets if get(p, 'track_event')]


def tracks(packets):
    return {int(get(d, 'uuid')): d for d in
            (get(p, 'track_descriptor') for p in packets) if d}


@test
def the_file_decodes_with_perfettos_schema_and_holds_the_trace():
    p, out = export(TRACE)
    assert p.returncode == 0, p.stderr
    packets = decode(out)
    for pk in packets:
        assert get(pk, 'trusted_packet_sequence_id') in ('1', '2'), pk
        if get(pk, 'timestamp'):
            assert get(pk, 'timestamp_clock_id') == '3', pk   # MONOTONIC
    tr = tracks(packets)
    procs = [d for d in tr.values() if get(d, 'process')]
    assert {get(get(d, 'process'), 'pid') for d in procs} == {'100'}, procs
    assert any(get(get(d, 'process'), 'process_name') == 'prog' for d in procs)
    threads = {get(get(d, 'thread'), 'tid'): u for u, d in tr.items()
               if get(d, 'thread')}
    assert set(threads) == {'100', '101'}, threads
    ev = events(packets)
    faults = [(t, e) for t, e in ev if get(e, 'type') == 'TYPE_INSTANT']
    # every fault, in order, on its thread, named by its result
    want = [(T0 + 100000, '100', 'minor', 0x400000, 'x', 'user', '/usr/bin/prog'),
            (T0 + 500000000, '101', 'minor', 0x10000000, 'w', 'user', '[heap]'),
            (T0 + 1600000000, '101', 'major', 0x10011000, 'w', 'kernel', '[heap]'),
            (T0 + 2200000000, '100', 'minor', 0x20000000, 'r', 'user', '[anon]'),
            (T0 + 2500000000, '100', 'SIGSEGV', 0, 'r', 'user', '-')]
    got = []
    for t, e in faults:
        ann = {get(a, 'name'): get(a, 'pointer_value', get(a, 'string_value'))
               for k, a in e if k == 'debug_annotations'}
        tid = [k for k, u in threads.items() if u == int(get(e, 'track_uuid'))]
        got.append((t, tid[0], get(e, 'name'), int(ann['address']),
                    ann['access'], ann['mode'], ann['region']))
        assert get(e, 'categories') == 'pgfault', e
    assert got == want, got
    # each region's slices: begin and end, in order, balanced
    regions = {u: get(d, 'name') for u, d in tr.items()
               if get(d, 'parent_uuid') and not get(d, 'counter')
               and get(d, 'name') not in ('lost records',)
               and not (get(d, 'name') or '').startswith(('faults per', 'working set'))}
    spans = {n: [] for n in regions.values()}
    for t, e in ev:
        u = int(get(e, 'track_uuid'))
        if u in regions and get(e, 'type') in ('TYPE_SLICE_BEGIN', 'TYPE_SLICE_END'):
            spans[regions[u]].append((get(e, 'type')[11:], t, get(e, 'name')))
    end = T0 + 2600000000
    assert spans['/usr/bin/prog'] == [('BEGIN', T0, '400000-404000 r-xp'),
                                      ('END', end, None)], spans
    assert spans['[heap]'] == [('BEGIN', T0, '10000000-10010000 rw-p'),
                               ('END', T0 + 1500000000, None),
                               ('BEGIN', T0 + 1500000000, '10000000-10020000 rw-p'),
                               ('END', end, None)], spans
    assert spans['[anon]'] == [('BEGIN', T0 + 2100000000, '20000000-20004000 rw-p'),
                               ('END', T0 + 2400000000, None)], spans
    # the counters: 4 counted faults, the first at 0.1 ms, the last 2.1999 s
    # later: intervals 0 to 219 of 10 ms, a value each
    names = {u: get(d, 'name') for u, d in tr.items()}
    # counter tracks say so (trace_processor drops counter values elsewhere)
    counters = {get(d, 'name'): get(get(d, 'counter'), 'unit_name')
                for d in tr.values() if get(d, 'counter') is not None}
    assert counters == {'faults per 10 ms': 'faults',
                        'working set (pages, 10 intervals)': 'pages'}, counters
    for t, e in ev:
        if get(e, 'type') == 'TYPE_COUNTER':
            assert names[int(get(e, 'track_uuid'))] in counters, e
    per = [int(get(e, 'counter_value', 0)) for t, e in ev
           if get(e, 'type') == 'TYPE_COUNTER' and
           names.get(int(get(e, 'track_uuid'))) == 'faults per 10 ms']
    assert sum(per) == 4 and len(per) == 220, (sum(per), len(per))


@test
def the_filters_narrow_the_faults_and_regions_stay():
    p, out = export(TRACE, '--tid', '101')
    assert p.returncode == 0, p.stderr
    packets = decode(out)
    ev = events(packets)
    assert len([e for t, e in ev if get(e, 'type') == 'TYPE_INSTANT']) == 2
    assert len([e for t, e in ev if get(e, 'type') == 'TYPE_SLICE_BEGIN']) == 4


@test
def a_tid_in_two_processes_of_a_tree_is_two_thread_tracks():
    tree = """pgfault_history_tree 1 root 100
pid 100
pgfault_history 6 pid 100 page_size 4096
start 1000 first inherit
layout 1000 1
map 1000 1 1000 3000 rw-p 0 00:00 0
child 1100 100 200
fault 1200 150 1000 r user minor 0
pid 200
pgfault_history 6 pid 200 page_size 4096
start 1150 first inherit
layout 1150 1
map 1150 1 1000 3000 rw-p 0 00:00 0
fault 1300 150 2000 r user minor 0
exit 1400 0 1 0 1
pid 100
exit 1500 0 1 0 1
"""
    p, out = export(tree)
    assert p.returncode == 0, p.stderr
    packets = decode(out)
    threads = {u: (get(get(d, 'thread'), 'pid'), get(get(d, 'thread'), 'tid'))
               for u, d in tracks(packets).items() if get(d, 'thread')}
    assert sorted(threads.values()) == [('100', '150'), ('200', '150')], threads
    on = sorted(threads[int(get(e, 'track_uuid'))] for t, e in events(packets)
                if get(e, 'type') == 'TYPE_INSTANT')
    assert on == [('100', '150'), ('200', '150')], on


@test
def above_the_size_limit_nothing_is_written():
    with tempfile.TemporaryDirectory() as d:
        trace = os.path.join(d, 'g.trace')
        with open(trace, 'w') as f:
            subprocess.run([os.path.join(BIN, 'gentrace'), '20000'], stdout=f,
                           check=True, timeout=120)
        with open(trace) as f:
            p, out = export(f.read(), '--max-size', '1')
    assert p.returncode == 125, p
    assert not os.path.exists(out), out
    assert re.search(r"pgfreport export: the Perfetto trace would pass "
                     r"--max-size 1 MB.*nothing written", p.stderr), p.stderr


@test
def perfetto_options_are_perfettos_alone():
    for args in (('csv', '--max-size', '5'), ('refs', '--interval', '5')):
        p = subprocess.run([os.path.join(BIN, 'pgfreport'), 'export', *args,
                            '/dev/null'], capture_output=True, text=True,
                           timeout=60)
        assert p.returncode == 2 and "is perfetto's" in p.stderr, p.stderr


main()
