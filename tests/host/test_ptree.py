# SPDX-License-Identifier: GPL-2.0
"""pgfreport on tree files (tracepgfault -f): the reader's checks, tree,
--pid against the same trace on its own, and the whole-tree analyses,
whose pages are each process's own."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
BIN = os.path.join(TOP, 'build', 'host', 'bin')


def run(*args):
    p = subprocess.run([os.path.join(BIN, 'pgfreport'), *args],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def trace_file(text):
    f = tempfile.NamedTemporaryFile('w', suffix='.trace', delete=False)
    f.write(text)
    f.close()
    return f.name


# Each process's own trace, as the kernel gives it.
ROOT = '''pgfault_history 5 pid 10 page_size 4096
start 1000000 first inherit
layout 1000000 1
map 1000000 1 1000 5000 rw-p 0 00:00 0
fault 1100000 10 1000 w user minor 0
child 2000000 10 11
fault 2100000 10 2000 w user minor 0
child 3000000 10 12
fault 3100000 10 1000 r user minor 0
exit 9000000 256 3 0 1
'''
CHILD = '''pgfault_history 5 pid 11 page_size 4096
start 1900000 first inherit
layout 1900000 1
map 1900000 1 1000 5000 rw-p 0 00:00 0
fault 2200000 11 1000 w user minor 0
fault 2300000 11 3000 w user minor 0
exec 2400000 11 /bin/true
layout 2400000 0
map 2410000 2 400000 402000 r-xp 0 08:01 12 /bin/true
fault 2500000 11 400000 x user minor 0
lost 2 0
exit 2600000 0 3 2 2
'''
GRAND = '''pgfault_history 5 pid 12 page_size 4096
start 2900000 first inherit
layout 2900000 1
map 2900000 1 1000 5000 rw-p 0 00:00 0
fault 3200000 12 4000 w user minor 0
exit 3300000 9 1 0 1
'''


def tree(blocks):
    """A tree file from (pid, lines) blocks, in the order given."""
    out = ['pgfault_history_tree 1 root 10\n']
    for pid, lines in blocks:
        out.append('pid %d\n' % pid)
        out.extend(lines)
    return ''.join(out)


def split(text):
    return text.splitlines(keepends=True)


def interleaved():
    r, c, g = split(ROOT), split(CHILD), split(GRAND)
    # root up to its first child record, the child whole, the rest of the
    # root, the grandchild: blocks interleave as tracepgfault -f writes.
    return tree([(10, r[:6]), (11, c[:6]), (10, r[6:8]), (11, c[6:]),
                 (12, g), (10, r[8:])])


@test
def tree_lists_every_process_under_its_creator():
    path = trace_file(interleaved())
    rc, out, err = run('tree', path)
    # Read from standard input alike.
    with open(path) as f:
        p = subprocess.run([os.path.join(BIN, 'pgfreport'), 'tree'], stdin=f,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=120)
    os.unlink(path)
    assert rc == 0 and p.returncode == 0 and out == p.stdout, (err, p.stderr)
    lines = out.splitlines()
    assert lines[0].split()[:3] == ['PID', 'PARENT', 'START_MS'], lines[0]
    root, child, grand = (l.split() for l in lines[1:4])
    # pid parent start end faults pages lost children status...
    assert root[:2] == ['10', '0'] and root[4:8] == ['3', '2', '0', '2'], root
    assert ' '.join(root[8:10]) == 'exit 1', root
    assert child[:2] == ['11', '10'] and child[2] == '1.000', child
    assert child[4:8] == ['3', '3', '2', '0'] and child[-1] == '/bin/true', child
    assert grand[:2] == ['12', '10'] and ' '.join(grand[8:10]) == 'signal 9', grand
    assert lines[2].startswith('  11') and lines[3].startswith('  12'), lines
    assert lines[4] == ('# 3 processes traced, 7 faults, 6 pages (per process, '
                        'summed), 2 lost'), lines[4]


@test
def pid_reports_as_on_the_process_alone():
    tpath = trace_file(interleaved())
    cpath = trace_file(CHILD)
    for opts in (['map'], ['summary'], ['map', '--space', '0'], ['map', '--counts'],
                 ['mrc'], ['reuse'], ['export', 'refs'], ['export', 'csv'], ['hot']):
        rc, alone, err = run(*opts, cpath)
        rc2, in_tree, err2 = run(*opts, '--pid', '11', tpath)
        assert rc == 0 and rc2 == 0, (opts, err, err2)
        assert alone == in_tree, (opts, alone, in_tree)
    os.unlink(tpath)
    os.unlink(cpath)


@test
def whole_tree_keeps_each_process_apart():
    path = trace_file(interleaved())
    rc, out, err = run('export', 'refs', path)
    assert rc == 0, err
    refs = [l for l in out.splitlines() if not l.startswith('#')]
    # page 1000 of processes 0 and 1 are two pages; index in bits 56+
    assert refs.count('1000') == 2 and refs.count('100000000001000') == 1, refs
    assert '200000000004000' in refs and len(refs) == 7, refs
    rc, out, err = run('export', 'csv', path)
    assert rc == 0 and out.splitlines()[0].endswith(',region,pfn,node,page_size,level,change,pages,cause,'
                                                    'new_pfn,new_node,pid'), out
    assert out.splitlines()[1] == f'1100000,10,{0x1000},w,user,minor,0,[anon],,,,,,,,,,10', out
    rc, out, err = run('export', 'json', path)
    assert rc == 0 and '"type":"child","pid":10,' in out, out
    rc, out, err = run('mrc', '--sizes', '1,8', path)
    os.unlink(path)
    assert rc == 0, err
    # 7 references to 6 distinct (process, page): the only hit is the
    # root's second reference to its page 1000, at any size above 1
    assert '# 7 references to 6 pages (24 KiB)' in out, out
    rows = [l.split() for l in out.splitlines() if not l.startswith('#')]
    assert rows[0][6:] == ['7', '7', '7', '7'], rows
    assert rows[1][6:] == ['6', '6', '6', '6'], rows


@test
def bad_trees_are_refused_naming_the_line():
    cases = [
        (tree([(10, split(ROOT))]).replace('pid 10\n', ''),
         'does not start with its root'),
        (tree([(11, split(CHILD))]), 'does not start with its root'),
        (tree([(10, split(ROOT)), (12, split(GRAND)[1:])]),
         ':14: expected the header of process 12'),
        (tree([(10, split(ROOT)),
               (12, [GRAND.splitlines(keepends=True)[0].replace('4096', '8192')])]),
         'page size 8192'),
        (tree([(10, split(ROOT)), (12, [GRAND.splitlines(keepends=True)[0].replace(' 5 ', ' 10 ')])]),
         'version 10'),
        ('pgfault_history_tree 2 root 10\n', 'tree format version 2'),
        (tree([(10, split(ROOT))]) + 'pid x\n', ':13: malformed block: "pid x"'),
    ]
    for text, want in cases:
        path = trace_file(text)
        rc, out, err = run('tree', path)
        os.unlink(path)
        assert rc == 1 and want in err, (want, err)


@test
def pid_and_tree_options_check_their_input():
    tpath = trace_file(interleaved())
    cpath = trace_file(CHILD)
    rc, out, err = run('map', '--pid', '99', tpath)
    assert rc == 2 and 'no process 99' in err, err
    for cmd in ('map', 'summary'):
        rc, out, err = run(cmd, tpath)
        assert rc == 2 and f'is a tree of 3 processes: {cmd} reports on one ' \
            'process: give --pid, one of 10 11 12 (' in err, err
    rc, out, err = run('tree', cpath)
    assert rc == 2 and 'not a tree' in err, err
    rc, out, err = run('tree', '--pid', '11', tpath)
    assert rc == 2 and out == '' and \
        err.startswith('pgfreport tree: --pid does not apply'), err
    rc, out, err = run('map', '--pid', '12', cpath)
    assert rc == 2 and 'process 11 alone' in err, err
    rc, out, err = run('map', '--pid', '11', cpath)   # its own pid: fine
    assert rc == 0, err
    rc, out, err = run('map', '--pid', 'x', cpath)
    assert rc == 2 and '--pid' in err and "'x'" in err, err
    os.unlink(tpath)
    os.unlink(cpath)


# Two processes whose regions have the same id (1): a program's text in
# one, a heap in the other; 40 sequential faults in the heap.
SAME_IDS = """pgfault_history_tree 1 root 100
pid 100
pgfault_history 6 pid 100 page_size 4096
start 1000 first inherit
layout 1000 1
map 1000 1 400000 404000 r-xp 0 08:01 5 /bin/prog
child 1100 100 200
fault 1200 100 401000 r user minor 0
pid 200
pgfault_history 6 pid 200 page_size 4096
start 1150 first inherit
layout 1150 1
map 1150 1 7f0000000000 7f0000100000 rw-p 0 00:00 0 [heap]
fault 1300 200 7f0000000000 r user minor 0
fault 1301 200 7f0000001000 r user minor 0
fault 1302 200 7f0000002000 r user minor 0
fault 1303 200 7f0000003000 r user minor 0
fault 1304 200 7f0000004000 r user minor 0
fault 1305 200 7f0000005000 r user minor 0
fault 1306 200 7f0000006000 r user minor 0
fault 1307 200 7f0000007000 r user minor 0
fault 1308 200 7f0000008000 r user minor 0
fault 1309 200 7f0000009000 r user minor 0
fault 1310 200 7f000000a000 r user minor 0
fault 1311 200 7f000000b000 r user minor 0
fault 1312 200 7f000000c000 r user minor 0
fault 1313 200 7f000000d000 r user minor 0
fault 1314 200 7f000000e000 r user minor 0
fault 1315 200 7f000000f000 r user minor 0
fault 1316 200 7f0000010000 r user minor 0
fault 1317 200 7f0000011000 r user minor 0
fault 1318 200 7f0000012000 r user minor 0
fault 1319 200 7f0000013000 r user minor 0
fault 1320 200 7f0000014000 r user minor 0
fault 1321 200 7f0000015000 r user minor 0
fault 1322 200 7f0000016000 r user minor 0
fault 1323 200 7f0000017000 r user minor 0
fault 1324 200 7f0000018000 r user minor 0
fault 1325 200 7f0000019000 r user minor 0
fault 1326 200 7f000001a000 r user minor 0
fault 1327 200 7f000001b000 r user minor 0
fault 1328 200 7f000001c000 r user minor 0
fault 1329 200 7f000001d000 r user minor 0
fault 1330 200 7f000001e000 r user minor 0
fault 1331 200 7f000001f000 r user minor 0
fault 1332 200 7f0000020000 r user minor 0
fault 1333 200 7f0000021000 r user minor 0
fault 1334 200 7f0000022000 r user minor 0
fault 1335 200 7f0000023000 r user minor 0
fault 1336 200 7f0000024000 r user minor 0
fault 1337 200 7f0000025000 r user minor 0
fault 1338 200 7f0000026000 r user minor 0
fault 1339 200 7f0000027000 r user minor 0
exit 1340 0 40 0 1
pid 100
exit 1400 0 1 0 1
"""


@test
def a_whole_tree_keeps_each_process_s_regions_apart():
    path = trace_file(SAME_IDS)
    rc, out, err = run('hot', '-n', '50', path)
    assert rc == 0, err
    rows = [r.split() for r in out.splitlines() if not r.startswith('#')]
    text = [r for r in rows if r[1] == '401000']
    assert len(text) == 1 and text[0][5:] == ['0x1000', '/bin/prog'], rows
    assert len(rows) == 41 and all(r[5:] == ['-', '[heap]'] for r in rows
                                   if r[1] != '401000'), rows
    # the heap's 40 pages in a row: next-page prefetch on demand avoids
    # every other fault (20), as for process 200 alone
    whole = run('prefetch', path)[1].splitlines()
    alone = run('prefetch', '--pid', '200', path)[1].splitlines()
    os.unlink(path)
    pick = [l.split() for l in whole if l.split()[:1] == ['1']]
    mine = [l.split() for l in alone if l.split()[:1] == ['1']]
    assert pick and mine and pick[-1][1] == mine[-1][1] == '20', (pick, mine)


if __name__ == '__main__':
    main()
