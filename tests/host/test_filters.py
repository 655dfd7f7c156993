# SPDX-License-Identifier: GPL-2.0
"""The filters every pgfreport command shares (--tid, --time, --addr,
--region, tools/lib/filter.c), on a hand-made trace whose answers are
worked out by hand below: which faults each filter keeps, alone and
together, in the export, the map, the summary, hot and mrc; and the
errors for arguments that are not ones, and for commands a filter does
not apply to; and, common to the commands too, that none waits on a
terminal for a trace."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main  # noqa: E402
from tracelib import on_terminal  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
BIN = os.path.join(TOP, 'build', 'host', 'bin')

# Two threads (100, 101), four regions (prog, libc, heap, then an anonymous
# one mapped at 2.1 s), the trace starting at 1 s of its clock. The faults,
# numbered as the tests below name them (t: seconds after the start):
#   1  t=0.0001 tid 100  prog  400000        minor
#   2  t=0.0002 tid 100  libc  7f0000000000  major
#   3  t=0.5    tid 101  heap  10000000      minor
#   4  t=0.6    tid 101  heap  10001000      minor
#   5  t=1.0    tid 100  libc  7f0000001000  minor
#   6  t=1.2    tid 101  anon  20000000      minor
#   7  t=1.3    tid 100  heap  10000000      minor
#   8  t=1.5    tid 100  -     0             SIGSEGV (failed: in export csv
#                                            and json only)
TRACE = '''pgfault_history 6 pid 100 page_size 4096
start 1000000000
layout 1000000000 3
map 1000000000 1 400000 404000 r-xp 0 08:01 11 /usr/bin/prog
map 1000000000 2 7f0000000000 7f0000008000 r-xp 0 08:01 22 /usr/lib/x86_64-linux-gnu/libc.so.6
map 1000000000 3 10000000 10010000 rw-p 0 00:00 0 [heap]
fault 1000100000 100 400000 x user minor 400000
fault 1000200000 100 7f0000000000 x user major 400010
fault 1500000000 101 10000000 w user minor 7f0000000100
fault 1600000000 101 10001000 w user minor 7f0000000200
fault 2000000000 100 7f0000001000 r user minor 400020
map 2100000000 4 20000000 20004000 rw-p 0 00:00 0
fault 2200000000 101 20000000 w user minor 7f0000000300
fault 2300000000 100 10000000 r user minor 400030
fault 2500000000 100 0 r user SIGSEGV 400040
exit 2600000000 139 7 0 4
'''

ADDR = {1: '400000', 2: '7f0000000000', 3: '10000000', 4: '10001000',
        5: '7f0000001000', 6: '20000000', 7: '10000000', 8: '0'}
TIME = {1: 1000100000, 2: 1000200000, 3: 1500000000, 4: 1600000000,
        5: 2000000000, 6: 2200000000, 7: 2300000000, 8: 2500000000}


def run(*args):
    with tempfile.NamedTemporaryFile('w', suffix='.trace') as f:
        f.write(TRACE)
        f.flush()
        p = subprocess.run([os.path.join(BIN, 'pgfreport'), *args, f.name],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=60, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def faults(*filters):
    """The numbers of the faults export csv keeps under @filters."""
    rc, out, err = run('export', 'csv', *filters)
    assert rc == 0, (filters, rc, err)
    lines = out.splitlines()
    assert lines[0].startswith('time_ns,tid,address'), lines[0]
    got = []
    for line in lines[1:]:
        t, _, addr = line.split(',')[:3]
        n = [k for k in TIME if TIME[k] == int(t) and int(ADDR[k], 16) == int(addr)]
        assert len(n) == 1, line
        got += n
    return got


@test
def no_filter_keeps_every_fault():
    assert faults() == [1, 2, 3, 4, 5, 6, 7, 8]


@test
def tid_keeps_one_thread_s_faults():
    assert faults('--tid', '101') == [3, 4, 6]
    assert faults('--tid', '100') == [1, 2, 5, 7, 8]
    assert faults('--tid', '7') == []


@test
def time_counts_from_the_start_from_included_to_excluded():
    assert faults('--time', '0.5,1.2') == [3, 4, 5]
    assert faults('--time', '1.2,') == [6, 7, 8]
    assert faults('--time', ',0.5') == [1, 2]
    assert faults('--time', '0.0002,0.0002001') == [2]


@test
def time_with_at_is_the_trace_s_own_clock():
    assert faults('--time', '@1.5,@2.25') == [3, 4, 5, 6]
    assert faults('--time', '@2.3,') == [7, 8]
    # one end of each kind: from 0.5 s after the start to 2.0 s of the clock
    assert faults('--time', '0.5,@2.0') == [3, 4]


@test
def addr_is_a_half_open_range_or_a_start_and_size():
    assert faults('--addr', '10000000-10001000') == [3, 7]
    assert faults('--addr', '0x10000000+8k') == [3, 4, 7]
    assert faults('--addr', '7f0000000000-7f0000008000') == [2, 5]
    assert faults('--addr', '0-1') == [8]


@test
def region_by_name_path_part_id_or_anon():
    assert faults('--region', 'libc.so.6') == [2, 5]
    assert faults('--region',
                  '/usr/lib/x86_64-linux-gnu/libc.so.6') == [2, 5]
    assert faults('--region', '3') == [3, 4, 7]
    assert faults('--region', '[anon]') == [6]
    assert faults('--region', 'prog') == [1]
    assert faults('--region', 'libc') == []   # a name is whole, not a prefix
    assert faults('--region', 'libc.so.6', '--region', '[heap]') == \
        [2, 3, 4, 5, 7]


@test
def filters_together_keep_what_passes_them_all():
    assert faults('--tid', '100', '--region', '[heap]') == [7]
    assert faults('--tid', '101', '--time', '0.55,',
                  '--addr', '10000000-20000000') == [4]
    assert faults('--time', '1,', '--region', 'libc.so.6') == [5]
    assert faults('--tid', '101', '--region', 'libc.so.6') == []


@test
def times_are_exact_nanoseconds_however_late_the_clock():
    """--time counts in whole nanoseconds: no rounding through a double at a
    clock past 2^53 ns (104 days of uptime) or 2^63."""
    t0 = 2 ** 54 + 3
    late = f"""pgfault_history 6 pid 1 page_size 4096
start {t0}
layout {t0} 1
map {t0} 1 1000 9000 rw-p 0 00:00 0
fault {t0} 1 1000 r user minor 0
fault {t0 + 1} 1 2000 r user minor 0
fault {t0 + 999999999} 1 3000 r user minor 0
fault {t0 + 1000000000} 1 4000 r user minor 0
fault 9300000000000000000 1 5000 r user minor 0
fault 9400000000000000000 1 6000 r user minor 0
exit 9400000000000000001 0 6 0 1
"""
    with tempfile.NamedTemporaryFile('w', suffix='.trace') as f:
        f.write(late)
        f.flush()

        def addrs(*args):
            p = subprocess.run([os.path.join(BIN, 'pgfreport'), 'export', 'csv',
                                *args, f.name], capture_output=True, text=True,
                               timeout=60)
            assert p.returncode == 0, p.stderr
            return [f"{int(l.split(',')[2]):x}" for l in p.stdout.splitlines()[1:]]
        assert addrs('--time', '0,1') == ['1000', '2000', '3000']
        assert addrs('--time', '0.000000001,0.999999999') == ['2000']
        assert addrs('--time', '@9350000000,') == ['6000']
        assert addrs('--time', ',@9400000000') == ['1000', '2000', '3000', '4000',
                                                   '5000']
        assert addrs('--addr', '1000+4096') == ['1000']     # decimal bytes
        assert addrs('--addr', '1000+010000') == ['1000', '2000', '3000']


@test
def map_and_summary_show_the_regions_chosen_and_their_faults():
    rc, out, err = run('map', '--region', '[heap]', '--tid', '100')
    assert rc == 0, err
    assert out == ('Region: 10000000 - 10010000 (  16 pages): '
                   '|X...............| [heap]\n'), out
    rc, out, err = run('map', '--addr', '400000+1')
    assert rc == 0, err
    assert out == 'Region: 00400000 - 00404000 (   4 pages): |X...| /usr/bin/prog\n'
    rc, out, err = run('summary', '--tid', '101')
    assert rc == 0, err
    rows = {r.split()[-1]: r.split() for r in out.splitlines()
            if not r.startswith('#')}
    # pages, touched, faults, major, rerefs of each region
    assert rows['[heap]'][3:8] == ['16', '2', '2', '0', '0'], rows['[heap]']
    assert rows['[anon]'][3:8] == ['4', '1', '1', '0', '0'], rows['[anon]']
    assert rows['libc.so.6' if 'libc.so.6' in rows else
                '/usr/lib/x86_64-linux-gnu/libc.so.6'][5] == '0'
    assert '3 faults (0 major, 0 failed)' in out, out
    assert '# the faults and regions the filters chose' in out, out


@test
def analyses_take_the_faults_chosen():
    # the heap's references: 10000000, 10001000, 10000000 (faults 3, 4, 7)
    rc, out, err = run('mrc', '--region', '[heap]', '--sizes', '1,2')
    assert rc == 0, err
    rows = [r.split() for r in out.splitlines() if not r.startswith('#')]
    assert [(r[0], r[6]) for r in rows] == [('1', '3'), ('2', '2')], rows
    rc, out, err = run('hot', '--tid', '100', '--time', '1,')
    assert rc == 0, err
    rows = [r.split() for r in out.splitlines() if not r.startswith('#')]
    # faults 5 and 7 (8 failed): one reference each, file offset for libc
    assert sorted((r[1], r[2], r[5]) for r in rows) == \
        [('10000000', '1', '-'), ('7f0000001000', '1', '0x1000')], rows


@test
def bad_arguments_are_refused_saying_what_is_wanted():
    for args, words in ((('--time', '2,1'), 'TO is not after FROM'),
                        (('--time', 'soon'), 'FROM,TO'),
                        (('--time', ','), 'neither'),
                        (('--time', '1'), 'FROM,TO'),
                        (('--addr', '5-3'), 'END is not above START'),
                        (('--addr', 'zz-30'), 'START-END'),
                        (('--addr', '1000+0'), 'START+SIZE'),
                        (('--tid', '0'), 'not a thread id'),
                        (('--tid', '12x'), 'not a thread id'),
                        (('--region', ''), 'empty region name')):
        rc, out, err = run('map', *args)
        assert rc == 2 and out == '', (args, rc, out)
        assert err.startswith(f'pgfreport map: {args[0]}: ') and words in err, \
            (args, err)


@test
def filters_are_refused_where_they_do_not_apply():
    for cmd in ('tree', 'samples'):
        rc, out, err = run(cmd, '--tid', '100')
        assert rc == 2 and out == '', (cmd, rc, out)
        assert err.startswith(f'pgfreport {cmd}: --tid does not apply'), err
    rc, out, err = run('tree', '--pid', '100')
    assert rc == 2 and 'does not apply' in err, err


@test
def no_trace_on_a_terminal_says_what_is_wanted():
    """A bare command with standard input a terminal (a pty here) does not
    wait for a trace: it says what it wants and fails."""
    status, out = on_terminal([os.path.join(BIN, 'pgfreport'), 'map'])
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 2, status
    assert b'pgfreport map: no trace: name a trace file' in out, out


@test
def a_report_that_cannot_be_written_fails():
    with tempfile.NamedTemporaryFile('w', suffix='.trace') as f:
        f.write(TRACE)
        f.flush()
        for cmd in (['map'], ['summary'], ['mrc'], ['hot'], ['mrc+hot'],
                    ['export', 'csv']):
            with open('/dev/full', 'w') as full:
                p = subprocess.run([os.path.join(BIN, 'pgfreport'), *cmd, f.name],
                                   stdout=full, stderr=subprocess.PIPE,
                                   text=True, timeout=60)
            assert p.returncode == 125 and 'No space left on device' in p.stderr, \
                (cmd, p.returncode, p.stderr)


@test
def option_mistakes_are_named_as_given():
    for args, words in ((['export', 'csv', '--rw=1'], 'pgfreport export: --rw takes no argument'),
                        (['map', '--counts=yes'], 'pgfreport map: --counts takes no argument'),
                        (['map', '-z'], "pgfreport map: unknown option '-z'"),
                        (['mrc', '--bogus'], "pgfreport mrc: unknown option '--bogus'"),
                        (['mrc', '--sizes'], 'pgfreport mrc: --sizes needs an argument')):
        p = subprocess.run([os.path.join(BIN, 'pgfreport'), *args], capture_output=True,
                           text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert p.returncode == 2 and p.stderr.startswith(words), (args, p.stderr)


main()
