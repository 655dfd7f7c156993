# SPDX-License-Identifier: GPL-2.0
"""An oracle for pgfreport symbols, from binutils' readelf rather than
libelf: a trace's faults counted per (file, symbol) as the command says it
counts them (the innermost sized FUNC or OBJECT symbol of .symtab, else
of the build-id debug file, else of .dynsym, covering the fault's file
offset turned into a link-time address by the file's PT_LOAD headers), by
a replay of the trace's region records of its own."""
import collections
import functools
import os
import subprocess

COUNTED = ('minor', 'major', 'reref')


def readelf(*args):
    p = subprocess.run(['readelf', '-W', *args], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True, timeout=120)
    return p.stdout if p.returncode == 0 else None


def symbols(path, table):
    """The sized FUNC and OBJECT symbols of @path's @table ('.symtab',
    '.dynsym'): [(value, size, name)], or None without that table."""
    out = readelf('-s', path)
    if out is None:
        return None
    syms, cur, seen = [], None, False
    for line in out.splitlines():
        if line.startswith('Symbol table '):
            cur = line.split("'")[1]
            seen |= cur == table
            continue
        w = line.split()
        if cur != table or len(w) < 8 or not w[0][:-1].isdigit():
            continue
        value, size, typ, ndx, name = w[1], w[2], w[3], w[6], w[7]
        size = int(size, 0)
        if typ not in ('FUNC', 'OBJECT') or ndx == 'UND' or not size:
            continue
        syms.append((int(value, 16), size, name.split('@')[0]))
    return syms if seen else None


@functools.lru_cache(maxsize=None)
def elf(path):
    """(PT_LOAD segments [(offset, vaddr, size in the file's pages)],
    symbols), or None."""
    out = readelf('-l', path)
    if out is None:
        return None
    segs = []
    for line in out.splitlines():
        w = line.split()
        if w and w[0] == 'LOAD':
            # the file's part and the rest of its last page (where .bss starts)
            off, va, filesz, memsz = (int(w[1], 16), int(w[2], 16),
                                      int(w[4], 16), int(w[5], 16))
            page_end = (off + filesz + 4095) & ~4095
            segs.append((off, va, min(memsz, page_end - off)))
    syms = symbols(path, '.symtab')
    if syms is None:
        notes = readelf('-n', path) or ''
        bid = [l.split()[-1] for l in notes.splitlines() if 'Build ID:' in l]
        dbg = (f'/usr/lib/debug/.build-id/{bid[0][:2]}/{bid[0][2:]}.debug'
               if bid else None)
        if dbg and os.path.exists(dbg):
            syms = symbols(dbg, '.symtab')
    if syms is None:
        syms = symbols(path, '.dynsym')
    return segs, syms or []


def symbol_at(path, off):
    """The name of the symbol at file offset @off of @path, or None."""
    info = elf(path)
    if info is None:
        return None
    segs, syms = info
    va = [v + off - o for o, v, n in segs if o <= off < o + n]
    if not va:
        return None
    va = va[0]
    cover = [(a, s, n) for a, s, n in syms if a <= va < a + s]
    if not cover:
        return None
    # innermost: the highest start, then the smallest size, then the name
    return min(cover, key=lambda c: (-c[0], c[1], c[2]))[2]


def replay(lines, pid=None):
    """Yield (fault words, regions) for each fault of the trace (of
    process @pid in a tree file): regions is {id: (start, end, offset,
    name)} as the trace's records say when the fault happened."""
    regions, cur = {}, None
    for line in lines:
        w = line.split()
        if not w:
            continue
        if w[0] == 'pid':
            cur = int(w[1])
            continue
        if pid is not None and cur != pid:
            continue
        if w[0] in ('layout', 'exec'):
            regions = {}
        elif w[0] in ('map', 'change'):
            regions[int(w[2])] = (int(w[3], 16), int(w[4], 16), int(w[6], 16),
                                  ' '.join(w[9:]))
        elif w[0] == 'unmap':
            regions.pop(int(w[2]), None)
        elif w[0] == 'fault':
            yield w, regions


def count(lines, pid=None, by='ip', page_size=4096):
    """{(file or name, symbol): faults}, as pgfreport symbols counts."""
    c = collections.Counter()
    for w, regions in replay(lines, pid):
        if w[6] not in COUNTED:
            continue
        a = int(w[7] if by == 'ip' else w[3], 16)
        g = [r for r in regions.values() if r[0] <= a < r[1]]
        if not g:
            c[('[unknown]', '[unknown]')] += 1
            continue
        start, end, offset, name = g[0]
        if not name.startswith('/'):
            name = name or '[anon]'
            c[(name, name)] += 1
            continue
        off = offset + a - start
        sym = symbol_at(name, off)
        if sym is None:
            sym = hex(off if by == 'ip' else off & ~(page_size - 1))
        c[(name, sym)] += 1
    return c


def pgfreport_rows(out):
    """{(file base name, symbol): faults} of pgfreport symbols' output."""
    rows = {}
    for line in out.splitlines():
        if line.startswith('#'):
            continue
        w = line.split()
        rows[(w[4], ' '.join(w[5:]))] = int(w[0])
    return rows


def by_base(counts):
    """@counts keyed by the file's base name, as pgfreport prints it."""
    out = collections.Counter()
    for (f, s), n in counts.items():
        out[(os.path.basename(f), s)] += n
    return dict(out)
