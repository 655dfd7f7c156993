# SPDX-License-Identifier: GPL-2.0
"""Compressed traces (tools/lib/zfile.c): pgfreport reads a trace
compressed with zstd (what tracepgfault -o NAME.zst writes; the guest's
tools suite checks that side) or gzip as it reads the plain one, by its
first bytes, whatever its name, from a file or standard input; a stream
cut short or not what it says is an error, never a shorter trace."""
import gzip
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main, Skip  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
BIN = os.path.join(TOP, 'build', 'host', 'bin')


def pgfreport(*args, stdin=None):
    return subprocess.run([os.path.join(BIN, 'pgfreport'), *args], input=stdin,
                          capture_output=True, timeout=300)


def traces(d):
    """A generated trace, plain, zstd (named oddly) and gzip."""
    plain = os.path.join(d, 'g.trace')
    with open(plain, 'w') as f:
        subprocess.run([os.path.join(BIN, 'gentrace'), '30000'], stdout=f,
                       check=True, timeout=120)
    with open(plain, 'rb') as f:
        raw = f.read()
    if not shutil.which('zstd'):
        raise Skip('no zstd (Debian package zstd)')
    zst = os.path.join(d, 'g.compressed')
    subprocess.run(['zstd', '-q', plain, '-o', zst], check=True)
    gz = os.path.join(d, 'g.trace.gz')
    with gzip.open(gz, 'wb') as f:
        f.write(raw)
    return plain, zst, gz, raw


@test
def zstd_and_gzip_read_as_the_plain_trace_from_files_and_pipes():
    with tempfile.TemporaryDirectory() as d:
        plain, zst, gz, raw = traces(d)
        want = pgfreport('export', 'json', plain)
        assert want.returncode == 0 and want.stdout.count(b'\n') > 30000
        for path in (zst, gz):
            got = pgfreport('export', 'json', path)
            assert got.returncode == 0 and got.stdout == want.stdout, path
            with open(path, 'rb') as f:
                got = pgfreport('export', 'json', stdin=f.read())
            assert got.returncode == 0 and got.stdout == want.stdout, path
        got = pgfreport('mrc', '--sizes', '64,4096', zst)
        assert got.stdout == pgfreport('mrc', '--sizes', '64,4096', plain).stdout


@test
def a_stream_cut_short_or_corrupt_is_an_error():
    with tempfile.TemporaryDirectory() as d:
        plain, zst, gz, raw = traces(d)
        for path in (zst, gz):
            with open(path, 'rb') as f:
                data = f.read()
            for cut in (data[:len(data) // 2], data[:-8],
                        data[:6] + b'\0' * 64 + data[70:]):
                bad = os.path.join(d, 'bad')
                with open(bad, 'wb') as f:
                    f.write(cut)
                p = pgfreport('summary', bad)
                assert p.returncode == 1, (path, len(cut), p.stderr)
                assert b'pgfreport summary: ' in p.stderr and b'bad' in p.stderr, \
                    p.stderr


main()
