#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-icount: x86_64 figures that hold still under TCG.

QEMU without KVM runs the guest on TCG, whose wall-clock time wanders
with the host's load: traced / untraced ratios of wall time can differ
several-fold between two boots. With -icount shift=0,sleep=off
(guest.py's PGF_ICOUNT), one nanosecond of guest time is one instruction
executed: the ratios below are of instructions, and two boots agree to a
few percent. Guest time counts the instructions of every CPU, so a
reader draining the trace during a timed loop adds its own, and under
sleep=off a CPU left idle while another works lets the clock jump when
both are: so the readers of vmabench and faultbench read after the timed
loops (-d), and each benchmark, its children and its reader share CPU 0
(-c 0). A reader held back must not lose records (a lost one costs less
than one kept): faultbench touches 800 pages, which the trace's first
CPU ring holds (about 1,000 records), and -b 16384 lets it grow. The
traced process's own cost, then; make bench's wall-clock figures keep
the reader running.

Boots the x86_64 benchmark kernel BOOTS times (default 2), runs faultbench
(off, traced - by root, whose fault records carry their frames -,
noframes - traced through files opened without CAP_SYS_ADMIN, whose do
not - and key - untraced while another process is traced: the static
key on -, anon, zero-page and file faults, P pages, R repetitions, its
reader held back, -d, on CPU 0, -c 0), vmabench
(mmap+munmap pairs, splits and forks at 10 and 1,000 VMAs, untraced,
key and traced, R + 2 repetitions, its reader held back until the timed
loops are done, -d, and all of it on CPU 0, -c 0)
recbench (the record path, and an ftrace event of the
same size in the same loop) and readbench (pread() of a cached 4 KiB page
and of 1 MiB on a ramfs, filemap_read()'s path: untraced, untraced with
the static key on, traced without and with "files", its reader held
back, -d: 600 reads of 4 KiB, whose records a CPU's first ring holds)
in each, readbench untraced in a boot of the benchmark kernel
built without the series (compiled in and not used against not there),
migbench (200 pages moved to node 1 and back by move_pages(2), untraced
and traced by root, whose "move" records carry frames; reader held
back, -d, and the trace's first ring holds their 400 records) in a boot
of the benchmark kernel with two NUMA nodes, and untraced in a two-node
boot of the kernel without the series,
and prints each boot's ratios
traced / untraced, of the fewest instructions of the repetitions (under
icount a disturbance - an interrupt, the reader running, a deferred
static key's text patching - only adds some), the record path's
instructions a record, and the spread between boots. The report and raw
output go to build/bench/icount.md, the figures as JSON to
build/bench/icount.json (and icount-COMMIT.json; scripts/benchjson.py).

  bench-icount.py [--boots N] [--pages P] [--reps R] [--reads N] [--timeout S]
"""
import argparse
import os
import re
import sys

os.environ['PGF_ICOUNT'] = '1'
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402
import bench  # noqa: E402
import benchjson  # noqa: E402


def two_nodes(a, cmd, kernel, name, arch):
    """Run @cmd in a boot of @kernel (of @arch) with two NUMA nodes; its
    output (kept in build/bench/icount-NAME.out). Exits if the boot fails."""
    job = guest.new_job('run', cmd=cmd + '\n')
    guest.NODES = 2
    try:
        res = guest.boot(job, share=None, timeout=a.timeout, echo='job',
                         quiet=True, arch=arch, kernel=kernel, mem='1536M',
                         log_name=f'bench-icount-{name}')
    finally:
        guest.NODES = 1
    text = res.read('bench.out') or ''
    with open(os.path.join(bench.OUT, f'icount-{name}.out'), 'w') as f:
        f.write(f'# {res.where}, {res.elapsed:.0f}s\n' + text)
    if res.timed_out or res.status != 0 or 'icount' not in res.where:
        sys.exit(f'bench-icount: {name} (two nodes): status {res.status} in '
                 f'{res.where}; log {res.log}')
    return text


def measure(a, arch):
    """@arch's boots: (each boot's figures, a line a boot, losses)."""
    kernel = os.path.join(guest.BUILD, bench.KERNELS[(arch, 'patched')])
    # arm64 has no benchmark kernel without the series: its figures are
    # the patched kernel's own (traced, key, against untraced).
    vanilla = (arch, 'vanilla') in bench.KERNELS
    tag = '' if arch == 'x86_64' else f'{arch}-'
    b = '/usr/lib/pgfault/bench'
    cmd = (f'{b}/faultbench -d -c 0 -b 16384 -p {a.pages} -r {a.reps} -m off,traced,noframes,key -k anon,zero,file '
           f'> /job/bench.out 2>&1 && {b}/vmabench -d -c 0 -v 10,1000 -r {a.reps + 2} >> /job/bench.out 2>&1 '
           f'&& {b}/recbench -r 3 >> /job/bench.out 2>&1 '
           f'&& {b}/readbench -d -c 0 -b 16384 -r {a.reps} -n {a.reads} >> /job/bench.out 2>&1; '
           's=$?; cat /job/bench.out; exit $s')
    vcmd = (f'{b}/readbench -d -c 0 -r {a.reps} -n {a.reads} -m off > /job/bench.out 2>&1; '
            's=$?; cat /job/bench.out; exit $s')
    mcmd = (f'{b}/migbench -d -c 0 -b 16384 -p 200 -r {a.reps} > /job/bench.out 2>&1; '
            's=$?; cat /job/bench.out; exit $s')
    vkernel = vanilla and os.path.join(guest.BUILD, bench.KERNELS[(arch, 'vanilla')])
    ratios, lines, losses = [], [], []
    for n in range(a.boots):
        # the kernel without the series first, then the patched one, in
        # each round: a read's instructions, compiled in and not used
        vread = {}
        if vanilla:
            vjob = guest.new_job('run', cmd=vcmd + '\n')
            vres = guest.boot(vjob, share=None, timeout=a.timeout, echo='job',
                              quiet=True, arch=arch, kernel=vkernel, mem='1536M',
                              log_name=f'bench-icount-{tag}vanilla-{n}')
            vtext = vres.read('bench.out') or ''
            with open(os.path.join(bench.OUT, f'icount-{tag}vanilla-{n}.out'), 'w') as f:
                f.write(f'# {vres.where}, {vres.elapsed:.0f}s\n' + vtext)
            if vres.timed_out or vres.status != 0 or 'icount' not in vres.where:
                sys.exit(f'bench-icount: {arch} boot {n} (vanilla): status {vres.status} in '
                         f'{vres.where}; log {vres.log}')
            vread = {kv['size_kb']: kv['min'] for name, kv in bench.results(vtext)
                     if name == 'read'}
        jobdir = guest.new_job('run', cmd=cmd + '\n')
        res = guest.boot(jobdir, share=None, timeout=a.timeout, echo='job',
                         quiet=True, arch=arch, kernel=kernel, mem='1536M',
                         log_name=f'bench-icount-{tag}{n}')
        text = res.read('bench.out') or ''
        with open(os.path.join(bench.OUT, f'icount-{tag}{n}.out'), 'w') as f:
            f.write(f'# {res.where}, {res.elapsed:.0f}s\n' + text)
        if res.timed_out or res.status != 0 or 'icount' not in res.where:
            sys.exit(f'bench-icount: {arch} boot {n}: status {res.status} in '
                     f'{res.where}; log {res.log}')
        by = {}
        got = {}
        reads = {}
        for name, kv in bench.results(text):
            # The fewest instructions of the repetitions: under icount
            # a disturbance (an interrupt, the reader running, a
            # deferred static key's text patching) only adds some.
            if 'kind' in kv and 'mode' in kv:
                by[(kv['kind'], kv['mode'])] = kv.get('min') or kv['ns']
                if kv['mode'] in ('traced', 'noframes') and kv.get('lost'):
                    losses.append(f'# boot {n + 1}: faultbench lost {kv["lost"]:.0f} '
                                  f'{kv["kind"]} fault records ({kv["mode"]}, median of the reps): '
                                  'its traced figure leaves out their cost')
            if name == 'vma' and kv.get('lost'):
                losses.append(f'# boot {n + 1}: vmabench lost {kv["lost"]:.0f} records '
                              f'({kv["op"]} at {kv["vmas"]:.0f} VMAs)')
            if name in ('recpath', 'ftrace_loop') and kv.get('min'):
                got[f'{name} (instructions)'] = kv['min']
            if name == 'vma' and kv.get('off_min_us'):
                got[f'vma {kv["op"]} at {kv["vmas"]:.0f}'] = \
                    kv['traced_min_us'] / kv['off_min_us']
                if kv.get('key_min_us'):
                    got[f'vma {kv["op"]} at {kv["vmas"]:.0f}, key / untraced'] = \
                        kv['key_min_us'] / kv['off_min_us']
            if name == 'read':
                reads[(kv['size_kb'], kv['mode'])] = kv['min']
                if kv.get('lost'):
                    losses.append(f'# boot {n + 1}: readbench lost {kv["lost"]:.0f} '
                                  f'cache records ({kv["size_kb"]:.0f} KiB reads)')
        for kind in ('anon', 'zero', 'file'):
            if (kind, 'off') in by and (kind, 'traced') in by:
                got[kind] = by[(kind, 'traced')] / by[(kind, 'off')]
            if (kind, 'off') in by and (kind, 'key') in by:
                got[f'{kind}, key / untraced'] = by[(kind, 'key')] / by[(kind, 'off')]
            if (kind, 'off') in by and (kind, 'noframes') in by:
                got[f'{kind}, without frames'] = by[(kind, 'noframes')] / by[(kind, 'off')]
            if (kind, 'traced') in by and (kind, 'noframes') in by:
                got[f'{kind}, with frames / without'] = \
                    by[(kind, 'traced')] / by[(kind, 'noframes')]
        for kb in sorted({k for k, _ in reads}):
            size = f'{kb:.0f} KiB' if kb < 1024 else f'{kb / 1024:.0f} MiB'
            off = reads.get((kb, 'off'))
            if off and kb in vread:
                got[f'read {size}, untraced / without the series'] = off / vread[kb]
            for m in ('key', 'faults', 'files'):
                if off and (kb, m) in reads:
                    got[f'read {size}, {m} / untraced'] = reads[(kb, m)] / off
            if (kb, 'files') in reads:
                got[f'read {size} traced with files (instructions)'] = reads[(kb, 'files')]
        # migbench in boots with two nodes: a page migrated, traced (move
        # records, with frames) / untraced, and untraced in the kernel
        # without the series
        mtext = two_nodes(a, mcmd, kernel, f'{tag}migrate-{n}', arch)
        mig = {kv['mode']: kv['min'] for name, kv in bench.results(mtext)
               if kv.get('kind') == 'migrate'}
        vmig = []
        if vanilla:
            vmtext = two_nodes(a, mcmd.replace(' -b 16384 -p 200 ', ' -m off -p 200 '),
                               vkernel, f'{tag}migrate-vanilla-{n}', arch)
            vmig = [kv['min'] for name, kv in bench.results(vmtext)
                    if kv.get('kind') == 'migrate' and kv.get('mode') == 'off']
        for kv in (kv for name, kv in bench.results(mtext) if kv.get('lost')):
            losses.append(f'# boot {n + 1}: migbench lost {kv["lost"]:.0f} records')
        if mig.get('off') and mig.get('traced'):
            got['migration of a page'] = mig['traced'] / mig['off']
            got['migration of a page, untraced (instructions)'] = mig['off']
        if mig.get('off') and vmig:
            got['migration of a page, untraced / without the series'] = \
                mig['off'] / vmig[0]
        ratios.append(got)
        lines.append(f'boot {n + 1} ({res.where}, {res.elapsed:.0f} s): ' +
                     ', '.join(f'{k} {v:.3f}' for k, v in got.items()))
    return ratios, lines, losses


def spread(v):
    return f'{100 * (max(v) - min(v)) / min(v):.1f}%'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--arch', default='x86_64,arm64',
                    help='the benchmark kernels to boot: x86_64, arm64 (default both)')
    ap.add_argument('--boots', type=int, default=2)
    ap.add_argument('--pages', type=int, default=800)
    ap.add_argument('--reps', type=int, default=9)
    ap.add_argument('--reads', type=int, default=600)
    ap.add_argument('--timeout', type=int, default=1800)
    a = ap.parse_args()
    arches = [x for x in a.arch.split(',') if x]
    for x in arches:
        if (x, 'patched') not in bench.KERNELS or x == 'um':
            ap.error(f'no benchmark kernel for "{x}": x86_64, arm64')
    os.makedirs(bench.OUT, exist_ok=True)
    got = {x: measure(a, x) for x in arches}
    out = ['# make bench-icount: the benchmark kernels of '
           f'{", ".join(arches)}, faultbench -d -c 0 '
           f'-p {a.pages} -r {a.reps}, guest time = instructions (-icount shift=0)',
           '# What it measures: the instructions the guest executes (QEMU TCG,',
           '# -icount shift=0,sleep=off: guest time advances 1 ns an instruction),',
           '# so each figure is a ratio traced / untraced of instruction counts',
           '# (the fewest of the repetitions: a disturbance only adds some),',
           '# and recpath / ftrace_loop are instructions a record. What it cannot',
           '# measure: cache and TLB misses, memory latency, contention between',
           '# real CPUs, the cost of an instruction; KVM or bare metal tell those.']
    losses = []
    for x in arches:
        ratios, lines, lost = got[x]
        out += [f'{x} {line}' for line in lines]
        losses += [f'# {x} {line[2:]}' for line in lost]
        for kind in ratios[0] if ratios else ():
            v = [r[kind] for r in ratios if kind in r]
            if len(v) > 1:
                out.append(f'{x} {kind}: {min(v):.3f}-{max(v):.3f} over {len(v)} boots '
                           f'(spread {spread(v)})')
    out += losses or ['# no records lost']
    print('\n'.join(out))
    with open(os.path.join(bench.OUT, 'icount.md'), 'w') as f:
        f.write('\n'.join(out) + '\n')

    def fmt(kind, x):
        nd = 1 if kind.endswith('(instructions)') else 3
        return f'{x:.{nd}f}'

    # Side by side: each figure's range over the boots, per architecture;
    # vmabench's rows by the VMAs asked for (-v 10,1000), as each
    # architecture's process starts with a few more of its own.
    def side_key(kind):
        return re.sub(r' at (\d+)',
                      lambda m: ' at ~10' if int(m.group(1)) < 100 else ' at ~1000', kind)

    kinds = []
    for x in arches:
        for r in got[x][0]:
            kinds += [side_key(k) for k in r if side_key(k) not in kinds]
    side = []
    for kind in kinds:
        row = [kind]
        for x in arches:
            v = [val for r in got[x][0] for k, val in r.items() if side_key(k) == kind]
            row.append('-' if not v else fmt(kind, v[0]) if len(v) == 1 else
                       f'{fmt(kind, min(v))}-{fmt(kind, max(v))}')
        side.append(row)
    tables = [{'title': 'Side by side: each figure over the boots (fewest-most), '
                        'per architecture; "-": not measured there (arm64 has no '
                        'benchmark kernel without the series)',
               'head': ['figure'] + arches, 'rows': side}]
    for x in arches:
        ratios = got[x][0]
        rows = []
        for kind in ratios[0] if ratios else ():
            v = [r[kind] for r in ratios if kind in r]
            rows.append([kind] + [fmt(kind, y) for y in v] + [spread(v)])
        tables.append({
            'title': f'{x} benchmark kernel on QEMU TCG, -icount: traced ÷ '
                     'untraced of instructions executed (the fewest of '
                     f'{a.reps} repetitions; traced by root: fault records '
                     'with their frames; without frames: traced through files '
                     'opened without CAP_SYS_ADMIN; key: untraced while another '
                     'process is traced, against untraced); the record path and an ftrace '
                     'event in instructions a record; readbench: a pread() of '
                     'cached pages on a ramfs, untraced against the kernel '
                     'without the series, and key (another process traced), '
                     'faults ("1") and files ("1 files") against untraced; '
                     'migbench: a page migrated by move_pages(2), traced '
                     '(move records) / untraced, and untraced against the '
                     'kernel without the series, in boots with two nodes',
            'head': ['figure'] + [f'boot {i + 1}' for i in range(len(ratios))] +
                    ['spread'],
            'rows': rows,
            'note': ' '.join(got[x][2]) or 'no records lost'})
    path = benchjson.write('icount', 'make bench-icount', tables,
                           what='traced / untraced, guest time = instructions executed',
                           pages=a.pages, reps=a.reps,
                           boots={x: got[x][0] for x in arches})
    print(f'# and {os.path.relpath(path, bench.TOP)}')


if __name__ == '__main__':
    main()
