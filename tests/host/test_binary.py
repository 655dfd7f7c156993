# SPDX-License-Identifier: GPL-2.0
"""The binary form of a trace (tools/lib/pgfbin.h) and pgfreport convert:
text -> binary -> text gives back the same bytes, and binary -> text ->
binary too, for every record type (a cache line is a cache record of
32 bytes, version 2), a tree file, an old version (of the trace, and a
binary file of version 1), lines the
text reader takes but the kernel never writes (upper-case hex), and a
generated trace; every command prints the same from the binary form,
plain or zstd-compressed, as from the text, and from the text in a file
(read ahead in a thread) as from a pipe; convert -o replaces a file
only with a whole trace, compresses by the name's .zst, and refuses bad
input, options and a terminal as it should."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main  # noqa: E402
from tracelib import BIN, EVERY, TREE, OLD, write, gentrace, on_terminal  # noqa: E402

MAGIC = b'\x89PGFB\r\n\n'


def pgfreport(*args, stdin=None):
    return subprocess.run([os.path.join(BIN, 'pgfreport'), *args], input=stdin,
                          capture_output=True, timeout=300)


def convert(src, dst, *opts):
    p = pgfreport('convert', *opts, '-o', dst, src)
    assert p.returncode == 0, p.stderr
    return dst


def walk(raw):
    """The records of a binary trace: 'fault', 'cache', 'frame' (a fault
    with its frame), or a line record's text."""
    out, at = [], 16
    while at < len(raw):
        if raw[at] in (1, 3, 4):
            out.append({1: 'fault', 3: 'cache', 4: 'frame'}[raw[at]])
            at += 40 if raw[at] == 4 else 32
        else:
            n = int.from_bytes(raw[at + 4:at + 8], 'little')
            out.append(raw[at + 8:at + 8 + n].decode())
            at += 8 + (n + 7) // 8 * 8
    return out


def read(path):
    with open(path, 'rb') as f:
        return f.read()


@test
def text_to_binary_and_back_gives_the_same_bytes():
    with tempfile.TemporaryDirectory() as d:
        g = gentrace(d, 30000)
        odd = write(d, 'odd.trace', EVERY.replace('fault 200 7 400010',
                                                  'fault 200 7 40001A')
                    .replace('fault 210 8', 'fault 0210 8'))
        for path in (write(d, 'every.trace', EVERY), write(d, 'tree.trace', TREE),
                     write(d, 'old.trace', OLD), odd, g):
            b = convert(path, path + '.pgfb')
            raw = read(b)
            assert raw.startswith(MAGIC), raw[:16]
            back = convert(b, path + '.back')
            assert read(back) == read(path), path
            again = convert(back, path + '.pgfb2')
            assert read(again) == raw, path
            # --to the form it is in: a copy
            assert read(convert(path, path + '.same', '--to', 'text')) == read(path)
            assert read(convert(b, b + '.same', '--to', 'binary')) == raw
        # a fault is 32 bytes: the generated trace shrinks by a third
        size_t, size_b = os.path.getsize(g), os.path.getsize(g + '.pgfb')
        print(f'# gentrace 30000: text {size_t} bytes, binary {size_b} '
              f'({size_b / size_t:.2f}x)')
        assert size_b < 0.7 * size_t
        # the kernel's fault lines are fault records, the odd ones lines
        kinds = walk(read(odd + '.pgfb'))
        assert kinds.count('fault') == 4, kinds
        assert 'fault 200 7 40001A x user minor 400010' in kinds
        assert 'fault 0210 8 7f0000001000 w kernel major 400020' in kinds
        assert len(kinds) == EVERY.count('\n')
        # and every cache line a cache record of 32 bytes (version 2), in a
        # file of version 3
        kinds = walk(read(os.path.join(d, 'every.trace.pgfb')))
        assert kinds.count('cache') == EVERY.count('\ncache ') > 0, kinds
        assert not [k for k in kinds if k.startswith('cache ')], kinds
        # a fault line with its frame a frame record of 40 bytes (version 3)
        assert kinds.count('frame') == sum(
            1 for ln in EVERY.splitlines()
            if ln.startswith('fault ') and len(ln.split()) == 12) > 0, kinds
        assert int.from_bytes(read(os.path.join(d, 'every.trace.pgfb'))[8:12],
                              'little') == 3
        # a file of version 1 (before cache records) still reads
        old = read(os.path.join(d, 'old.trace.pgfb'))
        v1 = write(d, 'v1.pgfb', '')
        with open(v1, 'wb') as f:
            f.write(old[:8] + (1).to_bytes(4, 'little') + old[12:])
        assert read(convert(v1, v1 + '.back')) == read(os.path.join(d, 'old.trace'))


# Every command, with what it needs, on each kind of trace.
COMMANDS = [['map'], ['map', '--width', '40'], ['summary'], ['timeline'],
            ['mrc'], ['reuse'], ['tlb'], ['hot'], ['symbols'], ['wss'],
            ['prefetch'], ['export', 'csv'], ['export', 'json'],
            ['export', 'refs'], ['export', 'lcs-csv'],
            ['mrc+reuse+hot+wss+summary'],
            ['summary', '--time', '0.001,0.5', '--region', '[heap]']]


@test
def every_command_prints_the_same_from_either_form():
    with tempfile.TemporaryDirectory() as d:
        g = gentrace(d, 30000)
        tree = write(d, 'tree.trace', TREE)
        every = write(d, 'every.trace', EVERY)
        for path, cmds in ((g, COMMANDS + [['export', 'perfetto', '-o', 'OUT']]),
                           (tree, [['tree'], ['summary', '--pid', '11'],
                                   ['export', 'json'], ['mrc']]),
                           (every, [['map'], ['export', 'json'], ['samples'],
                                    ['timeline']])):
            b = convert(path, path + '.pgfb')
            z = convert(path, path + '.pgfb.zst', '--to', 'binary')
            assert read(z)[:4] == b'\x28\xb5\x2f\xfd', 'not zstd'
            for cmd in cmds:
                outs = []
                # the text from a file is read ahead in a thread where
                # there are two CPUs, from a pipe (standard input) not
                for src, pipe in ((path, False), (b, False), (z, False),
                                  (path, True)):
                    out = src + ('.pipe' if pipe else '') + '.out'
                    args = [a if a != 'OUT' else out for a in cmd]
                    if pipe:
                        p = pgfreport(*args, '-', stdin=read(src))
                    else:
                        p = pgfreport(*args, src)
                    got = p.stdout + (read(out) if 'OUT' in cmd else b'')
                    outs.append((p.returncode, got,
                                 p.stderr.replace(src.encode(), b'TRACE')
                                 .replace(b'standard input', b'TRACE')))
                assert outs[0][0] == 0 or cmd == ['samples'], (cmd, outs[0])
                assert outs[1] == outs[0], (cmd, path, outs[0][2], outs[1][2])
                assert outs[2] == outs[0], (cmd, path, outs[0][2], outs[2][2])
                assert outs[3] == outs[0], (cmd, path, outs[0][2], outs[3][2])
        # standard input, too
        p = pgfreport('summary', '-', stdin=read(g + '.pgfb'))
        assert p.returncode == 0 and p.stdout == pgfreport('summary', g).stdout


# Runs of faults in two processes' blocks, back and forth: the reader's
# fast path (a fault after a fault fills in the fault's fields alone)
# must take each block's pid from its "pid N" line.
RUNS = '''pgfault_history_tree 1 root 10
pid 10
pgfault_history 5 pid 10 page_size 4096
start 1000000 first inherit
layout 1000000 1
map 1000000 1 1000 9000 rw-p 0 00:00 0
child 1050000 10 11
fault 1100000 10 1000 w user minor 0
fault 1100100 10 2000 r user major 0
pid 11
pgfault_history 5 pid 11 page_size 4096
start 1060000 first inherit
layout 1060000 1
map 1060000 1 1000 9000 rw-p 0 00:00 0
fault 1200000 11 3000 w user minor 0
fault 1200100 12 4000 x kernel minor 0
fault 1200200 11 5000 r user reref 0
pid 10
fault 1300000 10 6000 w user minor 0
fault 1300100 10 7000 w user minor 0
pid 11
fault 1350000 11 8000 r user minor 0
exit 1400000 0 4 0 1
pid 10
exit 1500000 0 4 0 1
'''


@test
def runs_of_faults_keep_their_blocks_pids():
    with tempfile.TemporaryDirectory() as d:
        t = write(d, 'runs.trace', RUNS)
        b = convert(t, t + '.pgfb')
        assert walk(read(b)).count('fault') == 8
        outs = [pgfreport('export', 'json', src) for src in (t, b)]
        assert outs[0].returncode == 0, outs[0].stderr
        assert outs[1].stdout == outs[0].stdout
        faults = [json.loads(line) for line in outs[1].stdout.splitlines()]
        faults = [(f['pid'], f['tid'], f['address'] >> 12) for f in faults
                  if f.get('type') == 'fault']
        assert faults == [(10, 10, 1), (10, 10, 2), (11, 11, 3), (11, 12, 4),
                          (11, 11, 5), (10, 10, 6), (10, 10, 7),
                          (11, 11, 8)], faults
        # every command that reads a tree whole agrees with the text too
        for cmd in (['summary', '--pid', '11'], ['tree'], ['mrc']):
            outs = [pgfreport(*cmd, src) for src in (t, b)]
            assert outs[1].stdout == outs[0].stdout, cmd


@test
def convert_leaves_the_output_alone_on_a_bad_trace():
    with tempfile.TemporaryDirectory() as d:
        g = gentrace(d, 5000)
        b = convert(g, g + '.pgfb')
        raw = read(b)
        out = os.path.join(d, 'keep')
        with open(out, 'w') as f:
            f.write('precious\n')
        cut = os.path.join(d, 'cut.pgfb')
        with open(cut, 'wb') as f:
            f.write(raw[:len(raw) - 5])
        bad = write(d, 'bad.trace', OLD.replace('fault 6 1 8048000', 'fault 6 1 zz'))
        # a bad trace is 1; a file that cannot be read, pgfreport's failure
        for src, words, rc in ((cut, b'truncated', 1),
                               (bad, b':5: malformed record', 1),
                               (os.path.join(d, 'none'), b'No such file', 125)):
            p = pgfreport('convert', '-o', out, src)
            assert p.returncode == rc and words in p.stderr, (words, p.stderr)
            assert read(out) == b'precious\n', 'the output was touched'
            assert sorted(os.listdir(d)) == sorted(['g.trace', 'g.trace.pgfb',
                                                    'keep', 'cut.pgfb',
                                                    'bad.trace']), os.listdir(d)
        # a cut binary trace is an error for every command, never a shorter trace
        p = pgfreport('summary', cut)
        assert p.returncode == 1 and b'truncated: the file ends inside it' in p.stderr


@test
def convert_refuses_bad_options_and_a_terminal():
    with tempfile.TemporaryDirectory() as d:
        g = gentrace(d, 100)
        for args, words in ((['--to', 'json', g], b"--to: 'json' is not a form"),
                            (['--pid', '3', g], b'--pid does not apply'),
                            (['--tid', '3', g], b'--tid does not apply'),
                            ([g, g], b'one trace at a time')):
            p = pgfreport('convert', *args)
            assert p.returncode == 2 and words in p.stderr, (args, p.stderr)
        # binary to a terminal: refused, nothing written
        status, out = on_terminal([os.path.join(BIN, 'pgfreport'), 'convert', g])
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 2, out
        assert b'not for a terminal' in out and MAGIC not in out, out


main()
