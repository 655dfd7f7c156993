# SPDX-License-Identifier: GPL-2.0
"""pgfreport checks a trace's end and says how it ended.

A trace the kernel wrote ends with an exit record whose totals (counted
fault and remote records kept, faults lost) are what the trace holds, or
with a stop record. A trace cut at a line boundary, or missing records,
reads as a complete one line by line: pgfreport warns, naming the process
and what is missing, prints every report of what it holds, and exits 1.
The exit statuses: 1 for the trace, 2 for the command line, 125 for
pgfreport's own failure. A tree file of one process needs no --pid; of
several, the error names them. The HTML report shows a process's end as
wait(2) tells it."""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main  # noqa: E402
from tracelib import BIN, ended  # noqa: E402

PGFREPORT = os.path.join(BIN, 'pgfreport')

BODY = ('pgfault_history 6 pid 7 page_size 4096\nstart 100 first\n'
        'layout 100 1\nmap 100 1 1000 5000 rw-p 0 00:00 0\n'
        'fault 200 7 1000 w user minor 0\n'
        'fault 201 7 2000 w user major 0\n'
        'fault 202 7 3000 w user SIGSEGV 0\n'
        'remote 203 7 r minor\n'
        'lost 2 1\n'
        'fault 204 7 4000 r user minor 0\n')
WHOLE = BODY + 'exit 300 0 4 2 1\n'


def run(text, *args):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 't.trace')
        with open(path, 'w') as f:
            f.write(text)
        p = subprocess.run([PGFREPORT, *args, path], capture_output=True,
                           text=True, timeout=60, cwd=d)
        return p.returncode, p.stdout, p.stderr


@test
def a_whole_trace_exits_0_and_says_nothing():
    for text in (WHOLE, BODY + 'stop 300 user\n',
                 BODY + 'stop 250 user\nstart 260 first\nexit 300 0 4 2 1\n'):
        rc, out, err = run(text, 'summary')
        assert rc == 0 and err == '', (text, err)
    assert ended(BODY) == WHOLE.replace('exit 300', 'exit 204'), ended(BODY)


@test
def a_trace_cut_short_is_a_warning_and_status_1_after_the_reports():
    for cut in (BODY, BODY + 'stop 250 user\nstart 260 first\n'):
        rc, out, err = run(cut, 'map')
        assert rc == 1, (rc, err)
        assert 'Region: 00001000 - 00005000 (   4 pages): |XX.X|' in out, out
        assert re.search(r'warning: .*t\.trace: the trace of process 7 has no '
                         r'exit or stop record: it was cut short', err), err
        assert 'the reports are of what it holds' in err, err


@test
def exit_totals_that_differ_from_the_trace_name_both():
    for exit_rec, holds in (('exit 300 0 5 2 1', 'holds 4 faults and counts 2 '
                             'lost where its exit record says 5 and 2'),
                            ('exit 300 0 4 3 1', 'holds 4 faults and counts 2 '
                             'lost where its exit record says 4 and 3')):
        rc, out, err = run(BODY + exit_rec + '\n', 'summary')
        assert rc == 1 and holds in err and 'records are missing' in err, err
        assert '3 touched, 3 faults' in out, out    # remote: no address


@test
def convert_and_export_write_a_cut_trace_as_it_is():
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, 'cut.trace')
        with open(src, 'w') as f:
            f.write(BODY)
        for args, out in ((['convert', '-o'], 'cut.pgfb'),
                          (['export', 'perfetto', '-o'], 'cut.pftrace')):
            dst = os.path.join(d, out)
            p = subprocess.run([PGFREPORT, *args, dst, src], capture_output=True,
                               text=True, timeout=60)
            assert p.returncode == 1 and 'cut short' in p.stderr, p.stderr
            assert os.path.getsize(dst) > 0, out
        p = subprocess.run([PGFREPORT, 'summary', os.path.join(d, 'cut.pgfb')],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 1 and 'cut short' in p.stderr, p.stderr


def tree(*blocks):
    out = [f'pgfault_history_tree 1 root {blocks[0][0]}\n']
    for pid, text in blocks:
        out.append(f'pid {pid}\n')
        out.append(text)
    return ''.join(out)


def proc(pid, status=0, end=True):
    text = (f'pgfault_history 6 pid {pid} page_size 4096\nstart 100 first inherit\n'
            f'layout 100 1\nmap 100 1 1000 3000 rw-p 0 00:00 0\n'
            f'fault 200 {pid} 1000 w user minor 0\n')
    return text + (f'exit 300 {status} 1 0 1\n' if end else '')


@test
def a_tree_of_one_process_needs_no_pid():
    one = tree((10, proc(10, 256)))
    for cmd in ('map', 'summary'):
        rc, out, err = run(one, cmd)
        rc2, out2, err2 = run(one, cmd, '--pid', '10')
        assert (rc, out, err) == (rc2, out2, err2), (cmd, err, err2)
    rc, out, err = run(one, 'map')
    assert rc == 0 and out == 'Region: 00001000 - 00003000 (   2 pages): |X.|\n', \
        (out, err)


@test
def a_tree_of_several_names_them():
    several = tree((10, proc(10).replace('fault 200', 'child 150 10 11\nfault 200')),
                   (11, proc(11)))
    rc, out, err = run(several, 'summary')
    assert rc == 2 and out == '', out
    assert 'is a tree of 2 processes: summary reports on one process: give ' \
        '--pid, one of 10 11 (pgfreport tree lists them)' in err, err
    # from a pipe the processes cannot be counted first
    p = subprocess.run([PGFREPORT, 'summary'], input=several,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and 'is a tree: summary reports on one process: ' \
        'give --pid' in p.stderr, p.stderr


@test
def each_process_of_a_tree_is_checked_and_named():
    cut = tree((10, proc(10).replace('fault 200', 'child 150 10 11\nfault 200')),
               (11, proc(11, end=False)))
    rc, out, err = run(cut, 'tree')
    assert rc == 1 and 'the trace of process 11 has no exit or stop record' \
        in err and 'process 10' not in err, err
    assert out.count('\n') >= 3, out   # the tree is printed all the same
    # --pid 10: only its own end counts
    rc, out, err = run(cut, 'map', '--pid', '10')
    assert rc == 0 and err == '', err
    rc, out, err = run(cut, 'map', '--pid', '11')
    assert rc == 1 and 'process 11' in err, err


@test
def html_shows_how_a_process_ended_as_wait_tells_it():
    for status, shown in ((256, 'exit 1'), (0, 'exit 0'), (9, 'signal 9')):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, 't.trace')
            with open(src, 'w') as f:
                f.write(WHOLE.replace('exit 300 0', f'exit 300 {status}'))
            page = os.path.join(d, 'r.html')
            p = subprocess.run([PGFREPORT, 'html', '-o', page, src],
                               capture_output=True, text=True, timeout=120)
            assert p.returncode == 0, p.stderr
            with open(page) as f:
                m = re.search(r'<script type="application/json" id="pgf-data">'
                              r'(.*?)</script>', f.read(), flags=re.S)
            data = json.loads(m.group(1))
            assert data['tree'][0]['status'] == shown, (status, data['tree'])


@test
def the_three_statuses():
    rc, _, err = run(WHOLE, 'summary', '--bogus')
    assert rc == 2 and "unknown option '--bogus'" in err, err
    rc, _, err = run(WHOLE, 'map', '--space', '3')
    assert rc == 2 and 'there is no --space 3' in err, err
    p = subprocess.run([PGFREPORT, 'nosuchcommand'], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2, p
    p = subprocess.run([PGFREPORT, 'map', '/nonexistent.trace'],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 125 and 'No such file' in p.stderr, p
    rc, _, err = run(WHOLE.replace('fault 201 7 2000', 'fault 201 7 zz'), 'map')
    assert rc == 1 and ':6: malformed record' in err, err
    if os.path.exists('/dev/full'):
        with tempfile.NamedTemporaryFile('w', suffix='.trace') as f:
            f.write(WHOLE)
            f.flush()
            with open('/dev/full', 'w') as full:
                p = subprocess.run([PGFREPORT, 'summary', f.name], stdout=full,
                                   stderr=subprocess.PIPE, text=True, timeout=60)
        assert p.returncode == 125 and 'No space left' in p.stderr, p.stderr


if __name__ == '__main__':
    main()
