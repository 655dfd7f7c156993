# SPDX-License-Identifier: GPL-2.0
"""pgfault_trace: read pgfault_history traces in Python, with the standard
library alone.

A trace (tracepgfault's file, a tree file of tracepgfault -f, or
/proc/PID/pgfault_history saved as is; any format version 1 to 6; text
or the binary form of pgfreport convert; plain, or compressed: .gz, .xz,
.bz2, and .zst through the zstd command) is
streamed as one dict per record, with the keys and values of
`pgfreport export json` (type, time, tid, address, access, mode, result,
ip, ...; "pid" in a tree file), so the two can be checked against each
other:

    import pgfault_trace as pt

    for r in pt.records('pgfault.trace'):
        if r['type'] == 'fault' and r['result'] == 'major':
            print(hex(r['address']), r['time'])

    df = pt.dataframe('pgfault.trace')           # the faults, with pandas
    df.groupby('region').size().sort_values()

records() raises TraceError naming the file and line of a malformed
record (the records before it were yielded), or of a newer format.
"""
import bz2
import gzip
import io
import lzma
import os
import re
import struct
import subprocess
import sys

__all__ = ['records', 'dataframe', 'open_trace', 'TraceError', 'VERSION']

VERSION = 6          # the newest trace format this reads
BINARY_MAGIC = b'\x89PGFB\r\n\n'   # the binary form (tools/lib/pgfbin.h)
BINARY_VERSION = 1
RESULTS = ('minor', 'major', 'reref', 'SIGSEGV', 'SIGBUS', 'OOM')
SAMPLE_FLAGS = ('baseline', 'incomplete', 'stopped')
_HEADER = re.compile(r'pgfault_history (\d+) pid (\d+) page_size (\d+)$')
_TREE = re.compile(r'pgfault_history_tree (\d+) root (\d+)$')
_DEC = re.compile(r'[0-9]{1,19}$')        # as the C reader: at most 19 digits
_HEX = re.compile(r'[0-9a-fA-F]{1,16}$')


class TraceError(ValueError):
    """A trace that cannot be read: the message names the file and line."""


class _Zstd:
    """zstd -dc PATH: its output, binary; reading past its end raises
    TraceError if zstd failed."""

    def __init__(self, path):
        self._path = path
        self._p = subprocess.Popen(['zstd', '-dcq', '--', path],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.stream = self._p.stdout

    def check(self):
        if self._p.wait():
            raise TraceError(f'{self._path}: zstd: ' +
                             self._p.stderr.read().decode(errors='replace').strip())


class _Text(io.TextIOWrapper):
    """A text trace over a binary stream; at its end, @end() (a
    decompressor's check)."""

    def __init__(self, raw, end=None):
        self._end = end
        super().__init__(raw, encoding='utf-8', errors='surrogateescape',
                         newline='\n')

    def readline(self, *args):
        line = super().readline(*args)
        if not line and self._end:
            self._end()
        return line


class _Binary:
    """The binary form of a trace (tools/lib/pgfbin.h) read as the lines
    of its text form: a fault record becomes the fault line it stands
    for, a line record its line, each ending in '\n'. A malformed or cut
    record raises TraceError naming it (its number, from 1)."""

    def __init__(self, raw, name, end=None):
        self._raw, self.name, self._end, self._n = raw, name, end, 0
        # records() sets it: a fault comes as its dict, not parsed again
        self.dicts = False
        head = self._read(16)
        if len(head) < 16 or head[:8] != BINARY_MAGIC:
            raise TraceError(f'{name}: not a binary pgfault_history trace '
                             '(bad magic)')
        version, zero = struct.unpack('<II', head[8:])
        if version != BINARY_VERSION or zero:
            raise TraceError(f'{name}: binary trace version {version}; this '
                             f'reads version {BINARY_VERSION}')

    def _read(self, n):
        b = self._raw.read(n)
        while len(b) < n:
            more = self._raw.read(n - len(b))
            if not more:
                break
            b += more
        return b

    def _bad(self, what):
        return TraceError(f'{self.name}: record {self._n}: {what}')

    def readline(self):
        h = self._read(8)
        if not h:
            if self._end:
                self._end()
            return ''
        self._n += 1
        if len(h) < 8:
            raise self._bad('truncated: the file ends inside it')
        if h[0] == 1:
            rest = self._read(24)
            if len(rest) < 24:
                raise self._bad('truncated: the file ends inside it')
            tid = int.from_bytes(h[4:8], 'little')
            time, addr, ip = struct.unpack('<QQQ', rest)
            if chr(h[1]) not in 'rwx' or h[2] >= len(RESULTS) or h[3] > 1 or \
                    tid > 0x7fffffff or time > 9999999999999999999:
                raise self._bad('malformed fault record')
            if self.dicts:
                return {'type': 'fault', 'time': time, 'tid': tid,
                        'address': addr, 'access': chr(h[1]),
                        'mode': 'kernel' if h[3] else 'user',
                        'result': RESULTS[h[2]], 'ip': ip}
            return (f'fault {time} {tid} {addr:x} {chr(h[1])} '
                    f'{"kernel" if h[3] else "user"} {RESULTS[h[2]]} {ip:x}\n')
        n = int.from_bytes(h[4:8], 'little')
        padded = (n + 7) & ~7
        if h[0] != 2 or h[1:4] != b'\0\0\0' or 8 + padded > 1 << 20:
            raise self._bad('malformed record (type, length)')
        body = self._read(padded)
        if len(body) < padded:
            raise self._bad('truncated: the file ends inside it')
        text = body[:n]
        if b'\n' in text or b'\0' in text or body[n:].strip(b'\0'):
            raise self._bad('malformed line record')
        return text.decode('utf-8', 'surrogateescape') + '\n'

    def close(self):
        self._raw.close()


def open_trace(source):
    """A text stream of @source: a path ('-' for standard input; a
    compressed file by its suffix) or an open file (text or binary). A
    trace in the binary form (pgfreport convert) is read as the lines of
    its text form: records() reads either."""
    # lines end at '\n' alone: a path may hold a '\r'
    if isinstance(source, io.TextIOBase):
        return source
    end = None
    if hasattr(source, 'read'):
        raw = source
    elif source == '-':
        raw = sys.stdin.buffer
    else:
        path = os.fspath(source)
        if path.endswith('.gz'):
            raw = gzip.open(path, 'rb')
        elif path.endswith('.xz'):
            raw = lzma.open(path, 'rb')
        elif path.endswith('.bz2'):
            raw = bz2.open(path, 'rb')
        elif path.endswith('.zst'):
            # no zstd in the standard library before Python 3.14: the
            # command, whose failure (a cut or corrupt file) fails the reading
            z = _Zstd(path)
            raw, end = z.stream, z.check
        else:
            raw = open(path, 'rb')
    if not hasattr(raw, 'peek'):
        raw = io.BufferedReader(raw)
    if raw.peek(1)[:1] == BINARY_MAGIC[:1]:
        name = source if isinstance(source, (str, os.PathLike)) else \
            getattr(source, 'name', 'trace')
        return _Binary(raw, name, end)
    return _Text(raw, end)


def _dec(w):
    if not _DEC.match(w):
        raise ValueError(w)
    return int(w)


def _hex(w):
    if not _HEX.match(w):
        raise ValueError(w)
    return int(w, 16)


def _region(kind, w, rest):
    # map|change T ID START END PERMS OFFSET MAJ:MIN INODE [NAME]
    if len(w) < 9 or len(w[5]) != 4:
        raise ValueError
    maj, mn = w[7].split(':')
    r = {'type': kind, 'time': _dec(w[1]), 'id': _dec(w[2]),
         'start': _hex(w[3]), 'end': _hex(w[4]), 'perms': w[5],
         'offset': _hex(w[6]), 'dev': '%02x:%02x' % (int(maj, 16), int(mn, 16)),
         'inode': _dec(w[8]), 'name': rest(9)}
    if r['end'] <= r['start']:
        raise ValueError
    return r


def _runs(text):
    out, prev = [], None
    if text.endswith(' '):          # the C reader takes one trailing space
        text = text[:-1]
    for run in text.split(' '):
        a, sep, n = run.partition('+')
        if not sep:
            raise ValueError(run)
        start, pages = _hex(a), _dec(n)
        if not pages or (prev is not None and start <= prev):
            raise ValueError(run)
        prev = start
        out.append([start, pages])
    if not out:
        raise ValueError
    return out


def parse(line):
    """One record line as a dict (no "pid": records() adds it)."""
    w = line.split(' ')
    t = w[0]

    def rest(i):
        """The rest of the line from field @i on, as it is (a path may
        hold spaces)."""
        parts = line.split(' ', i)
        return parts[i] if len(parts) > i else ''

    if t == 'fault':
        if len(w) != 8 or w[4] not in 'rwx' or len(w[4]) != 1 or \
                w[5] not in ('user', 'kernel') or w[6] not in RESULTS:
            raise ValueError
        return {'type': 'fault', 'time': _dec(w[1]), 'tid': _dec(w[2]),
                'address': _hex(w[3]), 'access': w[4], 'mode': w[5],
                'result': w[6], 'ip': _hex(w[7])}
    if t in ('map', 'change'):
        return _region(t, w, rest)
    if t == 'unmap' and len(w) == 3:
        return {'type': 'unmap', 'time': _dec(w[1]), 'id': _dec(w[2])}
    if t == 'layout' and len(w) == 3:
        return {'type': 'layout', 'time': _dec(w[1]), 'count': _dec(w[2])}
    if t == 'lost' and len(w) == 3:
        return {'type': 'lost', 'faults': _dec(w[1]), 'other': _dec(w[2])}
    if t == 'start' and 2 <= len(w) <= 4:
        r = {'type': 'start', 'time': _dec(w[1]),
             'mode': w[2] if len(w) > 2 else 'first'}
        if len(w) == 4:
            if w[3] != 'inherit':
                raise ValueError
            r['inherit'] = True
        m = r['mode']
        if m != 'first' and not re.fullmatch(r'(interval|window|sample)=[0-9]+', m):
            raise ValueError
        if m.startswith('sample=') and not int(m[7:]):
            raise ValueError
        return r
    if t == 'stop' and len(w) >= 3:
        return {'type': 'stop', 'time': _dec(w[1]), 'reason': rest(2)}
    if t == 'exec' and len(w) >= 4:
        return {'type': 'exec', 'time': _dec(w[1]), 'tid': _dec(w[2]),
                'path': rest(3)}
    if t == 'remote' and len(w) == 5:
        if w[3] not in ('r', 'w', 'x') or w[4] not in RESULTS:
            raise ValueError
        return {'type': 'remote', 'time': _dec(w[1]), 'tid': _dec(w[2]),
                'access': w[3], 'result': w[4]}
    if t == 'rearm' and len(w) == 4:
        return {'type': 'rearm', 'time': _dec(w[1]), 'pages': _dec(w[2]),
                'how': w[3]}
    if t == 'child' and len(w) in (4, 5):
        r = {'type': 'child', 'time': _dec(w[1]), 'tid': _dec(w[2]),
             'child': _dec(w[3])}
        if not r['child'] or (len(w) == 5 and w[4] != 'untraced'):
            raise ValueError
        if len(w) == 5:
            r['untraced'] = True
        return r
    if t == 'refs' and len(w) >= 4:
        return {'type': 'refs', 'time': _dec(w[1]), 'tid': _dec(w[2]),
                'runs': _runs(rest(3))}
    if t == 'sample' and len(w) >= 6:
        r = {'type': 'sample', 'time': _dec(w[1]), 'tid': _dec(w[2]),
             'scanned': _dec(w[3]), 'referenced': _dec(w[4]), 'ns': _dec(w[5])}
        if r['referenced'] > r['scanned']:
            raise ValueError
        last = -1
        for f in w[6:]:
            k = SAMPLE_FLAGS.index(f)       # ValueError if not a flag
            if k <= last:
                raise ValueError
            last = k
            r[f] = True
        return r
    if t == 'exit' and len(w) == 6:
        return {'type': 'exit', 'time': _dec(w[1]), 'status': _dec(w[2]),
                'faults': _dec(w[3]), 'lost': _dec(w[4]), 'regions': _dec(w[5])}
    raise ValueError(t)


def _header(line, name, n, want_pid=None):
    m = _HEADER.match(line) if isinstance(line, str) else None
    if not m or (want_pid is not None and int(m.group(2)) != want_pid):
        raise TraceError(f'{name}:{n}: not a pgfault_history trace header: '
                         f'{str(line)[:80]!r}')
    v = int(m.group(1))
    if not 1 <= v <= VERSION:
        raise TraceError(f'{name}:{n}: trace format version {v}; this reads '
                         f'versions 1 to {VERSION}')
    return v, int(m.group(2)), int(m.group(3))


def records(source, info=None):
    """Yield each record of the trace @source as a dict (see the module's
    doc). If @info is a dict, it gets the trace's 'version', 'pid',
    'page_size' and 'tree' once the header is read."""
    f = open_trace(source)
    name = source if isinstance(source, (str, os.PathLike)) else \
        getattr(f, 'name', 'trace')
    try:
        first = f.readline().rstrip('\n')
        if isinstance(f, _Binary):
            f.dicts = True
        if not first:
            raise TraceError(f'{name}: empty: no pgfault_history header')
        tree = _TREE.match(first)
        if tree:
            if tree.group(1) != '1':
                raise TraceError(f'{name}:1: tree format version '
                                 f'{tree.group(1)}; this reads version 1')
            version, pid, page_size = None, int(tree.group(2)), None
        else:
            version, pid, page_size = _header(first, name, 1)
        if info is not None:
            info.update(version=version, pid=pid, page_size=page_size,
                        tree=bool(tree))
        cur, seen = pid, set()
        expect_block = bool(tree)
        n = 1
        while True:
            line = f.readline()
            if not line:
                break
            n += 1
            if type(line) is dict:
                # a binary fault record, decoded already
                if expect_block:
                    raise TraceError(f'{name}:2: the tree does not start '
                                     'with its root\'s trace')
                yield dict([('type', 'fault'), ('pid', cur)] +
                           list(line.items())[1:]) if tree else line
                continue
            if not line.endswith('\n'):
                raise TraceError(f'{name}:{n}: truncated: the last line has no '
                                 'newline')
            line = line[:-1]
            if tree and line.startswith('pid '):
                try:
                    cur = int(line[4:])
                    if cur <= 0 or not _DEC.match(line[4:]):
                        raise ValueError
                except ValueError:
                    raise TraceError(f'{name}:{n}: malformed block: {line[:80]!r}')
                if expect_block and cur != pid:
                    raise TraceError(f'{name}:{n}: the tree does not start '
                                     'with its root\'s trace')
                expect_block = False
                if cur not in seen:
                    seen.add(cur)
                    h = f.readline()
                    h = h.rstrip('\n') if isinstance(h, str) else h
                    n += 1
                    v, _, ps = _header(h, name, n, cur)
                    if page_size is None:
                        version, page_size = v, ps
                        if info is not None:
                            info.update(version=v, page_size=ps)
                    elif ps != page_size:
                        raise TraceError(f'{name}:{n}: process {cur} has '
                                         f'page size {ps}, the tree {page_size}')
                continue
            if expect_block:
                raise TraceError(f'{name}:2: the tree does not start with its '
                                 'root\'s trace')
            try:
                r = parse(line)
            except (ValueError, IndexError):
                raise TraceError(f'{name}:{n}: malformed record: {line[:200]!r}')
            if tree:
                r = dict([('type', r['type']), ('pid', cur)] +
                         [(k, v) for k, v in r.items() if k != 'type'])
            yield r
        if expect_block:
            raise TraceError(f'{name}:2: the tree does not start with its '
                             'root\'s trace')
    finally:
        if hasattr(source, 'read') or source == '-':
            # the caller's stream, or standard input: left open
            if isinstance(f, io.TextIOWrapper) and f is not source:
                f.detach()
        else:
            f.close()


def dataframe(source, types=('fault',)):
    """The records of @types (all, if None) as a pandas DataFrame, a row
    each, a column per key, and for faults a 'region' column: the name
    of the region that held the address then ('' if none). Needs pandas
    (Debian: python3-pandas)."""
    import pandas as pd

    rows, regions, by_pid = [], {}, {}
    for r in records(source):
        pid = r.get('pid', 0)
        space = by_pid.setdefault(pid, {})
        t = r['type']
        if t in ('layout', 'exec'):
            space.clear()
        elif t in ('map', 'change'):
            space[r['id']] = (r['start'], r['end'], r['name'] or '[anon]')
        elif t == 'unmap':
            space.pop(r['id'], None)
        if types is not None and t not in types:
            continue
        if t == 'fault':
            hit = [g for g in space.values() if g[0] <= r['address'] < g[1]]
            r = dict(r, region=hit[0][2] if hit else '')
        rows.append(r)
    del regions
    return pd.DataFrame(rows)
