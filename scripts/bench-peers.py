#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-peers: pgfault_history beside what people trace page faults
with instead, on the same workloads, in the same boot.

Boots the x86_64 benchmark kernel (BPF, BTF, perf events and the syscall
tracepoints in its config: kernel-config/peers.config) on the host's root
filesystem, as pgfault-run does, and runs uml-rootfs/run-peers there: the
workload tests/bench/peerload (fault storms of PAGES pages - anonymous
writes, zero-page reads, reads of a file in the page cache -, a storm of
LOSS zero-page faults for what each tracer loses with its default buffers,
and mmap+munmap pairs, mprotect split+merge pairs and forks at each VMA
count) five ways, each tool started as it starts any command, all of it
on CPU 0:
  none         untraced;
  pgfault      tracepgfault -q -o TRACE (our trace, its default buffer);
  perf-record  perf record -e page-faults -c 1 -d (every fault, with its
               address; MMAP2 records for the mappings);
  perf-trace   perf trace --syscalls -F all (every system call and every
               fault: -F alone leaves the system calls out);
  bpftrace     a bpftrace program on exceptions:page_fault_user (thread,
               time, address, instruction pointer, error code) and on the
               mmap, munmap, mprotect and brk system calls, to its output
               file (perf buffers).
The host's perf (Debian's linux-perf) and bpftrace run in the guest from
the host's root: make bench-peers installs them.

Two boots: one under -icount (guest time = instructions executed: the
figures that hold still), one on plain TCG (wall time, a second column
that wanders with the host). For each workload and tool: the cost per
page or pair (the workload's own loop, with each tool's reader sharing its
CPU), against untraced; the events recorded (a fault each) and lost; and
what the trace tells of the regions at the end, checked against the
workload's own /proc/self/maps: ours replayed (tests/bench/growbench
--replay), perf record's MMAP2 records, bpftrace's system calls replayed
page by page. The report goes to build/bench/peers.md and, as JSON, to
build/bench/peers.json (Documentation/benchmarks.md, make bench-doc).

  bench-peers.py [--pages N] [--loss N] [--pairs N] [--vmas V,...]
                 [--no-wall] [--timeout S]
"""
import argparse
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402
import bench  # noqa: E402
import benchjson  # noqa: E402

TOOLS = ['none', 'pgfault', 'perf-record', 'perf-trace', 'bpftrace']


def read(d, name, ext):
    try:
        with open(os.path.join(d, f'{name}.{ext}'), errors='replace') as f:
            return f.read()
    except OSError:
        return None


def maps_regions(text):
    """The regions of a maps text: [(start, end, 'rwx')]."""
    out = []
    for line in (text or '').splitlines():
        m = re.match(r'([0-9a-f]+)-([0-9a-f]+) ([r-])([w-])([x-])', line)
        if m:
            out.append((int(m[1], 16), int(m[2], 16), m[3] + m[4] + m[5]))
    return out


def perms(prot):
    return ('r' if prot & 1 else '-') + ('w' if prot & 2 else '-') + \
        ('x' if prot & 4 else '-')


def coalesce(pages):
    """Pages {page: perms} -> regions, adjacent pages of the same perms
    joined (what the kernel's merges would mostly give)."""
    out = []
    for p in sorted(pages):
        if out and out[-1][1] == p and out[-1][2] == pages[p]:
            out[-1][1] = p + 4096
        else:
            out.append([p, p + 4096, pages[p]])
    return [tuple(r) for r in out]


def perf_regions(script):
    """perf script --show-mmap-events: the MMAP2 records' mappings, later
    ones over earlier ones, page by page."""
    pages = {}
    for line in (script or '').splitlines():
        m = re.search(r'PERF_RECORD_MMAP2? \d+/\d+: \[0x([0-9a-f]+)\((0x[0-9a-f]+)\).*\]: ([r-])([w-])([x-])', line)
        if not m:
            continue
        start, length = int(m[1], 16), int(m[2], 16)
        for p in range(start, start + length, 4096):
            pages[p] = m[3] + m[4] + m[5]
    return pages


def replay(calls):
    """System calls replayed page by page: ('mmap', ret, len, prot),
    ('munmap', addr, len), ('mprotect', addr, len, prot), ('brk', ret):
    mmap maps, munmap unmaps, mprotect changes, brk moves the heap's end.
    Returns {page: perms}."""
    pages, heap0, heap = {}, None, None

    def span(addr, length):
        return range(addr, addr + length + 4095 & ~4095, 4096)
    for c in calls:
        if c[0] == 'mmap' and 0 < c[1] < 1 << 63:
            for p in span(c[1], c[2]):
                pages[p] = perms(c[3])
        elif c[0] == 'munmap':
            for p in span(c[1], c[2]):
                pages.pop(p, None)
        elif c[0] == 'mprotect':
            for p in span(c[1], c[2]):
                if p in pages:
                    pages[p] = perms(c[3])
        elif c[0] == 'brk' and 0 < c[1] < 1 << 63:
            if heap0 is None:
                heap0 = heap = c[1]
            for p in range(heap0, max(heap, c[1]) + 4095 & ~4095, 4096):
                if p >= c[1]:
                    pages.pop(p, None)
                else:
                    pages[p] = 'rw-'
            heap = c[1]
    return pages


def bt_calls(text):
    """The system calls of the bpftrace program's output."""
    calls = []
    for line in (text or '').splitlines():
        w = line.split()
        try:
            if w and w[0] == 'M' and len(w) >= 6:
                calls.append(('mmap', int(w[3], 16), int(w[4], 16), int(w[5])))
            elif w and w[0] == 'U' and len(w) >= 5:
                calls.append(('munmap', int(w[3], 16), int(w[4], 16)))
            elif w and w[0] == 'P' and len(w) >= 6:
                calls.append(('mprotect', int(w[3], 16), int(w[4], 16), int(w[5])))
            elif w and w[0] == 'B' and len(w) >= 4:
                calls.append(('brk', int(w[3], 16)))
        except ValueError:
            continue
    return calls


PROT = {'READ': 1, 'WRITE': 2, 'EXEC': 4}


def ptrace_calls(text):
    """The system calls of perf trace's text: name(arg: value, ...) = ret;
    perf trace leaves out the arguments that are 0 (prot: NONE)."""
    calls = []
    for line in (text or '').splitlines():
        m = re.search(r' (mmap|munmap|mprotect|brk)\((.*)\)\s+= (0x[0-9a-f]+|-?\d+)', line)
        if not m:
            continue
        args = dict(re.findall(r'(\w+): ([^,]+)', m[2]))
        ret = int(m[3], 0)
        prot = sum(PROT.get(x, 0) for x in args.get('prot', '').split('|'))
        try:
            if m[1] == 'mmap':
                calls.append(('mmap', ret, int(args.get('len', '0'), 0), prot))
            elif m[1] == 'munmap' and ret == 0:
                calls.append(('munmap', int(args.get('addr', '0'), 0),
                              int(args.get('len', '0'), 0)))
            elif m[1] == 'mprotect' and ret == 0:
                calls.append(('mprotect', int(args.get('start', '0'), 0),
                              int(args.get('len', '0'), 0), prot))
            elif m[1] == 'brk':
                calls.append(('brk', ret))
        except ValueError:
            continue
    return calls


def matched(regions, final):
    """How many of the final maps' regions the trace tells exactly."""
    have = set(regions)
    return sum(1 for r in final if r in have)


def analyse(d, name, tool):
    """One run: {ns, faults, events, lost, regions, layout}."""
    r = {'tool': tool}
    out = read(d, name, 'out') or ''
    for n, kv in bench.results(out):
        if n == 'peer':
            r['ns'] = kv['ns']
            r['faults'] = kv.get('faults')
    r['status'] = (read(d, name, 'status') or '?').strip()
    final = maps_regions(read(d, name, 'maps'))
    r['maps'] = len(final)
    if tool == 'pgfault':
        trace = read(d, name, 'trace') or ''
        r['events'] = sum(1 for line in trace.splitlines()
                          if line.startswith('fault '))
        r['lost'] = sum(int(w[1]) + int(w[2]) for w in
                        (line.split() for line in trace.splitlines()
                         if line.startswith('lost '))
                        if len(w) >= 3 and w[1].isdigit() and w[2].isdigit())
        rep = read(d, name, 'replay') or ''
        m = re.search(r'(\d+) regions at the end', rep)
        if '= maps' in rep:
            r['layout'] = f'{len(final)} of {len(final)} (replayed = maps)'
        elif 'owes the layout' in rep and m:
            r['layout'] = (f'{m[1]} of {len(final)}: owes the layout, the '
                           'rest counted lost')
        else:
            r['layout'] = f'NOT maps: {rep.strip()[:80]}'

    elif tool == 'perf-record':
        stats = read(d, name, 'stats') or ''
        m = re.search(r'SAMPLE events:\s+(\d+)', stats)
        r['events'] = int(m[1]) if m else None
        r['lost'] = sum(int(x) for x in
                        re.findall(r'LOST(?:_SAMPLES)? events:\s+(\d+)', stats))
        got = matched(coalesce(perf_regions(read(d, name, 'script'))), final)
        r['layout'] = f'{got} of {len(final)} (mmap records only)'
    elif tool == 'perf-trace':
        text = read(d, name, 'ptrace') or ''
        r['events'] = len(re.findall(r' (?:min|maj)fault ', text))
        r['lost'] = sum(int(x) for x in re.findall(r'LOST (\d+) events', text))
        got = matched(coalesce(replay(ptrace_calls(text))), final)
        r['layout'] = f'{got} of {len(final)} (system calls replayed)'
    elif tool == 'bpftrace':
        text = read(d, name, 'bt') or ''
        err = (read(d, name, 'err') or '') + text
        r['events'] = sum(1 for line in text.splitlines()
                          if line.startswith('F '))
        r['lost'] = sum(int(x) for x in re.findall(r'Lost (\d+) events', err))
        got = matched(coalesce(replay(bt_calls(text))), final)
        r['layout'] = f'{got} of {len(final)} (system calls replayed)'
    return r


def boot(a, icount):
    guest.ICOUNT = icount
    cmd = (f'/usr/lib/pgfault/run-peers {a.pages} {a.loss} {a.pairs} '
           f'{" ".join(str(v) for v in a.vmas)} > /job/bench.out 2>&1; '
           's=$?; cat /job/bench.out; exit $s')
    job = guest.new_job('run', cmd=cmd + '\n')
    kernel = os.path.join(guest.BUILD, bench.KERNELS[('x86_64', 'patched')])
    # The host's root read-only to the guest, as pgfault-run has it.
    view = tempfile.mkdtemp(prefix='pgfault-peers-view-')
    prefix = ['unshare', '--mount', '--pid', '--fork', '--kill-child', 'bash',
              os.path.join(os.path.dirname(os.path.abspath(__file__)), 'pgf-sandbox.sh'),
              view, job, '--', 'env', 'HOME=/dev/shm']
    try:
        res = guest.boot(job, share='/', timeout=a.timeout, echo='job', quiet=True,
                         arch='x86_64', kernel=kernel, mem='2048M', prefix=prefix,
                         log_name=f'bench-peers-{"icount" if icount else "wall"}')
    finally:
        os.rmdir(view)
    if res.timed_out or res.status != 0:
        sys.exit(f'bench-peers: status {res.status} in {res.where}; log {res.log}')
    return res, os.path.join(job, 'peers')


def _num(cell):
    try:
        return float(cell)
    except ValueError:
        return None


def behind(rows):
    """The table's note: where a peer is ahead of pgfault_history, from the
    rows themselves: fewer instructions (-icount ratio), or fewer fault
    events lost."""
    by = {}
    for r in rows:
        by.setdefault(r[0], {})[r[1]] = r
    parts = []
    for name, tools in by.items():
        ours = tools.get('pgfault')
        if not ours or _num(ours[3]) is None:
            continue
        what = []
        for tool, r in tools.items():
            if tool in ('none', 'pgfault'):
                continue
            if _num(r[3]) is not None and _num(r[3]) < _num(ours[3]):
                what.append(f'{tool} costs less ({r[3]} against {ours[3]})')
            if (_num(r[6]) is not None and _num(ours[6]) is not None and
                    _num(r[6]) < _num(ours[6])):
                what.append(f'{tool} loses fewer ({r[6]} against {ours[6]})')
        if what:
            parts.append(f'{name}: ' + ', '.join(what))
    if not parts:
        return 'No peer costs fewer instructions or loses fewer events than pgfault_history on any row.'
    return ('Where a peer is ahead of pgfault_history (fewer instructions, or '
            'fewer events lost with the default buffers): ' + '; '.join(parts) +
            '. Regions: perf record tells a region by its MMAP2 record and no '
            'munmap, perf trace and bpftrace only the system calls (no layout at '
            'exec, no merge or split the kernel makes): see the last column.')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--pages', type=int, default=20000)
    ap.add_argument('--loss', type=int, default=1000000)
    ap.add_argument('--pairs', type=int, default=300)
    ap.add_argument('--vmas', default='10,1000,60000')
    ap.add_argument('--no-wall', action='store_true')
    ap.add_argument('--timeout', type=int, default=5400)
    a = ap.parse_args()
    a.vmas = [int(v) for v in a.vmas.split(',')]
    os.makedirs(bench.OUT, exist_ok=True)
    names = [op for op in ('anon', 'zero', 'file')] + ['loss'] + \
        [f'{op}{v}' for v in a.vmas for op in ('mmap', 'split', 'fork')]
    runs = {}
    where = {}
    for icount in ([True] if a.no_wall else [True, False]):
        res, d = boot(a, icount)
        where[icount] = res.where
        for name in names:
            for tool in TOOLS:
                runs[(icount, name, tool)] = analyse(d, f'{name}-{tool}', tool)
    rows, lines = [], []
    for name in names:
        base = runs[(True, name, 'none')]
        wbase = runs.get((False, name, 'none'))
        for tool in TOOLS:
            r = runs[(True, name, tool)]
            w = runs.get((False, name, tool))
            ratio = (f'{r["ns"] / base["ns"]:.2f}' if r.get('ns') and base.get('ns')
                     else 'failed' if r['status'] != '0' else '-')
            wratio = (f'{w["ns"] / wbase["ns"]:.2f}' if w and wbase and w.get('ns')
                      and wbase.get('ns') else '-')
            ev = r.get('events')
            rows.append([name, tool, f'{r["ns"]:.0f}' if r.get('ns') else '-',
                         ratio, wratio,
                         '-' if tool == 'none' else str(ev if ev is not None else '?'),
                         '-' if tool == 'none' else str(r.get('lost', '?')),
                         f'{r["faults"]:.0f}' if r.get('faults') is not None else '-',
                         r.get('layout', '-') if tool != 'none' else f'{r["maps"]} regions in maps'])
            lines.append('\t'.join(rows[-1]))
    head = ['workload', 'tool', 'instructions a page or pair', '÷ untraced',
            '÷ untraced, wall (TCG)', 'fault events', 'lost', 'faults (getrusage)',
            'regions at the end, against maps']
    text = [f'# make bench-peers: {where.get(True)}; wall: {where.get(False, "not run")}',
            '\t'.join(head)] + lines
    print('\n'.join(text))
    with open(os.path.join(bench.OUT, 'peers.md'), 'w') as f:
        f.write('\n'.join(text) + '\n')
    table = {'title': 'The same workloads untraced, under tracepgfault, perf record '
                      '-e page-faults -c 1 -d, perf trace --syscalls -F all and a bpftrace program '
                      '(faults and mmap/munmap/mprotect/brk), x86_64 benchmark kernel '
                      'on QEMU TCG, everything on CPU 0: instructions (-icount) per '
                      f'page ({a.pages} pages; loss: {a.loss} zero-page faults) or '
                      f'pair ({a.pairs} pairs, forks: fewer) of the workload\'s own '
                      'loop, each tool\'s reader sharing its CPU; the same ratio in '
                      'TCG wall time (another boot); the fault events each recorded '
                      'and the events it says it lost, with the default buffers; the '
                      'regions of the last /proc/self/maps its records tell exactly',
             'head': head, 'rows': rows, 'note': behind(rows)}
    path = benchjson.write('peers', 'make bench-peers', [table],
                           what='pgfault_history beside perf and bpftrace')
    print(f'# and {os.path.relpath(path, bench.TOP)}')


if __name__ == '__main__':
    main()
