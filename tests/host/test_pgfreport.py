# SPDX-License-Identifier: GPL-2.0
"""pgfreport on hand-made traces: exact expected output, including the
seed's map shape; bad input; a generated large trace."""
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main, Skip  # noqa: E402
from tracelib import ended  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
BIN = os.path.join(TOP, 'build', 'host', 'bin')
TRACES = os.path.join(os.path.dirname(__file__), 'traces')
SEED = os.path.join(TRACES, 'seed.trace')


def run(*args, stdin=None):
    p = subprocess.run([os.path.join(BIN, 'pgfreport'), *args], input=stdin,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def trace_file(text, whole=True):
    """A file of @text; @whole: ended with its exit record (tracelib's
    ended()) unless it has one, as a trace the kernel wrote is."""
    f = tempfile.NamedTemporaryFile('w', suffix='.trace', delete=False)
    f.write(ended(text) if whole else text)
    f.close()
    return f.name


HEADER = 'pgfault_history 1 pid 1 page_size 4096\n'


def help_lists(*cmds):
    """Each of @cmds is among the commands pgfreport --help lists, and
    says what it does in its own --help: {command: its --help, each run
    of white space one space}."""
    rc, out, _ = run('--help')
    assert rc == 0, out
    helps = {}
    for cmd in cmds:
        assert f'\n  {cmd} ' in out, (cmd, out)
        rc, helps[cmd], _ = run(cmd, '--help')
        assert rc == 0 and helps[cmd].startswith(f'Usage: pgfreport {cmd} '), \
            helps[cmd]
        helps[cmd] = ' '.join(helps[cmd].split())
    return helps


@test
def map_has_the_seed_shape():
    rc, out, err = run('map', SEED)
    with open(os.path.join(TRACES, 'seed.map')) as f:
        want = f.read()
    assert rc == 0, err
    assert out == want, out


@test
def stdin_works_like_a_file():
    with open(SEED) as f:
        rc, out, _ = run('map', '-', stdin=f.read())
    assert rc == 0 and out.startswith('Region: 08048000 - 0805a000 (  18 pages)'), out


@test
def summary_counts():
    rc, out, err = run('summary', SEED)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[1].split()[:7] == ['08048000', '0805a000', 'r-xp', '18', '16',
                                    '17', '1'], lines[1]
    assert lines[2].split()[3:7] == ['22', '2', '2', '0'], lines[2]
    assert lines[3].endswith('[anon] (removed)'), lines[3]
    assert lines[4] == ('# address space 0: 2 regions at the end (1 removed), '
                        '40 pages mapped, 19 touched, 20 faults (1 major, 0 failed)'), lines[4]


@test
def summary_counts_every_column_for_the_region_of_the_layout():
    # Region 1 faults on 3 pages (4 faults), then is split in two (ids 2
    # and 3); region 2 faults again on one of those pages, twice. Every
    # column, touched included, belongs to the region of the final layout
    # that holds the address, whichever held it when the fault happened:
    # the removed region 1 keeps none; the map marks the same pages.
    text = ('pgfault_history 4 pid 1 page_size 4096\nstart 1 first\n'
            'layout 2 1\nmap 2 1 1000 5000 rw-p 0 00:00 0\n'
            'fault 3 1 1000 w user minor 400\n'
            'fault 4 1 2000 w user minor 400\n'
            'fault 5 1 2008 w user minor 400\n'
            'fault 6 1 4000 r user major 400\n'
            'unmap 7 1\n'
            'map 7 2 1000 3000 r--p 0 00:00 0\n'
            'map 7 3 3000 5000 rw-p 2000 00:00 0\n'
            'fault 8 1 2000 r user minor 400\n'
            'fault 9 1 2000 w user minor 400\n'
            'exit 10 0 6 0 3\n')
    path = trace_file(text)
    rc, out, err = run('summary', path)
    os.unlink(path)
    assert rc == 0, err
    rows = {l.split()[0] + '-' + l.split()[1]: l.split()[3:8]
            for l in out.splitlines() if not l.startswith('#')}
    # pages, touched, faults, major, rerefs
    assert rows == {'00001000-00003000': ['2', '2', '5', '0', '0'],
                    '00003000-00005000': ['2', '1', '1', '1', '0'],
                    '00001000-00005000': ['4', '0', '0', '0', '0']}, out
    assert '(removed)' in [l for l in out.splitlines() if '00005000' in l
                           and l.startswith('00001000')][0], out
    assert ('4 pages mapped, 3 touched, 6 faults (1 major, 0 failed)'
            in out.splitlines()[-1]), out
    path = trace_file(text)
    rc, out, err = run('map', path)
    os.unlink(path)
    assert rc == 0, err
    assert out.splitlines() == [
        'Region: 00001000 - 00003000 (   2 pages): |XX|',
        'Region: 00003000 - 00005000 (   2 pages): |.X|',
        'Region: 00001000 - 00005000 (   4 pages): |....| (removed)'], out


@test
def refs_and_rw():
    rc, out, _ = run('export', 'refs', SEED)
    assert rc == 0
    lines = out.splitlines()
    # A version 1 trace: first touches.
    assert lines[0] == '# mode first', lines[0]
    refs = lines[1:]
    assert refs[:3] == ['8048000', '8049000', '804a000'], refs[:3]
    assert len(refs) == 20
    rc, out, _ = run('export', 'refs', '--rw', SEED)
    assert out.splitlines()[17] == '8057000 W', out.splitlines()[17]


@test
def csv_has_every_fault_with_its_region():
    rc, out, _ = run('export', 'csv', SEED)
    lines = out.splitlines()
    assert lines[0] == ('time_ns,tid,address,access,mode,result,ip,region,'
                        'pfn,node,page_size,level,change,pages,cause,new_pfn,new_node')
    assert len(lines) == 21
    assert lines[1] == f'2000,100,{0x8048000},x,user,minor,{0x8048000},/bin/ps,,,,,,,,,', lines[1]
    assert lines[19] == f'3800,100,{0xbfb9d000},w,kernel,minor,{0x8048020},[stack],,,,,,,,,', lines[19]
    assert lines[20].endswith(',[anon],,,,,,,,,'), lines[20]


@test
def csv_quotes_names_and_agrees_with_json():
    """A region name with a comma and double quotes comes back whole
    through Python's csv module and pandas' read_csv (a newline stays
    \\012, as the trace and json write it); the addresses, IPs and times
    are the same numbers, in the same base, in CSV and JSON."""
    name = '/tmp/a,b "quoted"\\012x.so'
    path = trace_file(HEADER + 'start 1\nlayout 1 2\n'
                      f'map 1 1 7f0000000000 7f0000004000 r-xp 0 08:01 12 {name}\n'
                      'map 1 2 10000 20000 rw-p 0 00:00 0\n'
                      'fault 2 1 7f0000001000 r user minor 7f0000001234\n'
                      'fault 3 1 10000 w user minor 7f0000001238\n')
    rc, out, err = run('export', 'csv', path)
    assert rc == 0, err
    import csv
    import io
    rows = list(csv.reader(io.StringIO(out, newline='')))
    assert rows[0] == ['time_ns', 'tid', 'address', 'access', 'mode', 'result',
                       'ip', 'region', 'pfn', 'node', 'page_size', 'level',
                       'change', 'pages', 'cause', 'new_pfn', 'new_node'], rows
    assert rows[1] == ['2', '1', str(0x7f0000001000), 'r', 'user', 'minor',
                       str(0x7f0000001234), '/tmp/a,b "quoted"\\012x.so',
                       '', '', '', '', '', '', '', '', ''], rows
    assert rows[2][7] == '[anon]' and len(rows) == 3, rows
    rc, js, err = run('export', 'json', path)
    faults = [json.loads(l) for l in js.splitlines() if '"fault"' in l]
    for row, f in zip(rows[1:], faults):
        assert (int(row[0]), int(row[2]), int(row[6])) == \
            (f['time'], f['address'], f['ip']), (row, f)
    names = [json.loads(l)['name'] for l in js.splitlines() if '"map"' in l]
    assert names[0] == rows[1][7], (names, rows)
    py = '/usr/bin/python3'
    if subprocess.run([py, '-c', 'import pandas'], capture_output=True).returncode == 0:
        with tempfile.NamedTemporaryFile('w', suffix='.csv') as f:
            f.write(out)
            f.flush()
            p = subprocess.run([py, '-c', 'import sys, pandas; d = pandas.read_csv(sys.argv[1]); '
                                'print(repr(list(d["region"])), list(d["address"]), '
                                'str(d["address"].dtype))', f.name],
                               capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        assert p.stdout.strip() == (repr(['/tmp/a,b "quoted"\\012x.so', '[anon]']) +
                                    f' {[0x7f0000001000, 0x10000]} int64'), p.stdout
    os.unlink(path)


@test
def width_folds_and_shades():
    # 64 pages folded into 8 columns of 8: none, all, half, one.
    faults = ''.join(f'fault {10 + i} 1 {0x10000 + p * 4096:x} r user minor 0\n'
                     for i, p in enumerate(list(range(8, 16)) + list(range(16, 20)) + [24]))
    path = trace_file(HEADER + 'layout 1 1\nmap 1 1 10000 50000 rw-p 0 00:00 0\n' + faults)
    rc, out, _ = run('map', '--width', '8', path)
    os.unlink(path)
    assert out == 'Region: 00010000 - 00050000 (  64 pages): |.X=:....|\n', out


@test
def spaces_before_and_after_exec():
    t = (HEADER + 'layout 1 1\nmap 1 1 1000 3000 r-xp 0 00:00 0 /old\n'
         'fault 2 1 1000 r user minor 0\nexec 3 1 /new\n'
         'map 4 2 5000 6000 r-xp 0 00:00 0 /new\nfault 5 1 5000 r user minor 0\n')
    path = trace_file(t)
    rc0, out0, _ = run('map', '--space', '0', path)
    rc1, out1, _ = run('map', path)
    rc9, _, err9 = run('map', '--space', '9', path)
    os.unlink(path)
    assert out0 == 'Region: 00001000 - 00003000 (   2 pages): |X.| /old\n', out0
    assert out1 == 'Region: 00005000 - 00006000 (   1 pages): |X| /new\n', out1
    assert rc9 == 2 and 'address spaces 0 to 1' in err9, err9


@test
def a_page_counts_in_each_address_space_apart():
    # Page 1000 faults twice before the exec and once after, at the same
    # address: each address space counts its own faults of it.
    t = (HEADER + 'layout 1 1\nmap 1 1 1000 3000 rw-p 0 00:00 0 /old\n'
         'fault 2 1 1000 r user minor 0\nfault 3 1 1000 w user minor 0\n'
         'fault 4 1 2000 r user minor 0\nexec 5 1 /new\n'
         'map 6 2 1000 2000 rw-p 0 00:00 0 /new\nfault 7 1 1000 r user minor 0\n')
    path = trace_file(t)
    runs = {name: run(*args, path) for name, args in (
        ('map0', ('map', '--counts', '--space', '0')), ('map1', ('map', '--counts')),
        ('sum0', ('summary', '--space', '0')), ('sum1', ('summary',)),
        ('both0', ('map+summary', '--counts', '--space', '0')))}
    os.unlink(path)
    for name, (rc, _, err) in runs.items():
        assert rc == 0 and not err, (name, err)
    assert runs['map0'][1] == 'Region: 00001000 - 00003000 (   2 pages): |21| /old\n', runs['map0']
    assert runs['map1'][1] == 'Region: 00001000 - 00002000 (   1 pages): |1| /new\n', runs['map1']
    assert '2 pages mapped, 2 touched, 3 faults' in runs['sum0'][1], runs['sum0']
    assert '1 pages mapped, 1 touched, 1 faults' in runs['sum1'][1], runs['sum1']
    assert runs['both0'][1] == ('# ==== map\n' + runs['map0'][1] + '\n# ==== summary\n' +
                                runs['sum0'][1]), runs['both0']


@test
def corrupt_line_is_named_and_the_rest_reported():
    with open(SEED) as f:
        lines = f.read().splitlines(keepends=True)
    lines.insert(10, 'fault 12 x 8048000 r user minor 0\n')
    path = trace_file(''.join(lines))
    rc, out, err = run('map', path)
    os.unlink(path)
    assert rc == 1
    assert f'{path}:11: malformed record' in err, err
    # Everything before line 11: the first 5 faults of /bin/ps.
    assert 'Region: 08048000 - 0805a000 (  18 pages): |XXXXX.............|' in out, out


@test
def truncated_trace_is_reported():
    with open(SEED) as f:
        text = f.read()
    path = trace_file(text[:text.index('fault 2300')] + 'fault 2300 100 804',
                      whole=False)
    rc, out, err = run('map', path)
    os.unlink(path)
    assert rc == 1 and 'truncated' in err and ':9:' in err, err
    assert '|XXX...............|' in out, out


@test
def newer_version_is_refused_naming_both():
    path = trace_file('pgfault_history 10 pid 1 page_size 4096\nstart 1\n')
    rc, out, err = run('map', path)
    os.unlink(path)
    assert rc == 1 and 'version 10' in err and 'versions 1 to 9' in err, err
    assert out == ''


@test
def version_3_rearm_and_reref_are_read():
    # A re-reference fault counts as a successful fault (the map marks its
    # page); "rearm" has no place on the map and shows in export json.
    text = ('pgfault_history 3 pid 1 page_size 4096\nstart 1 first\n'
            'layout 2 1\nmap 2 1 1000 4000 rw-p 0 00:00 0\n'
            'fault 3 1 1000 w user minor 400\n'
            'rearm 4 1 user\n'
            'fault 5 1 3000 r user reref 400\n'
            'exit 6 0 2 0 1\n')
    path = trace_file(text)
    rc, out, err = run('map', path)
    assert rc == 0, err
    assert '|X.X|' in out, out
    rc, out, err = run('export', 'json', path)
    assert rc == 0, err
    assert '{"type":"rearm","time":4,"pages":1,"how":"user"}' in out, out
    assert '"result":"reref"' in out, out
    rc, out, err = run('summary', path)
    assert rc == 0, err
    region = out.splitlines()[1].split()
    assert region[5:8] == ['2', '0', '1'], region  # faults, major, rerefs
    assert '2 faults (0 major, 1 re-references, 0 failed)' in out, out
    rc, out, err = run('export', 'refs', path)
    assert out.splitlines()[0] == '# mode first', out
    iv = trace_file(text.replace('start 1 first', 'start 1 interval=100'))
    rc, out, err = run('export', 'refs', iv)
    os.unlink(iv)
    assert rc == 0 and out.splitlines()[0] == '# mode interval=100', (out, err)
    for badstart in ('start 1 interval=', 'start 1 interval=x', 'start 1 last',
                     'start 1 first x'):
        b = trace_file(text.replace('start 1 first', badstart))
        rc, _, err = run('map', b)
        os.unlink(b)
        assert rc == 1 and ':2:' in err, (badstart, err)
    bad = trace_file(text.replace('rearm 4 1 user', 'rearm 4 1'))
    rc, _, err = run('map', bad)
    os.unlink(path)
    os.unlink(bad)
    assert rc == 1 and ':6:' in err and 'malformed' in err, err


@test
def version_4_window_mode_and_the_map_of_counts():
    # A window trace: page 1 faults three times, page 3 once, page 2
    # never; --counts shows how often, the plain map that they did.
    text = ('pgfault_history 4 pid 1 page_size 4096\nstart 1 window=16\n'
            'layout 2 1\nmap 2 1 1000 5000 rw-p 0 00:00 0\n'
            'rearm 3 7 window\n'
            'fault 4 1 1000 w user minor 400\n'
            'fault 5 1 3000 r user minor 400\n'
            'fault 6 1 1000 r user reref 400\n'
            'fault 7 1 1008 w user reref 400\n'
            'exit 8 0 4 0 1\n')
    path = trace_file(text)
    rc, out, err = run('map', path)
    assert rc == 0 and '|X.X.|' in out, (out, err)
    rc, out, err = run('map', '--counts', path)
    assert rc == 0 and '|3.1.|' in out, (out, err)
    # Folded: two columns of two pages, 3 and 1 faults -> 2 and 1 per page.
    rc, out, err = run('map', '--counts', '--width', '2', path)
    assert rc == 0 and '|21|' in out, (out, err)
    rc, out, err = run('export', 'refs', path)
    assert rc == 0 and out.splitlines()[0] == '# mode window=16', (out, err)
    assert out.splitlines()[1:] == ['1000', '3000', '1000', '1000'], out
    rc, out, err = run('summary', path)
    region = out.splitlines()[1].split()
    assert region[4:8] == ['2', '4', '0', '2'], region  # touched .. rerefs
    for badstart in ('start 1 window=', 'start 1 window=16x',
                     'start 1 window=-1'):
        b = trace_file(text.replace('start 1 window=16', badstart))
        rc, _, err = run('map', b)
        os.unlink(b)
        assert rc == 1 and ':2:' in err, (badstart, err)
    # Ten or more faults on a page: '+'.
    many = text.replace('exit 8 0 4', ''.join(
        f'fault {9 + i} 1 4000 r user reref 400\n' for i in range(10)) +
        'exit 30 0 14')
    m = trace_file(many)
    rc, out, err = run('map', '--counts', m)
    os.unlink(m)
    os.unlink(path)
    assert rc == 0 and '|3.1+|' in out, (out, err)


@test
def version_2_remote_records_are_read():
    # A fault on another address space has no address to place: the map
    # is the same as without it, and export json shows it.
    text = ('pgfault_history 2 pid 1 page_size 4096\nstart 1\n'
            'layout 2 1\nmap 2 1 1000 3000 rw-p 0 00:00 0\n'
            'fault 3 1 1000 w user minor 400\n'
            'remote 4 1 r minor\nremote 5 2 w SIGSEGV\n'
            'exit 6 0 2 0 1\n')
    path = trace_file(text)
    rc, out, err = run('map', path)
    assert rc == 0, err
    assert '|X.|' in out, out
    rc, out, err = run('export', 'json', path)
    os.unlink(path)
    assert rc == 0, err
    assert '{"type":"remote","time":4,"tid":1,"access":"r","result":"minor"}' in out, out
    assert '"result":"SIGSEGV"' in out, out


@test
def remote_record_malformed_is_refused():
    path = trace_file(HEADER + 'start 1\nremote 4 1 q minor\n')
    rc, _, err = run('map', path)
    os.unlink(path)
    assert rc == 1 and ':3:' in err and 'malformed' in err, err


@test
def not_a_trace_is_refused():
    path = trace_file('hello\n')
    rc, _, err = run('map', path)
    os.unlink(path)
    assert rc == 1 and 'not a pgfault_history trace' in err, err
    # a trace that cannot be opened: pgfreport's own failure
    rc, _, err = run('map', '/nonexistent.trace')
    assert rc == 125 and 'No such file' in err, err


@test
def bad_options_are_refused():
    for args in (['--width', '0'], ['--width', 'x'], ['--space', '-1'], ['--bogus'],
                 ['a', 'b']):
        rc, _, err = run('map', *args)
        assert rc == 2 and err.startswith('pgfreport map: '), (args, err)
    rc, out, _ = run('--help')
    assert rc == 0 and out.startswith('Usage: pgfreport COMMAND'), out
    rc, out, _ = run('map', '--help')
    assert rc == 0 and out.startswith('Usage: pgfreport map'), out
    # A command comes first: no command, an unknown one, the old form.
    rc, out, err = run()
    assert rc == 2 and out == '' and 'Usage: pgfreport COMMAND' in err, err
    rc, out, err = run(SEED)
    assert rc == 2 and out == '' and 'is not a command' in err \
        and f'pgfreport map {SEED}' in err, err
    rc, out, err = run('--summary', SEED)
    assert rc == 2 and out == '' and 'a command comes first' in err, err


@test
def timeline_rows_are_exact():
    # Times in ns: intervals of 1 ms, a window of 2 intervals.
    f = lambda t, a: f'fault {t} 1 {a:x} r user minor 0\n'
    t = (HEADER + 'layout 1 1\nmap 1 1 0 100000 rw-p 0 00:00 0\n' +
         f(1000000, 0x1000) + f(1100000, 0x2000) + f(1200000, 0x1000) +
         f(2500000, 0x3000) + f(4100000, 0x1000))
    path = trace_file(t)
    rc, out, err = run('timeline', '--interval', '1', '--window', '2', path)
    os.unlink(path)
    assert rc == 0, err
    rows = [line.split() for line in out.splitlines() if not line.startswith('#')]
    # t_ms faults pages working_set footprint
    assert rows == [['0.0', '3', '2', '2', '2'],
                    ['1.0', '1', '1', '3', '3'],
                    ['2.0', '0', '0', '1', '3'],
                    ['3.0', '1', '1', '1', '3']], rows


@test
def json_lines_parse():
    import json
    rc, out, _ = run('export', 'json', SEED)
    recs = [json.loads(line) for line in out.splitlines()]
    assert [r['type'] for r in recs[:3]] == ['start', 'layout', 'map'], recs[:3]
    assert sum(r['type'] == 'fault' for r in recs) == 20
    assert recs[2]['name'] == '/bin/ps' and recs[2]['start'] == 0x8048000, recs[2]
    assert recs[-1] == {'type': 'exit', 'time': 5000, 'status': 0, 'faults': 20,
                        'lost': 0, 'regions': 3}, recs[-1]


@test
def svg_is_valid_with_the_expected_marks():
    # The heatmap's structure; tests/host/test_plots.py renders it.
    import xml.etree.ElementTree as ET
    ns = '{http://www.w3.org/2000/svg}'
    with tempfile.TemporaryDirectory() as d:
        svg = os.path.join(d, 'seed.svg')
        rc, out, err = run('heatmap', '-o', svg, '--x', 'order', SEED)
        assert rc == 0 and out == '', (out, err)
        root = ET.parse(svg).getroot()
    assert root.tag == ns + 'svg'
    texts = [t.text or '' for t in root.iter(ns + 'text')]
    assert any(t.startswith('/bin/ps ') for t in texts), texts
    assert any(t.startswith('[stack] ') for t in texts), texts
    assert any(t.startswith('20 faults in 3 regions') for t in texts), texts
    # Every band's cells lie within the band; a cell per fault across
    # (fault order, 20 faults: one column each), so widths add up to 20.
    bands = [g for g in root.iter(ns + 'g') if g.get('class') == 'region']
    assert sorted(int(g.get('data-faults')) for g in bands) == [1, 2, 17], \
        [g.attrib for g in bands]
    cols = 0
    for g in bands:
        bg = next(r for r in g.iter(ns + 'rect') if r.get('class') == 'band')
        y0, y1 = float(bg.get('y')), float(bg.get('y')) + float(bg.get('height'))
        colw = float(bg.get('width')) / 20
        for m in g.iter(ns + 'rect'):
            if m.get('class') == 'cell':
                assert y0 - 0.01 <= float(m.get('y')) < y1, (m.attrib, y0, y1)
                cols += round(float(m.get('width')) / colw)
    assert cols == 20, cols


# Belady's string 1 2 3 4 1 2 5 1 2 3 4 5 as pages 1 to 5 of one region.
BELADY = [1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]


def belady_trace(mode='window=16', result='minor'):
    return ('pgfault_history 4 pid 1 page_size 4096\n'
            f'start 1 {mode}\nlayout 2 1\nmap 2 1 1000 6000 rw-p 0 00:00 0\n' +
            ''.join(f'fault {10 + i} 1 {p * 0x1000 + 8:x} r user '
                    f'{"minor" if i < 5 else result} 400\n'
                    for i, p in enumerate(BELADY)) +
            'fault 30 1 9000 r user SIGSEGV 400\nremote 31 1 r minor\n'
            'exit 40 0 13 0 1\n')


@test
def mrc_table_is_exact_on_beladys_string():
    # Hand-checked (tests/unit/test_mrc.c derives CLOCK's): FIFO faults 9
    # with 3 frames and 10 with 4; LRU 10 and 8; OPT 7 and 6; CLOCK 10
    # and 8. The failed fault and the remote one are not references.
    path = trace_file(belady_trace())
    rc, out, err = run('mrc', '--sizes', '5,4,3,2,1,4', path)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == '# mode window=16', lines
    assert 'sizes below 16 pages cannot be told' in lines[1], lines
    assert '# 12 references to 5 pages (20 KiB); misses include the 5 cold ones' in lines, lines
    head = [line for line in lines if line.startswith('# size_pages')]
    assert head and head[0].split()[1:] == [
        'size_pages', 'size_bytes', 'lru', 'fifo', 'clock', 'opt', 'lru_misses',
        'fifo_misses', 'clock_misses', 'opt_misses'], head
    rows = [line.split() for line in lines if not line.startswith('#')]
    assert rows == [
        ['1', '4096', '1.0000', '1.0000', '1.0000', '1.0000', '12', '12', '12', '12'],
        ['2', '8192', '1.0000', '1.0000', '1.0000', '0.7500', '12', '12', '12', '9'],
        ['3', '12288', '0.8333', '0.7500', '0.8333', '0.5833', '10', '9', '10', '7'],
        ['4', '16384', '0.6667', '0.8333', '0.6667', '0.5000', '8', '10', '8', '6'],
        ['5', '20480', '0.4167', '0.4167', '0.4167', '0.4167', '5', '5', '5', '5'],
    ], rows
    # Default sizes: 1, 2, 4 below the footprint, then the footprint.
    rc, out, err = run('mrc', path)
    os.unlink(path)
    rows = [line.split()[:2] + line.split()[6:] for line in out.splitlines()
            if not line.startswith('#')]
    assert rows == [['1', '4096', '12', '12', '12', '12'],
                    ['2', '8192', '12', '12', '12', '9'],
                    ['4', '16384', '8', '10', '8', '6'],
                    ['5', '20480', '5', '5', '5', '5']], rows
    # A bad line: the error names it, after the curves of what came before
    # (1 2 3 4 1 2 5: 7 references, 5 pages).
    lines = belady_trace().splitlines(keepends=True)
    bad = trace_file(''.join(lines[:11]) + 'fault 17 1 zz r user minor 400\n' +
                     ''.join(lines[11:]))
    rc, out, err = run('mrc', bad)
    os.unlink(bad)
    assert rc == 1 and f'{bad}:12: malformed' in err, err
    assert '# 7 references to 5 pages (20 KiB); misses include the 5 cold ones' in out, out
    rows = [line.split() for line in out.splitlines() if not line.startswith('#')]
    assert rows[-1][6:] == ['5'] * 4 and rows[0][6:] == ['7'] * 4, rows


@test
def reuse_histogram_is_exact():
    # Distances: 5 cold, then 3 3 (the second 1 and 2), 2 2, 4 4 4.
    path = trace_file(belady_trace('interval=100', 'reref'))
    rc, out, err = run('reuse', path)
    os.unlink(path)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == '# mode interval=100', lines
    assert 'reuse within an interval is not seen' in lines[1], lines
    assert '# 12 references to 5 pages; 5 first references (cold misses)' in lines, lines
    rows = [line.split() for line in lines if not line.startswith('#')]
    # The histogram, then the one region's: every reference is in it.
    assert rows == [['cold', '5', '0.4167'],
                    ['0', '0', '0.0000', '0.0000'],
                    ['1', '0', '0.0000', '0.0000'],
                    ['2-3', '4', '0.3333', '0.3333'],
                    ['4-7', '3', '0.2500', '0.5833'],
                    ['12', '5', '0', '0', '4', '3', '[anon]']], rows


@test
def reuse_histogram_per_region():
    # A: pages 1, 2; B: page 16, named. References A1 B16 A1 A2 B16 A1:
    # distances cold, cold, 1, cold, 2, 2. A has 4 references (2 cold,
    # one at 1, one at 2); B 2 (1 cold, one at 2). A fault outside any
    # region is a reference of none ('-').
    t = ('pgfault_history 4 pid 1 page_size 4096\nstart 1 window=16\n'
         'layout 2 2\nmap 2 1 1000 3000 rw-p 0 00:00 0\n'
         'map 2 2 10000 12000 r--p 0 08:01 7 /lib/b.so\n' +
         ''.join(f'fault {10 + i} 1 {a:x} r user minor 400\n' for i, a in
                 enumerate([0x1000, 0x10000, 0x1008, 0x2000, 0x10010, 0x1000,
                            0x50000])))
    path = trace_file(t)
    rc, out, err = run('reuse', path)
    os.unlink(path)
    assert rc == 0, err
    lines = out.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith('# per region'))
    assert lines[i + 1].split() == ['#', 'references', 'cold', '0', '1', '2-3',
                                    'region'], lines[i + 1]
    assert [line.split() for line in lines[i + 2:]] == [
        ['4', '2', '0', '1', '1', '[anon]'],
        ['2', '1', '0', '0', '1', '/lib/b.so'],
        ['1', '1', '0', '0', '0', '-']], lines[i:]


@test
def mrc_and_reuse_say_what_kind_of_trace():
    # A first-touch trace: cold misses, flat curves.
    rc, out, err = run('mrc', SEED)
    assert rc == 0, err
    assert out.splitlines()[0] == '# mode first', out
    assert 'first touches only' in out and 'show no reuse' in out, out
    rows = [line.split() for line in out.splitlines() if not line.startswith('#')]
    # 20 faults on 19 pages (one write after a read): 19 or 20 misses.
    assert rows[-1][:2] == ['19', '77824'] and rows[-1][6:] == ['19'] * 4, rows
    assert rows[0][6:] == ['19', '19', '19', '19'], rows
    # First touches with the program's own rearm: re-references.
    path = trace_file(belady_trace('first', 'reref'))
    rc, out, err = run('reuse', path)
    os.unlink(path)
    assert rc == 0 and 'across a rearm' in out, (out, err)
    # A version 2 trace (no mode on start) is first-touch.
    t = ('pgfault_history 2 pid 1 page_size 4096\nstart 1\nlayout 2 1\n'
         'map 2 1 1000 3000 rw-p 0 00:00 0\nfault 3 1 1000 w user minor 400\n')
    path = trace_file(t)
    rc, out, err = run('reuse', path)
    assert rc == 0 and out.startswith('# mode first\n'), (out, err)
    # No start record at all: said so.
    nostart = trace_file(t.replace('start 1\n', ''))
    rc, out, err = run('mrc', nostart)
    os.unlink(nostart)
    assert rc == 0 and 'no start record' in out.splitlines()[0], (out, err)
    # Two starts in two modes: both are named.
    path2 = trace_file(t + 'stop 4 user\nstart 5 window=32\n'
                       'fault 6 1 2000 r user minor 400\n')
    rc, out, err = run('mrc', path2)
    os.unlink(path)
    os.unlink(path2)
    assert rc == 0, err
    assert out.startswith('# mode first\n') and '# mode window=32\n' in out, out
    assert 'below 32 pages cannot be told' in out, out


@test
def mrc_on_no_references_and_bad_sizes():
    path = trace_file(HEADER + 'start 1\nlayout 1 1\nmap 1 1 1000 2000 rw-p 0 00:00 0\n'
                      'fault 2 1 1000 r user SIGSEGV 0\n')
    rc, out, err = run('mrc', path)
    assert rc == 0, err
    assert '# 0 references to 0 pages (0 KiB)' in out, out
    assert [line for line in out.splitlines() if not line.startswith('#')] == [], out
    rc, out, err = run('reuse', path)
    assert rc == 0 and out.splitlines()[-1].split() == ['cold', '0', '0.0000'], out
    for bad in ('0', 'x', '1,,2', '1,', '-4', ' 8', '4k', '99999999999999999999999'):
        rc, out, err = run('mrc', '--sizes', bad, path)
        assert rc == 2 and '--sizes' in err and out == '', (bad, err)
    os.unlink(path)
    helps = help_lists('mrc', 'reuse')
    assert '--sizes LIST' in helps['mrc'] and '--plot FILE' in helps['mrc'], helps
    assert '--plot FILE' in helps['reuse'], helps


@test
def mrc_jobs_give_the_same_curves():
    """--jobs N: CLOCK beside the pass, OPT's sizes in N threads; the
    same table with one CPU (taskset), one job, or several, over a trace
    long enough for many hand-overs (65,536 ids each)."""
    with tempfile.TemporaryDirectory() as d:
        t = os.path.join(d, 'g.trace')
        with open(t, 'w') as f:
            subprocess.run([os.path.join(BIN, 'gentrace'), '300000'], stdout=f,
                           check=True, timeout=120)
        rc, want, err = run('mrc', '--jobs', '1', t)
        assert rc == 0 and want.count('\n') > 15, err
        for args in (['--jobs', '2'], ['--jobs', '3'], ['--jobs', '64'], []):
            rc, out, err = run('mrc', *args, t)
            assert rc == 0 and out == want, (args, err)
        p = subprocess.run(['taskset', '-c', '0', os.path.join(BIN, 'pgfreport'),
                            'mrc', t], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and p.stdout == want, p.stderr
        rc, out, err = run('mrc+reuse', '--jobs', '2', t)
        assert rc == 0 and out.startswith('# ==== mrc\n' + want), err
        for bad in ('0', '65', 'x', '-1', '2k'):
            rc, out, err = run('mrc', '--jobs', bad, t)
            assert rc == 2 and out == '' and "--jobs: '" in err, (bad, err)
        for other in (['--shards', '0.1'], ['--shards-size', '64']):
            rc, out, err = run('mrc', '--jobs', '2', *other, t)
            assert rc == 2 and out == '' and 'not with --shards' in err, err
    assert '--jobs N' in help_lists('mrc')['mrc']


def progress_run(data, cut, tty):
    """pgfreport summary reading @data from a pipe, stalled 1.2 s after
    @cut bytes, its stderr a pseudo-terminal (@tty) or a pipe: (stdout,
    stderr)."""
    import pty
    import time
    if tty:
        master, slave = pty.openpty()
    else:
        master, slave = os.pipe()
    p = subprocess.Popen([os.path.join(BIN, 'pgfreport'), 'summary'],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=slave)
    os.close(slave)
    out = []
    reader = __import__('threading').Thread(
        target=lambda: out.append(p.stdout.read()), daemon=True)
    reader.start()
    p.stdin.write(data[:cut])
    p.stdin.flush()
    # past the line's first second: the pass has run that long when the
    # rest comes (the wait is the condition, whatever the host's speed)
    time.sleep(1.2)
    p.stdin.write(data[cut:])
    p.stdin.close()
    assert p.wait(timeout=120) == 0
    reader.join(timeout=60)
    err = b''
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:         # the pty's EIO once the child is gone
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    return out[0], err


@test
def progress_shows_on_a_terminal_and_nowhere_else():
    """On a terminal, a pass longer than a second shows a progress line on
    stderr (records, records/s; no share from a pipe), redrawn in place and
    taken away before the report; off a terminal, stderr stays empty; the
    report is the same."""
    with tempfile.TemporaryDirectory() as d:
        t = os.path.join(d, 'g.trace')
        with open(t, 'w') as f:
            subprocess.run([os.path.join(BIN, 'gentrace'), '300000'], stdout=f,
                           check=True, timeout=120)
        with open(t, 'rb') as f:
            data = f.read()
        cut = data.index(b'\n', len(data) // 3) + 1
        want = run('summary', t)[1].encode()
        out, err = progress_run(data, cut, True)
        assert out == want
        assert b'pgfreport summary: ' in err and b' M records/s' in err, err
        assert b' of ' not in err and b' left' not in err, err
        assert err.startswith(b'\r\x1b[K') and err.endswith(b'\r\x1b[K'), err
        out, err = progress_run(data, cut, False)
        assert out == want and err == b'', err


@test
def tlb_misses_are_exact_on_beladys_string():
    # Fully associative: LRU's 10 and 8 at 3 and 4 entries. 4:2 is two
    # sets of two ways: odd pages 1 3 1 5 1 3 5 miss 5 times, even
    # pages 2 4 2 2 4 twice: 7. 2:1, two sets of one: 7 + 4 = 11.
    path = trace_file(belady_trace())
    rc, out, err = run('tlb', '--specs', '3,4,4:2,2:1', path)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == '# mode window=16', lines
    assert 'sizes below 16 pages cannot be told' in lines[1], lines
    assert 'cache-line effects' in out and 'beyond it' in out, out
    assert '# 12 references to 5 pages; misses include the 5 cold ones' in lines, lines
    rows = [line.split() for line in lines if not line.startswith('#')]
    assert rows == [['3', 'full', '1', '12288', '10', '0.8333'],
                    ['4', 'full', '1', '16384', '8', '0.6667'],
                    ['4', '2', '2', '16384', '7', '0.5833'],
                    ['2', '1', '2', '8192', '11', '0.9167']], rows
    # The default TLBs, and the list as --specs=LIST.
    rc, out, err = run('tlb', path)
    assert rc == 0, err
    rows = [line.split()[:5] for line in out.splitlines() if not line.startswith('#')]
    assert rows == [['64', 'full', '1', '262144', '5'], ['64', '4', '16', '262144', '5'],
                    ['1536', 'full', '1', '6291456', '5'],
                    ['1536', '12', '128', '6291456', '5']], rows
    rc, out2, err = run('tlb', '--specs=3,4,4:2,2:1', path)
    assert rc == 0 and [line.split() for line in out2.splitlines()
                        if not line.startswith('#')][2][4] == '7', out2
    for bad in ('0', '4:3', '4:8', '4:0', 'x', '4,', '4:2:1'):
        rc, out, err = run('tlb', f'--specs={bad}', path)
        assert rc == 2 and err.startswith('pgfreport tlb: --specs: ') and out == '', \
            (bad, err)
    # The list is --specs's argument, never the trace.
    rc, out, err = run('tlb', '--specs', path)
    assert rc == 2 and '--specs' in err and out == '', err
    os.unlink(path)


HOT = '''pgfault_history 4 pid 1 page_size 4096
start 1 window=16
layout 2 2
map 2 1 10000 14000 r-xp 2000 08:01 42 /lib/libc.so
map 2 2 20000 22000 rw-p 0 00:00 0
fault 3 1 11008 r user minor 0
fault 4 1 11000 r user reref 0
fault 5 1 20000 w user minor 0
fault 6 1 13000 r user minor 0
fault 7 1 11000 r user reref 0
unmap 8 1
map 9 3 10000 12000 r--p 0 08:01 77 /data/file
fault 10 1 11000 r user minor 0
fault 11 1 20000 r user reref 0
fault 12 1 30000 r user minor 0
fault 13 1 30000 r user SIGSEGV 0
exit 14 0 8 0 2
'''


@test
def hot_pages_with_region_and_file_offset():
    # Page 11000 is referenced three times in libc, then, once libc is
    # unmapped, once in /data/file, which holds it at the end: all four
    # count for /data/file (its offset 0x1000), as the map and the summary
    # credit them. 13000 stays with libc, removed holding it (its offset
    # 0x2000 + 0x3000). Ties by address. 30000 is in no region ('-'); the
    # SIGSEGV is not a reference.
    path = trace_file(HOT)
    rc, out, err = run('hot', path)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == '# mode window=16', lines
    assert '# 8 references to 4 pages' in out, out
    rows = [line.split() for line in lines if not line.startswith('#')]
    assert rows == [
        ['1', '11000', '4', '0.5000', '0.5000', '0x1000', '/data/file'],
        ['2', '20000', '2', '0.2500', '0.7500', '-', '[anon]'],
        ['3', '13000', '1', '0.1250', '0.8750', '0x5000', '/lib/libc.so',
         '(removed)'],
        ['4', '30000', '1', '0.1250', '1.0000', '-', '-'],
    ], rows
    for args in (['-n', '2'], ['-n2'], ['--top', '2'], ['--top=2']):
        rc, out, err = run('hot', *args, path)
        assert rc == 0, err
        assert [line.split()[2] for line in out.splitlines()
                if not line.startswith('#')] == ['4', '2'], (args, out)
    for bad in (['--top=0'], ['--top=x'], ['-n', '-1'], ['-n', 'x']):
        rc, out, err = run('hot', *bad, path)
        assert rc == 2 and err.startswith('pgfreport hot: --top: ') and out == '', \
            (bad, err)
    os.unlink(path)
    # A first-touch trace says what its counts mean.
    rc, out, err = run('hot', '-n', '3', SEED)
    assert rc == 0 and out.startswith('# mode first\n'), (out, err)
    assert 'one or two each in a first-touch trace' in out, out
    rows = [line.split() for line in out.splitlines() if not line.startswith('#')]
    assert rows[0] == ['1', '8057000', '2', '0.1000', '0.1000', '0xf000', '/bin/ps'], rows


@test
def wss_curve_is_exact_on_beladys_string():
    # s(tau) by the definition (every window of tau references counted):
    # tau 1: 12/12; 2: 23/12; 4: 40/12; 8 and 12 (all): 48/12. Fault rate:
    # pages not among the tau references before: 12, 12, 8, 5, 5 of 12.
    path = trace_file(belady_trace())
    rc, out, err = run('wss', path)
    os.unlink(path)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == '# mode window=16', lines
    assert "Denning's working-set curve" in out and 'pgfreport timeline' in out, out
    assert '# 12 references to 5 pages' in lines, lines
    rows = [line.split() for line in lines if not line.startswith('#')]
    assert rows == [['1', '1.0000', '4096', '1.0000'],
                    ['2', '1.9167', '7851', '1.0000'],
                    ['4', '3.3333', '13653', '0.6667'],
                    ['8', '4.0000', '16384', '0.4167'],
                    ['12', '4.0000', '16384', '0.4167']], rows
    helps = help_lists('tlb', 'hot', 'wss')
    assert '--specs SPECS' in helps['tlb'] and 'beyond a page trace' in helps['tlb'], \
        helps['tlb']
    assert '--top N' in helps['hot'], helps['hot']
    assert 'pgfreport timeline gives the working set per interval' in helps['wss'], \
        helps['wss']


@test
def tlb_hot_wss_on_no_references():
    path = trace_file(HEADER + 'start 1\nlayout 1 1\nmap 1 1 1000 2000 rw-p 0 00:00 0\n'
                      'fault 2 1 1000 r user SIGSEGV 0\n')
    for cmd in ('tlb', 'hot', 'wss'):
        rc, out, err = run(cmd, path)
        assert rc == 0 and out.startswith('# mode first\n'), (cmd, out, err)
        assert '# 0 references' in out, (cmd, out)
        if cmd != 'tlb':
            assert [line for line in out.splitlines() if not line.startswith('#')] == [], out
    os.unlink(path)


@test
def tlb_hot_wss_on_a_large_trace():
    # What must hold on 300,000 random references: the fully associative
    # TLB is the LRU curve (mrc) at its size; s(tau) grows with tau and
    # is at most tau; the hot pages' counts fall and add up to at most all.
    gen = os.path.join(BIN, 'gentrace')
    with tempfile.NamedTemporaryFile(suffix='.trace') as f:
        subprocess.run([gen, '300000'], stdout=f, check=True)
        rc, tlb, err = run('tlb', '--specs', '64,1024,1024:8', f.name)
        assert rc == 0, err
        rc, mrc, err = run('mrc', '--sizes', '64,1024', f.name)
        assert rc == 0, err
        rc, wss, err = run('wss', f.name)
        assert rc == 0, err
        rc, hot, err = run('hot', '--top', '100', f.name)
        assert rc == 0, err
    t = [line.split() for line in tlb.splitlines() if not line.startswith('#')]
    m = [line.split() for line in mrc.splitlines() if not line.startswith('#')]
    assert [t[0][4], t[1][4]] == [m[0][6], m[1][6]], (t, m)
    assert int(t[2][4]) >= int(t[1][4]), t
    w = [(int(r[0]), float(r[1])) for r in
         (line.split() for line in wss.splitlines() if not line.startswith('#'))]
    assert w[-1][0] == 300000, w
    for (t0, s0), (t1, s1) in zip(w, w[1:]):
        assert s0 <= s1 <= t1, w
    refs = [int(line.split()[2]) for line in hot.splitlines() if not line.startswith('#')]
    assert len(refs) == 100 and refs == sorted(refs, reverse=True), refs


@test
def prefetch_is_exact_on_a_hand_made_trace():
    # Pages 10 11 12 13 20 22 24 5 6 of an anonymous region [0, 100),
    # then pages 100 101 100 of /f (tests/unit/test_prefetch.c works the
    # first nine by hand). Next-page: 11 12 13 6 101. Strides 1 1 1 | 7 |
    # 2 2 | -19 | 1 | 94 | 1 | -1: six runs of 1, two of 2-3 (5 strides).
    # /f: 100 brings in 101 (any N) and its region stops there; the
    # second fault on 100 came after its own fault: not avoided.
    pages = [10, 11, 12, 13, 20, 22, 24, 5, 6]
    t = ('pgfault_history 4 pid 1 page_size 4096\nstart 1 window=8\nlayout 2 2\n'
         'map 2 1 0 64000 rw-p 0 00:00 0\nmap 2 2 64000 66000 r--p 3000 08:01 5 /f\n' +
         ''.join(f'fault {10 + i} 1 {p * 0x1000:x} r user minor 0\n'
                 for i, p in enumerate(pages)) +
         'fault 30 1 64000 r user minor 0\nfault 31 1 65000 r user minor 0\n'
         'fault 32 1 64000 r user reref 0\nfault 33 1 99000 r user SIGSEGV 0\n')
    path = trace_file(t)
    rc, out, err = run('prefetch', path)
    os.unlink(path)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == '# mode window=8', lines
    assert '# 12 faults; next-page (the previous fault\'s page + 1): 5 (0.4167)' in lines, lines
    rows = [line.split() for line in lines if not line.startswith('#')]
    assert rows == [
        ['1', '6', '0.5000'], ['2-3', '2', '0.4167'],
        ['9', '4', '0.4444', '[anon]'], ['3', '1', '0.3333', '/f'],
        ['1', '4', '0.3333', '5', '0.4167'],
        ['2', '5', '0.4167', '7', '0.5833'],
        ['4', '7', '0.5833', '7', '0.5833'],
        ['8', '7', '0.5833', '8', '0.6667'],
        ['16', '8', '0.6667', '8', '0.6667'],
        ['32', '8', '0.6667', '8', '0.6667'],
        ['64', '8', '0.6667', '8', '0.6667'],
    ], rows
    assert 'readahead' in help_lists('prefetch')['prefetch']
    # A large trace: avoided faults grow with N, every >= demand.
    gen = os.path.join(BIN, 'gentrace')
    with tempfile.NamedTemporaryFile(suffix='.trace') as f:
        subprocess.run([gen, '100000'], stdout=f, check=True)
        rc, out, err = run('prefetch', f.name)
    assert rc == 0, err
    table = out[out.index('# next-N prefetch'):].splitlines()
    rows = [[int(line.split()[i]) for i in (0, 1, 3)] for line in table
            if not line.startswith('#')]
    assert [r[0] for r in rows] == [1, 2, 4, 8, 16, 32, 64], rows
    for a, b in zip(rows, rows[1:]):
        assert b[2] >= a[2], rows
    assert all(r[2] >= r[1] for r in rows), rows


@test
def mrc_names_an_unusable_temporary_directory():
    env = dict(os.environ, TMPDIR='/nonexistent-pgfreport-test')
    p = subprocess.run([os.path.join(BIN, 'pgfreport'), 'mrc', SEED],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=env, timeout=60)
    assert p.returncode == 125 and 'opt' in p.stderr and 'No such file' in p.stderr, p.stderr
    # reuse needs no file.
    p = subprocess.run([os.path.join(BIN, 'pgfreport'), 'reuse', SEED],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=env, timeout=60)
    assert p.returncode == 0, p.stderr


@test
def mrc_on_a_large_trace_keeps_the_orders_it_must():
    # No oracle for 300,000 random references, but what must hold: OPT
    # misses no more than any policy; LRU and OPT (stack algorithms) miss
    # no more at a larger size; the footprint row is the cold misses; the
    # reuse histogram adds up.
    gen = os.path.join(BIN, 'gentrace')
    with tempfile.NamedTemporaryFile(suffix='.trace') as f:
        subprocess.run([gen, '300000'], stdout=f, check=True)
        rc, out, err = run('mrc', f.name)
        rc2, out2, err2 = run('reuse', f.name)
    assert rc == 0 and rc2 == 0, (err, err2)
    info = [line for line in out.splitlines() if line.startswith('# 300000 references')]
    assert info, out
    pages = int(info[0].split()[4])
    rows = [[int(x) for x in line.split()[:2] + line.split()[6:]]
            for line in out.splitlines() if not line.startswith('#')]
    assert [r[0] for r in rows] == [1 << i for i in range(len(rows) - 1)] + [pages], rows
    for prev, row in zip([None] + rows, rows):
        size, nbytes, lru, fifo, clock, opt = row
        assert nbytes == size * 4096
        assert opt <= min(lru, fifo, clock) and lru <= 300000, row
        if prev:
            assert lru <= prev[2] and opt <= prev[5], (prev, row)
    assert rows[-1][2:] == [pages] * 4, rows[-1]
    lines = out2.splitlines()
    cut = next(i for i, line in enumerate(lines) if line.startswith('# per region'))
    hist = [line.split() for line in lines[:cut] if not line.startswith('#')]
    assert sum(int(r[1]) for r in hist) == 300000, hist
    assert hist[0] == ['cold', str(pages), f'{pages / 300000:.4f}'], hist[0]
    assert hist[-1][3] == f'{1 - pages / 300000:.4f}', hist[-1]
    # The regions' histograms add up to the whole one, bin by bin.
    regs = [line.split() for line in lines[cut + 2:]]
    assert len(regs) >= 3, regs
    assert sum(int(r[0]) for r in regs) == 300000, regs
    assert sum(int(r[1]) for r in regs) == pages, regs
    for k, h in enumerate(hist[1:]):
        assert sum(int(r[2 + k]) for r in regs) == int(h[1]), (k, h, regs)


@test
def large_generated_trace_is_counted_exactly():
    gen = os.path.join(BIN, 'gentrace')
    with tempfile.NamedTemporaryFile(suffix='.trace') as f:
        subprocess.run([gen, '300000'], stdout=f, check=True)
        rc, out, err = run('summary', f.name)
    assert rc == 0, err
    last = out.splitlines()[-1]
    assert '300000 faults' in last, last



@test
def lcs_exports_the_reference_string_for_libcachesim():
    # Counted faults only (the SIGSEGV is not a reference); time in
    # seconds since the first record; next use counted from 1, -1 never.
    text = ('pgfault_history 4 pid 1 page_size 4096\nstart 1000000000 first\n'
            'layout 1000000000 1\nmap 1000000000 1 1000 5000 rw-p 0 00:00 0\n'
            'fault 1000000001 1 1000 w user minor 400\n'
            'fault 2000000001 1 2000 w user minor 400\n'
            'fault 2500000001 1 1008 r user reref 400\n'
            'fault 3000000001 1 3000 w user SIGSEGV 400\n'
            'fault 4000000001 1 3000 w user minor 400\n'
            'fault 4000000002 1 2000 r user reref 400\n'
            'exit 5000000000 0 5 0 1\n')
    path = trace_file(text)
    d = tempfile.mkdtemp()
    binp, csvp = os.path.join(d, 'p.bin'), os.path.join(d, 'p.csv')
    for fmt, out_path in (('lcs', binp), ('lcs-csv', csvp)):
        rc, out, err = run('export', fmt, '-o', out_path, path)
        assert rc == 0, err
        assert err.startswith('pgfreport export: 5 references of ') and \
            'written for libCacheSim' in err and out == '', (fmt, out, err)
    with open(csvp) as f:
        assert f.read() == ('time,obj_id,obj_size,next_access_vtime\n'
                            '0,1,4096,3\n1,2,4096,5\n1,1,4096,-1\n'
                            '3,3,4096,-1\n3,2,4096,-1\n'), csvp
    with open(binp, 'rb') as f:
        data = f.read()
    assert len(data) == 5 * 24, len(data)
    recs = [struct.unpack('<IQIq', data[i:i + 24]) for i in range(0, len(data), 24)]
    assert recs == [(0, 1, 4096, 3), (1, 2, 4096, 5), (1, 1, 4096, -1),
                    (3, 3, 4096, -1), (3, 2, 4096, -1)], recs
    # A file that cannot be written: an error naming it, exit 1.
    rc, out, err = run('export', 'lcs', '-o', os.path.join(d, 'no', 'such', 'dir'), path)
    assert rc == 125 and 'no/such/dir' in err, (rc, err)
    for p in (binp, csvp):
        os.unlink(p)
    os.rmdir(d)
    os.unlink(path)

main()
