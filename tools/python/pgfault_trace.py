# SPDX-License-Identifier: GPL-2.0
"""pgfault_trace: read pgfault_history traces in Python, with the standard
library alone.

A trace (tracepgfault's file, a tree file of tracepgfault -f, or
/proc/PID/pgfault_history saved as is; any format version 1 to 9; text
or the binary form of pgfreport convert; plain, or compressed with gzip,
xz, bzip2 or zstd (through the zstd command), told by its first bytes) is
streamed as one dict per record, with the keys and values of
`pgfreport export json` (type, time, tid, address, access, mode, result,
ip, ...; "pid" in a tree file), so the two can be checked against each
other:

    import pgfault_trace as pt

    for r in pt.records('pgfault.trace'):
        if r['type'] == 'fault' and r['result'] == 'major':
            print(hex(r['address']), r['time'])

    df = pt.read_trace('pgfault.trace')          # the faults, with pandas
    df.groupby('region', observed=True).size().sort_values()

records() raises TraceError naming the file and line of a malformed
record (the records before it were yielded), or of a newer format.
"""
import bisect
import bz2
import gzip
import io
import lzma
import os
import re
import struct
import subprocess
import sys
import threading

__all__ = ['records', 'read_trace', 'dataframe', 'open_trace', 'TraceError',
           'VERSION']

VERSION = 9          # the newest trace format this reads
BINARY_MAGIC = b'\x89PGFB\r\n\n'   # the binary form (tools/lib/pgfbin.h)
BINARY_VERSION = 3
RESULTS = ('minor', 'major', 'reref', 'SIGSEGV', 'SIGBUS', 'OOM')
SAMPLE_FLAGS = ('baseline', 'incomplete', 'stopped')
CACHE = ('hit', 'miss', 'readahead', 'hole', 'direct')
# The results /proc/<pid>/stat counts: only they may carry a frame.
COUNTED = ('minor', 'major', 'reref')
# The page table level a fault's frame is mapped at (version 8).
LEVELS = ('pte', 'pmd', 'pud')
# What the kernel did to the frames under pages (version 9).
CHANGES = ('move', 'evict', 'split', 'collapse', 'mapped')
_HEADER = re.compile(r'pgfault_history (\d+) pid (\d+) page_size (\d+)$')
_TREE = re.compile(r'pgfault_history_tree (\d+) root (\d+)$')
_DEC = re.compile(r'[0-9]{1,19}$')        # as the C reader: at most 19 digits
_HEX = re.compile(r'[0-9a-fA-F]{1,16}$')


class TraceError(ValueError):
    """A trace that cannot be read: the message names the file and line."""


class _Zstd:
    """zstd -dc of the file @path, or of the stream @raw (fed to it from
    a thread): its output, binary; reading past its end raises
    TraceError if zstd failed."""

    def __init__(self, path, raw=None):
        self._path = path
        self._p = subprocess.Popen(['zstd', '-dcq'] + (['--', path] if raw is None else []),
                                   stdin=subprocess.PIPE if raw is not None else None,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.stream = self._p.stdout
        if raw is not None:
            threading.Thread(target=self._feed, args=(raw,), daemon=True).start()

    def _feed(self, raw):
        try:
            while True:
                b = raw.read(1 << 16)
                if not b:
                    break
                self._p.stdin.write(b)
        except (BrokenPipeError, ValueError):
            pass
        finally:
            try:
                self._p.stdin.close()
            except BrokenPipeError:
                pass

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
    """The binary form of a trace (tools/lib/pgfbin.h, version 1 to 3)
    read as the lines of its text form: a fault (frame, cache) record
    becomes the line it stands for, a line record its line, each ending
    in '\n'. A malformed or cut record raises TraceError naming it (its
    number, from 1)."""

    def __init__(self, raw, name, end=None):
        self._raw, self.name, self._end, self._n = raw, name, end, 0
        # records() sets it: a fault comes as its dict, not parsed again
        self.dicts = False
        head = self._read(16)
        if len(head) < 16 or head[:8] != BINARY_MAGIC:
            raise TraceError(f'{name}: not a binary pgfault_history trace '
                             '(bad magic)')
        version, zero = struct.unpack('<II', head[8:])
        if not 1 <= version <= BINARY_VERSION or zero:
            raise TraceError(f'{name}: binary trace version {version}; this '
                             f'reads versions 1 to {BINARY_VERSION}')
        self.version = version

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
        if h[0] == 1 or (h[0] == 4 and self.version >= 3):
            what = 'fault' if h[0] == 1 else 'frame'
            rest = self._read(24 if h[0] == 1 else 32)
            if len(rest) < (24 if h[0] == 1 else 32):
                raise self._bad('truncated: the file ends inside it')
            tid = int.from_bytes(h[4:8], 'little')
            time, addr, ip = struct.unpack('<QQQ', rest[:24])
            if chr(h[1]) not in 'rwx' or h[2] >= len(RESULTS) or h[3] > 1 or \
                    tid > 0x7fffffff or time > 9999999999999999999:
                raise self._bad(f'malformed {what} record')
            r = {'type': 'fault', 'time': time, 'tid': tid,
                 'address': addr, 'access': chr(h[1]),
                 'mode': 'kernel' if h[3] else 'user',
                 'result': RESULTS[h[2]], 'ip': ip}
            line = (f'fault {time} {tid} {addr:x} {chr(h[1])} '
                    f'{"kernel" if h[3] else "user"} {RESULTS[h[2]]} {ip:x}')
            if h[0] == 4:
                f = int.from_bytes(rest[24:], 'little')
                node, level = f >> 40 & 0x7ff, f >> 57 & 3
                if f >> 59 or level >= len(LEVELS) or \
                        r['result'] not in COUNTED:
                    raise self._bad('malformed frame record')
                r.update(pfn=f & ((1 << 40) - 1),
                         node=-1 if node == 0x7ff else node,
                         order=f >> 51 & 63, level=LEVELS[level])
                line += (f' {r["pfn"]:x} {"-" if node == 0x7ff else node} '
                         f'{r["order"]} {r["level"]}')
            return r if self.dicts else line + '\n'
        if h[0] == 3 and self.version >= 2:
            rest = self._read(24)
            if len(rest) < 24:
                raise self._bad('truncated: the file ends inside it')
            tid = int.from_bytes(h[4:8], 'little')
            time, index, pages, file = struct.unpack('<QQII', rest)
            if chr(h[1]) not in 'rw' or h[2] >= len(CACHE) or h[3] or \
                    tid > 0x7fffffff or not pages or time > 9999999999999999999:
                raise self._bad('malformed cache record')
            return (f'cache {time} {tid} {file} {index} {pages} {chr(h[1])} '
                    f'{CACHE[h[2]]}\n')
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


# The first bytes of the compressed streams open_trace() reads
_GZIP, _XZ, _BZ2, _ZSTD = b'\x1f\x8b', b'\xfd7zXZ\x00', b'BZh', b'\x28\xb5\x2f\xfd'


def open_trace(source):
    """A text stream of @source: a path ('-' for standard input) or an
    open file (text or binary). A compressed one (gzip, xz, bzip2, zstd
    through the zstd command) is recognised by its first bytes, whatever
    its name, as pgfreport does. A trace in the binary form (pgfreport
    convert) is read as the lines of its text form: records() reads
    either."""
    # lines end at '\n' alone: a path may hold a '\r'
    if isinstance(source, io.TextIOBase):
        return source
    end = None
    path = None
    if hasattr(source, 'read'):
        raw = source
    elif source == '-':
        raw = sys.stdin.buffer
    else:
        path = os.fspath(source)
        raw = open(path, 'rb')
    if not hasattr(raw, 'peek'):
        raw = io.BufferedReader(raw)
    head = raw.peek(6)[:6]
    if head.startswith(_GZIP):
        raw = io.BufferedReader(gzip.GzipFile(fileobj=raw, mode='rb'))
    elif head.startswith(_XZ):
        raw = io.BufferedReader(lzma.LZMAFile(raw, 'rb'))
    elif head.startswith(_BZ2):
        raw = io.BufferedReader(bz2.BZ2File(raw, 'rb'))
    elif head.startswith(_ZSTD):
        # no zstd in the standard library before Python 3.14: the
        # command, whose failure (a cut or corrupt file) fails the reading
        if path is not None:
            raw.close()
            z = _Zstd(path)
        else:
            z = _Zstd(getattr(source, 'name', 'standard input'), raw)
        raw, end = io.BufferedReader(z.stream), z.check
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
        if len(w) not in (8, 12) or w[4] not in 'rwx' or len(w[4]) != 1 or \
                w[5] not in ('user', 'kernel') or w[6] not in RESULTS:
            raise ValueError
        r = {'type': 'fault', 'time': _dec(w[1]), 'tid': _dec(w[2]),
             'address': _hex(w[3]), 'access': w[4], 'mode': w[5],
             'result': w[6], 'ip': _hex(w[7])}
        if len(w) == 12:
            # the frame (version 8): PFN NODE ORDER LEVEL; node -1: "-"
            if w[6] not in COUNTED or w[11] not in LEVELS:
                raise ValueError
            r.update(pfn=_hex(w[8]), node=-1 if w[9] == '-' else _dec(w[9]),
                     order=_dec(w[10]), level=w[11])
            if r['pfn'] >= 1 << 40 or not -1 <= r['node'] < 0x7ff or \
                    r['order'] > 63:
                raise ValueError
        return r
    if t in ('map', 'change'):
        return _region(t, w, rest)
    if t == 'unmap' and len(w) == 3:
        return {'type': 'unmap', 'time': _dec(w[1]), 'id': _dec(w[2])}
    if t == 'layout' and len(w) == 3:
        return {'type': 'layout', 'time': _dec(w[1]), 'count': _dec(w[2])}
    if t == 'lost' and len(w) == 3:
        return {'type': 'lost', 'faults': _dec(w[1]), 'other': _dec(w[2])}
    if t == 'start' and 2 <= len(w) <= 5:
        r = {'type': 'start', 'time': _dec(w[1]),
             'mode': w[2] if len(w) > 2 else 'first'}
        # "inherit" (version 5), "files" (version 7), in that order
        opts = w[3:]
        if opts not in ([], ['inherit'], ['files'], ['inherit', 'files']):
            raise ValueError
        for o in opts:
            r[o] = True
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
    if t == 'exit' and len(w) in (6, 9):
        r = {'type': 'exit', 'time': _dec(w[1]), 'status': _dec(w[2]),
             'faults': _dec(w[3]), 'lost': _dec(w[4]), 'regions': _dec(w[5])}
        if len(w) == 9:
            # "cache KEPT LOST" (version 7)
            if w[6] != 'cache':
                raise ValueError
            r['cache_kept'], r['cache_lost'] = _dec(w[7]), _dec(w[8])
        return r
    if t == 'file' and len(w) >= 5:
        # file T ID MAJ:MIN INODE [PATH] (version 7)
        maj, mn = w[3].split(':')
        return {'type': 'file', 'time': _dec(w[1]), 'id': _dec(w[2]),
                'dev': '%02x:%02x' % (int(maj, 16), int(mn, 16)),
                'inode': _dec(w[4]), 'path': rest(5)}
    if t in CHANGES and len(w) in (8, 12):
        # KIND T TID ADDR PAGES CAUSE NODE NEWNODE [PFN NEWPFN ORDER LEVEL]
        # (version 9): a node "-" is -1, a frame "-" None
        def node(x):
            v = -1 if x == '-' else _dec(x)
            if not -1 <= v < 0x7ff:
                raise ValueError
            return v

        def pfn(x):
            v = None if x == '-' else _hex(x)
            if v is not None and v >= 1 << 40:
                raise ValueError
            return v

        r = {'type': t, 'time': _dec(w[1]), 'tid': _dec(w[2]),
             'address': _hex(w[3]), 'pages': _dec(w[4]), 'cause': w[5],
             'node': node(w[6]), 'new_node': node(w[7])}
        if not r['pages'] or not w[5]:
            raise ValueError
        if len(w) == 12:
            if w[11] not in LEVELS:
                raise ValueError
            r.update(pfn=pfn(w[8]), new_pfn=pfn(w[9]), order=_dec(w[10]),
                     level=w[11])
            if r['order'] > 63:
                raise ValueError
        return r
    if t == 'cache' and len(w) == 8:
        # cache T TID FILE INDEX PAGES r|w HOW (version 7)
        if w[6] not in ('r', 'w') or w[7] not in CACHE:
            raise ValueError
        r = {'type': 'cache', 'time': _dec(w[1]), 'tid': _dec(w[2]),
             'file': _dec(w[3]), 'index': _dec(w[4]), 'pages': _dec(w[5]),
             'access': w[6], 'cache': w[7]}
        if not r['pages']:
            raise ValueError
        return r
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


# The DataFrame's columns: each key's dtype (pandas'), in the order of
# pgfreport export json; 'region' is read_trace()'s.
_DTYPES = {
    'type': 'category', 'pid': 'int64', 'time': 'int64', 'tid': 'int64',
    'address': 'uint64', 'access': 'category', 'mode': 'category',
    'result': 'category', 'ip': 'uint64', 'region': 'category',
    'id': 'int64', 'start': 'uint64', 'end': 'uint64', 'perms': 'category',
    'offset': 'uint64', 'dev': 'category', 'inode': 'int64', 'name': 'category',
    'count': 'int64', 'faults': 'int64', 'other': 'int64', 'inherit': 'boolean',
    'reason': 'category', 'path': 'category', 'pages': 'int64', 'how': 'category',
    'child': 'int64', 'untraced': 'boolean', 'runs': 'object',
    'scanned': 'int64', 'referenced': 'int64', 'ns': 'int64',
    'baseline': 'boolean', 'incomplete': 'boolean', 'stopped': 'boolean',
    'status': 'int64', 'lost': 'int64', 'regions': 'int64',
    'files': 'boolean', 'cache_kept': 'int64', 'cache_lost': 'int64',
    'file': 'int64', 'index': 'int64', 'cache': 'category',
    'pfn': 'uint64', 'node': 'int64', 'order': 'int64', 'level': 'category',
    'cause': 'category', 'new_node': 'int64', 'new_pfn': 'uint64',
}
# Keys a record of its type may lack: nullable columns, even when none does.
_SOMETIMES = ('pfn', 'node', 'order', 'new_pfn')
# Each record type's keys, as parse() gives them (and 'pid' in a tree).
_KEYS = {
    'fault': ('time', 'tid', 'address', 'access', 'mode', 'result', 'ip',
              'pfn', 'node', 'order', 'level', 'region'),
    'map': ('time', 'id', 'start', 'end', 'perms', 'offset', 'dev', 'inode', 'name'),
    'change': ('time', 'id', 'start', 'end', 'perms', 'offset', 'dev', 'inode', 'name'),
    'unmap': ('time', 'id'), 'layout': ('time', 'count'),
    'lost': ('faults', 'other'),
    'start': ('time', 'mode', 'inherit', 'files'),
    'stop': ('time', 'reason'), 'exec': ('time', 'tid', 'path'),
    'remote': ('time', 'tid', 'access', 'result'),
    'rearm': ('time', 'pages', 'how'),
    'child': ('time', 'tid', 'child', 'untraced'),
    'refs': ('time', 'tid', 'runs'),
    'sample': ('time', 'tid', 'scanned', 'referenced', 'ns', 'baseline',
               'incomplete', 'stopped'),
    'exit': ('time', 'status', 'faults', 'lost', 'regions', 'cache_kept',
             'cache_lost'),
    'file': ('time', 'id', 'dev', 'inode', 'path'),
    'cache': ('time', 'tid', 'file', 'index', 'pages', 'access', 'cache',
              'path'),
}
for _t in CHANGES:
    _KEYS[_t] = ('time', 'tid', 'address', 'pages', 'cause', 'node',
                 'new_node', 'pfn', 'new_pfn', 'order', 'level', 'region')


class _Space:
    """The regions of an address space as its records make them, and the
    one that holds an address, found by bisection over their starts."""

    def __init__(self):
        self.regions = {}           # id -> (start, end, name)
        self._starts = None         # sorted starts, once asked for
        self._sorted = None

    def apply(self, r):
        t = r['type']
        if t in ('layout', 'exec'):
            self.regions.clear()
        elif t in ('map', 'change'):
            self.regions[r['id']] = (r['start'], r['end'], r['name'] or '[anon]')
        elif t == 'unmap':
            self.regions.pop(r['id'], None)
        else:
            return
        self._starts = None

    def name_at(self, addr):
        """The name of the region that holds @addr, '' if none."""
        if self._starts is None:
            self._sorted = sorted(self.regions.values())
            self._starts = [g[0] for g in self._sorted]
        i = bisect.bisect_right(self._starts, addr) - 1
        if i >= 0 and addr < self._sorted[i][1]:
            return self._sorted[i][2]
        return ''


def _columns(types, tree):
    """The columns of a frame of record types @types (None: all)."""
    cols = ['pid'] if tree else []
    for t in (_KEYS if types is None else types):
        for k in _KEYS.get(t, ()):
            if k not in cols:
                cols.append(k)
    return ['type'] + cols


def _frame(pd, rows, cols):
    """@rows as a DataFrame of @cols, each column of its dtype: integers
    exact (a column some records lack is a nullable one, Int64 or
    UInt64, never float), strings categorical, flags boolean."""
    data = {}
    for c in cols:
        v = [r.get(c) for r in rows]
        dt = _DTYPES.get(c, 'object')
        # a fault's frame (version 8) is missing from some faults, always
        missing = c in _SOMETIMES or any(x is None for x in v)
        if dt in ('int64', 'uint64'):
            dt = dt.capitalize().replace('Uint', 'UInt') if missing else dt
        elif dt == 'boolean':
            v = [bool(x) for x in v]
        data[c] = pd.Series(pd.array(v, dtype=dt if dt != 'category' else 'object'),
                            name=c)
        if dt == 'category':
            data[c] = data[c].astype('category')
    return pd.DataFrame(data, columns=cols)


def read_trace(source, types=('fault',), chunksize=None):
    """The records of @types (a tuple of record types; None: every type)
    of the trace @source as a pandas DataFrame, a row each: the keys of
    records() as columns, typed (times, ids and counts int64, addresses
    uint64, strings categorical, flags boolean; a key some of the records
    lack gives a nullable integer column, never float64), 'type' first,
    'pid' in a tree file, and for
    faults and change records ('move', 'evict', 'split', 'collapse',
    'mapped'; version 9) 'region': the name of the region that held the
    address when it happened ('[anon]' for one without a name, '' for none), found by
    bisection; for file references ('cache', version 7) 'path': their
    file's, from its 'file' record. An empty trace gives an empty frame with those columns and
    types. With @chunksize, an iterator of frames of at most that many
    rows each, for traces larger than memory (as pandas.read_csv). Needs
    pandas (Debian: python3-pandas)."""
    import pandas as pd

    info = {}
    it = records(source, info)
    if chunksize is not None:
        if int(chunksize) < 1:
            raise ValueError('chunksize: a positive number of rows')
        return _chunks(pd, it, info, types, int(chunksize))
    rows = list(_rows(it, types))
    return _frame(pd, rows, _columns(types, info.get('tree')))


def _rows(it, types):
    spaces, paths = {}, {}
    for r in it:
        pid = r.get('pid', 0)
        space = spaces.get(pid)
        if space is None:
            space = spaces[pid] = _Space()
        space.apply(r)
        if r['type'] == 'file':
            paths[pid, r['id']] = r['path']
        if types is not None and r['type'] not in types:
            continue
        if r['type'] == 'fault' or r['type'] in CHANGES:
            r['region'] = space.name_at(r['address'])
        elif r['type'] == 'cache':
            r['path'] = paths.get((pid, r['file']), '')
        yield r


def _chunks(pd, it, info, types, n):
    rows, cols = [], None
    for r in _rows(it, types):
        if cols is None:
            cols = _columns(types, info.get('tree'))
        rows.append(r)
        if len(rows) == n:
            yield _frame(pd, rows, cols)
            rows = []
    if rows or cols is None:
        yield _frame(pd, rows, cols or _columns(types, info.get('tree')))


def dataframe(source, types=('fault',)):
    """read_trace(), the name it had."""
    return read_trace(source, types)
