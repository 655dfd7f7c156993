# SPDX-License-Identifier: GPL-2.0
"""pgfreport symbols against an oracle (tests/host/symlib.py: binutils'
readelf, not libelf): programs compiled here (PIE, with their symbols,
stripped, stripped but exporting them) and the host's libc, mapped in a
hand-made trace as the loader maps them; each fault counted for the
function containing its IP or the object containing its address, or the
file offset where there is no symbol."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main, Skip  # noqa: E402
import symlib as symoracle  # noqa: E402
from tracelib import ended  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
BIN = os.path.join(TOP, 'build', 'host', 'bin')
BASE = 0x555555554000
LIBC_BASE = 0x7ffff7d00000

SRC = r'''
#include <string.h>
int table[64 * 1024] = { 1 };		/* .data: 256 KiB, file-backed */
static char other_data[8192] = { 2 };
int bss_small;				/* .bss: in the last page of .data's */
__attribute__((noinline)) void toucher(int n)
{
	for (int i = 0; i < n; i += 1024)
		table[i] = i;
}
__attribute__((noinline)) static int helper(int x)
{
	return other_data[x] + x;
}
int main(int argc, char **argv)
{
	(void)argv;
	toucher(argc * 1000);
	bss_small = argc;
	return helper(argc);
}
'''


def sh(*argv):
    subprocess.run(argv, check=True, timeout=120)


def build(d):
    """prog (symbols), prog.stripped, prog.exported (stripped, -rdynamic)."""
    src = os.path.join(d, 'prog.c')
    with open(src, 'w') as f:
        f.write(SRC)
    prog = os.path.join(d, 'prog')
    sh('gcc', '-O1', '-fPIE', '-pie', '-o', prog, src)
    sh('gcc', '-O1', '-fPIE', '-pie', '-s', '-o', prog + '.stripped', src)
    sh('gcc', '-O1', '-fPIE', '-pie', '-rdynamic', '-o', prog + '.exported', src)
    sh('strip', '--strip-all', prog + '.exported')
    return prog


def maps(path, base, first_id):
    """Map records for @path's PT_LOAD segments at @base, as the loader
    maps them (page-aligned, from the segment's page of the file)."""
    segs, _ = symoracle.elf(path)
    out = []
    for i, (off, va, filesz) in enumerate(segs):
        start = base + (va & ~0xfff)
        end = base + ((va + filesz + 0xfff) & ~0xfff)
        out.append(f'map 1000 {first_id + i} {start:x} {end:x} r-xp '
                   f'{off & ~0xfff:x} 08:01 {100 + first_id + i} {path}')
    return out


def nm_addr(path, name):
    """The value of symbol @name in @path (nm, an oracle of its own)."""
    out = subprocess.run(['nm', '--defined-only', path], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    for line in out.splitlines():
        w = line.split()
        if len(w) == 3 and w[2] == name:
            return int(w[0], 16)
    raise AssertionError(f'{name} not in {path}')


def trace(prog_path, faults, extra_maps=()):
    """A trace mapping @prog_path at BASE (and @extra_maps), with @faults
    [(ip, addr)] at 1 us apart."""
    lines = ['pgfault_history 6 pid 1 page_size 4096', 'start 1000']
    m = maps(prog_path, BASE, 1) + list(extra_maps) + \
        ['map 1000 90 10000000 10010000 rw-p 0 00:00 0 [heap]']
    lines.append(f'layout 1000 {len(m)}')
    lines += m
    for i, (ip, addr) in enumerate(faults):
        lines.append(f'fault {2000 + i * 1000} 1 {addr:x} r user minor {ip:x}')
    return '\n'.join(lines) + '\n'


def symbols(text, *args):
    with tempfile.NamedTemporaryFile('w', suffix='.trace') as f:
        f.write(ended(text))
        f.flush()
        p = subprocess.run([os.path.join(BIN, 'pgfreport'), 'symbols', '-n', '0',
                            *args, f.name], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=120)
    assert p.returncode == 0, (args, p.returncode, p.stderr)
    return symoracle.pgfreport_rows(p.stdout)


def check(text, want_by_ip, want_by_addr):
    """pgfreport's rows against the oracle's and against what the test
    says by hand (a subset: {(base name, symbol): faults})."""
    lines = text.splitlines()
    for by, want in (('ip', want_by_ip), ('addr', want_by_addr)):
        got = symbols(text, '--by', by)
        oracle = symoracle.by_base(symoracle.count(lines, by=by))
        assert got == oracle, (by, 'pgfreport', got, 'oracle', oracle)
        for k, n in want.items():
            assert got.get(k) == n, (by, k, n, got)


@test
def a_pie_with_symbols_names_functions_and_objects():
    with tempfile.TemporaryDirectory() as d:
        prog = build(d)
        toucher, main_, table = (nm_addr(prog, n) for n in
                                 ('toucher', 'main', 'table'))
        faults = [(BASE + toucher + 4, BASE + table + 4096 * k) for k in range(5)]
        # the start of .bss shares the last page of the data segment's file
        # part: a fault there is named too
        bss = nm_addr(prog, 'bss_small')
        faults += [(BASE + main_ + 3, BASE + bss)]
        faults += [(BASE + main_ + 1, BASE + main_ + 1),
                   (BASE + main_ + 2, 0x10000040),          # heap
                   (0x1234, 0x20000000)]                     # no region
        check(trace(prog, faults),
              {('prog', 'toucher'): 5, ('prog', 'main'): 3,
               ('[unknown]', '[unknown]'): 1},
              {('prog', 'table'): 5, ('prog', 'main'): 1, ('[heap]', '[heap]'): 1,
               ('prog', 'bss_small'): 1, ('[unknown]', '[unknown]'): 1})


@test
def a_stripped_pie_falls_back_to_offsets_or_what_it_exports():
    with tempfile.TemporaryDirectory() as d:
        prog = build(d)
        toucher, table = nm_addr(prog, 'toucher'), nm_addr(prog, 'table')
        faults = [(BASE + toucher + 4, BASE + table + 4096 * 3 + 8)] * 3
        # the same code and data: the stripped build is the same but for
        # its symbols (same gcc, same flags)
        stripped = prog + '.stripped'
        assert not symoracle.elf(stripped)[1]
        got = symbols(trace(stripped, faults))
        assert all(sym.startswith('0x') for _, sym in got), got
        assert sum(got.values()) == 3, got
        check(trace(stripped, faults), {}, {})
        exported = prog + '.exported'
        check(trace(exported, faults), {('prog.exported', 'toucher'): 3},
              {('prog.exported', 'table'): 3})


@test
def the_hosts_libc_is_named_by_its_symbols_and_aliases_resolve_alike():
    """libc's .dynsym, or the full .symtab of its debug file (libc6-dbg)
    if the host has it: either way the name found is one of the aliases
    at the function's address (qsort, __GI_qsort, ...), the oracle's."""
    libc = '/lib/x86_64-linux-gnu/libc.so.6'
    if not os.path.exists(libc):
        raise Skip(f'no {libc}')
    segs, syms = symoracle.elf(libc)
    funcs = sorted({(a, s) for a, s, n in syms if n in ('qsort', 'getenv', 'fopen')})
    assert len(funcs) == 3, funcs
    with tempfile.TemporaryDirectory() as d:
        prog = build(d)
        faults = [(LIBC_BASE + a + s // 2, 0x10000000) for a, s in funcs]
        text = trace(prog, faults, maps(libc, LIBC_BASE, 50))
        check(text, {}, {})
        got = symbols(text)
        for a, s in funcs:
            aliases = {n for x, y, n in syms if (x, y) == (a, s)}
            assert sum(n for (f, sym), n in got.items()
                       if f == 'libc.so.6' and sym in aliases) == 1, \
                (aliases, got)


@test
def hot_sym_names_the_symbol_at_each_hot_page():
    with tempfile.TemporaryDirectory() as d:
        prog = build(d)
        table = nm_addr(prog, 'table')
        # page k of table faults k + 1 times (k = 1, 2, 3)
        pages = [(BASE + table + 4096 * k) & ~0xfff for k in (1, 2, 3)]
        faults = [(0x1234, p) for k, p in enumerate(pages) for _ in range(k + 2)]
        with tempfile.NamedTemporaryFile('w', suffix='.trace') as f:
            f.write(ended(trace(prog, faults)))
            f.flush()
            p = subprocess.run([os.path.join(BIN, 'pgfreport'), 'hot', '--sym',
                                '-n', '3', f.name], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        rows = [r.split() for r in p.stdout.splitlines() if not r.startswith('#')]
        got = [(int(r[1], 16), r[6]) for r in rows]
        want = [(pg, f'table+{pg - BASE - table:#x}') for pg in reversed(pages)]
        assert got == want, (got, want)


@test
def a_device_or_fifo_a_trace_names_is_not_read():
    """A trace names another machine's paths: a FIFO or a device here is
    not opened to read (a FIFO would block), its faults go by offset."""
    with tempfile.TemporaryDirectory() as d:
        fifo = os.path.join(d, 'fifo')
        os.mkfifo(fifo)
        text = '\n'.join(['pgfault_history 6 pid 1 page_size 4096', 'start 1000',
                          'layout 1000 2',
                          f'map 1000 1 400000 401000 r-xp 0 08:01 5 {fifo}',
                          'map 1000 2 500000 501000 r-xp 0 00:05 6 /dev/zero',
                          'fault 2000 1 400000 r user minor 400010',
                          'fault 3000 1 500000 r user minor 500020']) + '\n'
        got = symbols(text)
        assert got == {('fifo', '0x10'): 1, ('zero', '0x20'): 1}, got


@test
def bad_by_is_refused():
    p = subprocess.run([os.path.join(BIN, 'pgfreport'), 'symbols', '--by', 'sym',
                        '/dev/null'], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout == '', p
    assert "pgfreport symbols: --by: 'sym' is not 'ip' or 'addr'" in p.stderr, \
        p.stderr


main()
