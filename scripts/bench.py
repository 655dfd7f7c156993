#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: what tracing costs, on UML and on the x86_64 guest.

Boots the benchmark kernels (no debug options; build/bench-*), runs
uml-rootfs/run-bench in each, runs tests/bench/hostfault on the host, and
prints one report, also written to build/bench/report.md with every raw
output beside it, and every figure as JSON in build/bench/results.json
(also build/bench/results-COMMIT.json), so that runs can be compared.
Every table says where it ran. With x86_64, also the instruction-count
ratios of scripts/bench-icount.py (make bench-icount), which hold still
where TCG's wall-clock ones wander.

--quick (make bench-quick): a developer's before/after in a few minutes:
the patched benchmark kernel in UML, two boots, faults untraced and
traced, region changes at 10 and 1,000 VMAs, one re-arm walk; the ratios
traced / untraced of each boot, into build/bench/quick.json (and
quick-COMMIT.json); with --compare OLD.json, beside those of OLD.

  bench.py [--arch um,x86_64] [--timeout S]
  bench.py --quick [--compare OLD.json] [--timeout S]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchjson  # noqa: E402
import guest  # noqa: E402

TOP = guest.TOP
OUT = os.path.join(guest.BUILD, 'bench')
KERNELS = {
    ('um', 'patched'): 'bench-um/linux',
    ('um', 'vanilla'): 'bench-um-vanilla/linux',
    ('x86_64', 'patched'): 'bench-x86/arch/x86/boot/bzImage',
    ('x86_64', 'vanilla'): 'bench-x86-vanilla/arch/x86/boot/bzImage',
    # make bench-icount's arm64 column only.
    ('arm64', 'patched'): 'bench-arm64/arch/arm64/boot/Image',
}
THREADS = {'um': '1', 'x86_64': ','.join(str(i) for i in range(1, guest.SMP + 1))}


def results(text):
    """'result NAME k=v ...' lines -> list of (name, {k: v})."""
    out = []
    for line in text.splitlines():
        if not line.startswith('result '):
            continue
        words = line.split()[1:]
        name = words[0] if '=' not in words[0] else ''
        kv = dict(w.split('=', 1) for w in words if '=' in w)
        for k, v in kv.items():
            try:
                kv[k] = float(v)
            except ValueError:
                pass
        out.append((name, kv))
    return out


# Every boot's results, for the JSON: "arch-flavour[tag]" -> list of
# {"name": ..., key: value}.
RUNS = {}


commit = benchjson.commit


def boot(arch, flavour, timeout, mode=None, tag=''):
    kernel = os.path.join(guest.BUILD, KERNELS[(arch, flavour)])
    mode = mode or ('full' if flavour == 'patched' else 'vanilla')
    threads = THREADS[arch] if mode == 'full' else '1'
    # Straight to the job directory on the host, so that a run that hangs
    # shows how far it got (a few KiB, written between the measurements).
    cmd = (f'/usr/lib/pgfault/run-bench {mode} {threads} > /job/bench.out 2>&1; '
           's=$?; cat /job/bench.out; exit $s')
    jobdir = guest.new_job('run', cmd=cmd + '\n')
    print(f'# bench: {arch} {flavour} kernel {os.path.relpath(kernel, TOP)} {tag}', flush=True)
    res = guest.boot(jobdir, share=None, timeout=timeout, echo='job', quiet=True,
                     arch=arch, kernel=kernel, mem='1536M',
                     log_name=f'bench-{arch}-{flavour}{tag}')
    text = res.read('bench.out') or ''
    print(f'# bench: {arch} {flavour}{tag}: {res.elapsed:.0f} s', flush=True)
    with open(os.path.join(OUT, f'{arch}-{flavour}{tag}.out'), 'w') as f:
        f.write(f'# {res.where}, {res.elapsed:.0f}s\n' + text)
    ok = not res.timed_out and res.status == 0
    RUNS[f'{arch}-{flavour}{tag}'] = [dict(kv, name=n) for n, kv in results(text)]
    if not ok:
        print(f'bench: {arch} {flavour}: guest status {res.status}'
              f'{" (timeout)" if res.timed_out else ""}; log {res.log}', file=sys.stderr)
    return res.where, text, ok


def host_native():
    exe = os.path.join(guest.BUILD, 'host', 'bin', 'hostfault')
    p = subprocess.run([exe], stdout=subprocess.PIPE, text=True, check=False)
    with open(os.path.join(OUT, 'host.out'), 'w') as f:
        f.write(p.stdout)
    return {kv.get('kind'): kv for _, kv in results(p.stdout)}


def fmt(v, nd=0):
    return '-' if v is None else f'{v:,.{nd}f}'


def spread(kv):
    return f"{fmt(kv.get('min'))}–{fmt(kv.get('max'))}"


class Report:
    """The report's lines, and its tables with the heading above each
    (for the JSON the benchmarks document is made from)."""

    def __init__(self):
        self.lines = []
        self.goals = []
        self.tables = []
        self.section = ''

    def p(self, s=''):
        if s.startswith('#'):
            self.section = s.lstrip('#').strip()
        self.lines.append(s)

    def table(self, head, rows):
        self.tables.append({'title': self.section, 'head': list(head),
                            'rows': [[str(c) for c in r] for r in rows]})
        self.p('| ' + ' | '.join(head) + ' |')
        self.p('|' + '|'.join('---' for _ in head) + '|')
        for r in rows:
            self.p('| ' + ' | '.join(str(c) for c in r) + ' |')
        self.p()

    def goal(self, where, what, value, ok):
        self.goals.append((where, what, value, 'met' if ok else 'NOT met'))


def fault_rows(res):
    """{(kind, threads, mode): kv} from faultbench result lines."""
    d = {}
    for name, kv in res:
        if 'kind' in kv and 'mode' in kv:
            d[(kv['kind'], int(kv.get('threads', 1)), kv['mode'])] = kv
    return d


def quick_ratios(text):
    """The figures of a quick boot: {what: traced / untraced}."""
    out = {}
    faults = fault_rows(results(text))
    for kind in ('anon', 'zero'):
        off, on = faults.get((kind, 1, 'off')), faults.get((kind, 1, 'traced'))
        if off and on and off.get('ns'):
            out[f'{kind} fault'] = on['ns'] / off['ns']
    for name, kv in results(text):
        if name == 'vma' and kv.get('off_us'):
            out[f'{kv["op"]} at {int(kv["vmas"]):,} VMAs'] = kv['traced_us'] / kv['off_us']
        if name == 'rearm' and kv.get('minor_ns'):
            out['reref fault ÷ minor fault'] = kv['reref_ns'] / kv['minor_ns']
            out['re-arm walk, ns a page'] = kv['rearm_ns_per_page']
    return out


def qfmt(k, b):
    """A quick figure: a ratio to 2 places, a time in whole ns."""
    if k not in b:
        return '-'
    return f'{b[k]:.0f}' if k.endswith('ns a page') else f'{b[k]:.2f}'


def quick(args):
    """make bench-quick: see the module's doc."""
    os.makedirs(OUT, exist_ok=True)
    boots, failed = [], False
    for i in range(2):
        where, text, ok = boot('um', 'patched', args.timeout, 'quick', f'-quick{i}')
        failed |= not ok
        boots.append(quick_ratios(text))
    doc = {'commit': commit(), 'date': time.strftime('%Y-%m-%d %H:%M'),
           'where': where, 'kernel': KERNELS[('um', 'patched')],
           'what': 'traced / untraced in the same boot (the re-arm walk: ns a page)',
           'boots': boots, 'runs': RUNS}
    old = None
    if args.compare:
        with open(args.compare) as f:
            old = json.load(f)
    keys = list(boots[0]) if boots else []
    head = ['figure', f'{doc["commit"]} boot 1', 'boot 2']
    if old:
        head += [f'{old["commit"]} boot 1', 'boot 2']
    rep = Report()
    rep.p(f'# make bench-quick: {where}, the benchmark kernel, {doc["date"]}')
    rep.p()
    rep.p('Ratios traced ÷ untraced within each boot (UML: wall-clock; two boots '
          'give the spread). Not the full benchmark: `make bench`.')
    rep.p()
    rows = []
    for k in keys:
        row = [k] + [qfmt(k, b) for b in boots]
        if old:
            row += [qfmt(k, b) for b in old['boots']]
        rows.append(row)
    rep.table(head, rows)
    print('\n'.join(rep.lines))
    rep.tables[-1]['title'] = (f'traced ÷ untraced within each boot, {where} '
                               '(the re-arm walk: ns a page)')
    del doc['commit'], doc['date']
    path = benchjson.write('quick', 'make bench-quick', rep.tables[-1:], **doc)
    print(f'# written to {os.path.relpath(path, TOP)}')
    return 1 if failed else 0


def icount_section(rep, timeout):
    """The x86_64 figures that hold still (instruction counts under
    -icount, scripts/bench-icount.py), beside the wall-clock TCG ones: a
    section of @rep; the figures, or None if the run failed."""
    p = subprocess.run([sys.executable, os.path.join(TOP, 'scripts', 'bench-icount.py'),
                        '--arch', 'x86_64', '--timeout', str(timeout)],
                       capture_output=True, text=True, check=False)
    try:
        with open(os.path.join(OUT, 'icount.json')) as f:
            icount = json.load(f)
    except (OSError, ValueError):
        icount = None
    if p.returncode or not icount or icount.get('commit') != commit():
        print(f'bench: bench-icount failed: {p.stderr.strip()}', file=sys.stderr)
        return None
    boots = icount['boots']['x86_64']
    rep.p('## x86_64 under -icount: instruction counts (scripts/bench-icount.py)')
    rep.p()
    rep.p('QEMU TCG with `-icount shift=0,sleep=off`: guest time is instructions '
          'executed, so these are ratios traced ÷ untraced of instruction counts '
          '(the fewest of the repetitions), and the record path in instructions a '
          'record. They say nothing of caches, TLBs, memory latency or contention '
          'between real CPUs; the wall-clock TCG figures above are the second column.')
    rep.p()
    rows = []
    for k in boots[0]:
        v = [b[k] for b in boots if k in b]
        rows.append([k] + [f'{x:.3f}' for x in v] +
                    [f'{100 * (max(v) - min(v)) / min(v):.1f}%'])
    rep.table(['figure'] + [f'boot {i + 1}' for i in range(len(boots))] + ['spread'],
              rows)
    return icount


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--arch', default='um,x86_64')
    ap.add_argument('--timeout', type=int, default=1800)
    ap.add_argument('--pairs', type=int, default=3,
                    help='extra alternating boots of each kernel for (a) vs (d)')
    ap.add_argument('--quick', action='store_true',
                    help="a developer's before/after in a few minutes")
    ap.add_argument('--compare', metavar='OLD.json',
                    help='with --quick: beside the figures of an earlier run')
    args = ap.parse_args()
    if args.quick:
        return quick(args)
    os.makedirs(OUT, exist_ok=True)
    rep = Report()
    failed = False
    t0 = time.monotonic()

    host = host_native()
    native_anon = host.get('anon', {}).get('ns')
    rep.p('# pgfault_history benchmark')
    rep.p()
    rep.p(f"Produced by `make bench` on {time.strftime('%Y-%m-%d %H:%M')} "
          f"({os.cpu_count()} host CPUs). Medians over repetitions, spread min–max; "
          'modes interleaved within each boot. Raw outputs: build/bench/*.out.')
    rep.p()
    rep.p('## Native fault cost on the host (tests/bench/hostfault, THP off)')
    rep.p()
    rep.table(['fault', 'ns/fault', 'spread'],
              [[k, fmt(v.get('ns')), spread(v)] for k, v in sorted(host.items())])

    for arch in args.arch.split(','):
        where, text, ok = boot(arch, 'patched', args.timeout)
        failed |= not ok
        vwhere, vtext, vok = boot(arch, 'vanilla', args.timeout)
        failed |= not vok
        res = results(text)
        faults = fault_rows(res)
        vfaults = fault_rows(results(vtext))
        rep.p(f'## {arch}: ran in {where} (patched), {vwhere} (unpatched)')
        rep.p()
        # A benchmark that failed (run-bench's "# FAILED (N): COMMAND"):
        # said in a table and in the goals, not only in its raw output
        fails = [(kernel, line.split(': ', 1)[1], line.split('(')[1].split(')')[0])
                 for kernel, t in (('patched', text), ('unpatched', vtext))
                 for line in t.splitlines() if line.startswith('# FAILED (')]
        if fails:
            rep.p(f'### Failed runs ({where})')
            rep.p()
            rep.table(['kernel', 'command', 'status'], fails)
            failed = True
        rep.goal(where, 'every benchmark runs to its end (its checks pass)',
                 '; '.join(f'{c} ({k}) failed, status {st}' for k, c, st in fails)
                 or 'all did', not fails)

        # 1. record path vs ftrace
        rec = [kv for n, kv in res if n == 'recpath']
        loop = [kv for n, kv in res if n == 'ftrace_loop']
        ev = [kv for n, kv in res if n == 'ftrace_event' and kv.get('ns')]
        clk = [kv for n, kv in res if n == 'clock']
        clk_ns = statistics.median(k['ns'] for k in clk) if clk else None
        rec_ns = statistics.median(k['ns'] for k in rec) if rec else None
        loop_ns = statistics.median(k['ns'] for k in loop) if loop else None
        ev_ns = statistics.median(k['ns'] for k in ev) if ev else None
        rep.p(f'### 1. Cost of recording, in-kernel ({where}, same boot)')
        rep.p()
        rows = [['pgfault_history record path (recbench)', fmt(rec_ns, 1),
                 ', '.join(f"{fmt(k['ns'], 1)} [{fmt(k['min'], 1)}–{fmt(k['max'], 1)}]"
                           for k in rec)],
                ['ftrace event of 128+8 bytes, same loop and clock (pgfault_history_bench)', fmt(loop_ns, 1),
                 ', '.join(f"{fmt(k['ns'], 1)} [{fmt(k['min'], 1)}–{fmt(k['max'], 1)}]"
                           for k in loop)],
                ['ftrace event, TRACEPOINT_BENCHMARK\'s own average', fmt(ev_ns, 1),
                 ', '.join(fmt(k['ns'], 1) for k in ev) or
                 'reads 0: trace_clock_local() ticks in jiffies here'],
                ['the clock a record reads, ktime_get_ns() alone, same loop', fmt(clk_ns, 1),
                 ', '.join(f"{fmt(k['ns'], 1)} [{fmt(k['min'], 1)}–{fmt(k['max'], 1)}]"
                           for k in clk)],
                ['native anon write fault on the host (hostfault)', fmt(native_anon, 1), ''],
                ['native zero-page read fault on the host', fmt(host.get('zero', {}).get('ns'), 1),
                 '']]
        rep.table(['what', 'ns (median of runs)', 'runs: median [min–max] of rounds'], rows)
        if rec_ns is not None:
            rep.goal(where, 'record path ≤ 60 ns', f'{rec_ns:.1f} ns', rec_ns <= 60)
            if native_anon:
                r = rec_ns / native_anon
                rep.goal(where, 'record path < 5% of a native anon write fault',
                         f'{100 * r:.1f}%', r < 0.05)
            if loop_ns:
                r = rec_ns / loop_ns
                rep.goal(where, 'record path < 1/4 of the ftrace per-event cost',
                         f'{r:.2f}× ({rec_ns:.1f} / {loop_ns:.1f} ns)', r < 0.25)

        # 2. end to end
        rep.p(f'### 2. End-to-end fault cost, ns/fault ({where}; unpatched: {vwhere})')
        rep.p()
        rows = []
        for kind in ('anon', 'zero', 'file'):
            off = faults.get((kind, 1, 'off'))
            van = vfaults.get((kind, 1, 'off'))
            if van:
                rows.append([kind, '(d) unpatched kernel', fmt(van['ns']), spread(van),
                             '', '1.00', ''])
            for mode, label in (('off', '(a) compiled in, off'),
                                ('traced', '(b) traced, reader draining'),
                                ('ftrace', '(c) ftrace page_fault_user + trace_pipe')):
                kv = faults.get((kind, 1, mode))
                if not kv:
                    continue
                ra = kv['ns'] / off['ns'] if off else None
                rd = kv['ns'] / van['ns'] if van else None
                rows.append([kind, label, fmt(kv['ns']), spread(kv), fmt(ra, 3),
                             fmt(rd, 3), fmt(kv.get('lost'))])
        rep.table(['fault', 'mode', 'ns/fault', 'spread', '÷ (a)', '÷ (d)', 'lost'], rows)
        a = faults.get(('anon', 1, 'off'))
        b = faults.get(('anon', 1, 'traced'))
        c = faults.get(('anon', 1, 'ftrace'))
        d = vfaults.get(('anon', 1, 'off'))
        if a and b:
            r = b['ns'] / a['ns']
            rep.goal(where, 'anon write: traced/untraced ≤ 1.05', f'{r:.3f}', r <= 1.05)
            if c:
                rc = c['ns'] / a['ns']
                rep.goal(where, 'anon write: traced ratio below ftrace ratio',
                         f'{r:.3f} vs {rc:.3f}', r < rc)
        # (a) against (d) crosses boots, and boot-to-boot drift is large on
        # a shared machine: alternate more boots of each, untraced only.
        pairs = []
        for i in range(args.pairs):
            pw, ptext, pok = boot(arch, 'patched', args.timeout, 'vanilla', f'-pair{i}')
            vw, vtext2, vok2 = boot(arch, 'vanilla', args.timeout, 'vanilla', f'-pair{i}')
            failed |= not (pok and vok2)
            pa = fault_rows(results(ptext))
            pd = fault_rows(results(vtext2))
            pairs.append({k: (pa[(k, 1, 'off')]['ns'], pd[(k, 1, 'off')]['ns'])
                          for k in ('anon', 'zero', 'file')
                          if (k, 1, 'off') in pa and (k, 1, 'off') in pd})
        if a and d:
            pairs.insert(0, {k: (faults[(k, 1, 'off')]['ns'], vfaults[(k, 1, 'off')]['ns'])
                             for k in ('anon', 'zero', 'file')
                             if (k, 1, 'off') in faults and (k, 1, 'off') in vfaults})
            rep.p(f'### 2b. Compiled in but off ÷ unpatched, over {len(pairs)} pairs of boots '
                  f'({where}; untraced, alternating kernels)')
            rep.p()
            rows = []
            for k in ('anon', 'zero', 'file'):
                rs = [p[k][0] / p[k][1] for p in pairs if k in p]
                if rs:
                    rows.append([k, fmt(statistics.median(rs), 3),
                                 f'{min(rs):.3f}–{max(rs):.3f}',
                                 ', '.join(f'{x:.3f}' for x in rs)])
            rep.table(['fault', 'median ratio', 'spread', 'per pair'], rows)
            rs = [p['anon'][0] / p['anon'][1] for p in pairs if 'anon' in p]
            r = statistics.median(rs)
            rep.goal(where, f'compiled in, off ≤ 1.01× unpatched (anon write; '
                     f'median of {len(rs)} boot pairs)',
                     f'{r:.3f} (pairs {min(rs):.3f}–{max(rs):.3f})', r <= 1.01)

        # 3. thread scaling
        counts = sorted({t for (k, t, m) in faults if k == 'anon'})
        if len(counts) > 1:
            rep.p(f'### 3. Thread scaling, anon write storm ({where}, {guest.SMP} vCPUs)')
            rep.p()
            rows = []
            worst = None
            for t in counts:
                u = faults.get(('anon', t, 'off'))
                tr = faults.get(('anon', t, 'traced'))
                if not u or not tr:
                    continue
                r = tr['rate'] / u['rate']
                worst = r if worst is None else min(worst, r)
                rows.append([t, fmt(u['rate']), fmt(tr['rate']), fmt(r, 3), fmt(tr.get('lost'))])
            rep.table(['threads', 'untraced faults/s', 'traced faults/s', 'traced ÷ untraced',
                       'lost'], rows)
            if worst is not None:
                rep.goal(where, 'traced thread scaling ≥ 0.9× untraced at every count',
                         f'worst {worst:.3f}', worst >= 0.9)

        # 4. drain
        drain = [l for l in text.splitlines()
                 if re.match(r'^\s*(buffer_kb|\d+ )', l) or l.startswith(('pgf_drain:',
                                                                         'reader capacity'))]
        if drain:
            rep.p(f'### 4. Drain throughput and losses ({where}, tests/bench/pgf_drain)')
            rep.p()
            rep.p('```')
            rep.lines += drain
            rep.p('```')
            rep.p()
        # 5. memory
        mem = [kv for n, kv in res if n == 'memory']
        if mem:
            m = mem[0]
            rep.p(f'### 5. Kernel memory per traced process, default limit ({where})')
            rep.p()
            rep.table(['trace struct', 'buffer', 'region shadow', 'total'],
                      [[f"{fmt(m['trace'])} B", f"{fmt(m['buffer'])} B",
                        f"{fmt(m['regions'])} × {fmt(m['region_bytes'])} B",
                        f"{fmt(m['total'])} B ({m['total'] / 1024:.1f} KiB)"]])

        # 6. region changes against the VMA count
        vma = [kv for n, kv in res if n == 'vma']
        if vma:
            rep.p(f'### 6. Region changes, µs per pair, against the VMA count '
                  f'({where}, tests/bench/vmabench)')
            rep.p()
            rep.table(['operation', 'VMAs', 'untraced', 'traced', 'traced ÷ untraced', 'lost'],
                      [[kv['op'], fmt(kv['vmas']), fmt(kv['off_us'], 1), fmt(kv['traced_us'], 1),
                        fmt(kv['ratio'], 2), fmt(kv['lost'])] for kv in vma])
            worst = max(kv['ratio'] for kv in vma)
            rep.goal(where, 'mmap+munmap, mprotect split and fork: traced ≤ 1.5× untraced '
                     'at 10, 1,000, 60,000 VMAs', f'worst {worst:.2f}×', worst <= 1.5)

        # 6b. growth to many VMAs while traced
        grow = [kv for n, kv in res if n == 'grow']
        if grow:
            kv = grow[0]
            rep.p(f'### 6b. A program growing to {fmt(kv["vmas"])} VMAs while traced, under '
                  f'tracepgfault, default buffer ({where}, tests/bench/growbench)')
            rep.p()
            rep.table(['what', 'untraced', 'traced', 'traced ÷ untraced'],
                      [['growth, µs per VMA', fmt(kv['grow_off_us'], 2),
                        fmt(kv['grow_traced_us'], 2), fmt(kv['grow_ratio'], 2)],
                       [f'then mmap+munmap, µs per pair ({fmt(kv["pairs"])} pairs)',
                        fmt(kv['off_us'], 1), fmt(kv['traced_us'], 1), fmt(kv['ratio'], 2)]])
            owed = int(kv.get('owed', 0))
            rep.table(['records lost, all runs', 'layouts, last trace',
                       'regions the last trace ends with',
                       'runs ending owing the layout (the rest counted lost)',
                       'every run the maps, or every missing region counted'],
                      [[fmt(kv['lost']), fmt(kv['layouts']), fmt(kv['regions']),
                        str(owed), 'yes' if kv['exact'] else 'NO']])
            rep.goal(where, 'growth to 60,000 VMAs while traced: mmap+munmap traced ≤ 1.5× '
                     'untraced, and the trace ends with every region',
                     f'{kv["ratio"]:.2f}×, ' + (
                         'NOT exact' if not kv['exact'] else
                         f'{owed} runs ended owing the layout (counted lost)' if owed
                         else 'exact'),
                     kv['ratio'] <= 1.5 and kv['exact'] == 1 and not owed)

        # 7. re-reference tracing
        rr = [kv for n, kv in res if n == 'rearm']
        walks = [kv for n, kv in res if n == 'rearmwalk']
        if rr:
            kv = rr[0]
            rep.p(f'### 7. Re-reference tracing ({where}, tests/bench/rearmbench, '
                  f'{fmt(kv["pages"])} pages)')
            rep.p()
            rep.table(['what', 'ns'],
                      [['first-touch write fault, untraced', fmt(kv['minor_ns'], 1)],
                       ['first-touch write fault, traced', fmt(kv['traced_minor_ns'], 1)],
                       ['re-reference fault (re-armed page written), traced',
                        fmt(kv['reref_ns'], 1)],
                       ['"rearm", per page re-armed', fmt(kv['rearm_ns_per_page'], 1)]])
        if walks:
            rep.p('Page walks over the pages, each visit writing `stores` bytes of its '
                  'page evenly spaced, untraced and in interval and window modes '
                  '(touches: page visits):')
            rep.p()
            rep.table(['walk', 'stores', 'mode', 'touches/s', 'slowdown', 'faults per run',
                       'lost'],
                      [[kv['walk'], fmt(kv.get('stores', 1)), kv['mode'],
                        fmt(kv['touches_per_s']), fmt(kv['slowdown'], 2), fmt(kv['faults']),
                        fmt(kv['lost'])] for kv in walks])
            pages = rr[0]['pages'] if rr else 4096
            held = [kv for kv in walks if str(kv['mode']).startswith('window=')
                    and int(str(kv['mode'])[7:]) >= pages]
            small = [kv for kv in walks if str(kv['mode']).startswith('window=')
                     and int(str(kv['mode'])[7:]) < pages]
            if held:
                worst = max(kv['slowdown'] for kv in held)
                rep.goal(where, 'window mode, window holding the walk: ≤ 1.5× untraced',
                         f'worst {worst:.2f}×', worst <= 1.5)
            for st in sorted({kv.get('stores', 1) for kv in small}):
                worst = max(kv['slowdown'] for kv in small if kv.get('stores', 1) == st)
                rep.goal(where, 'window mode, window smaller than the walk (every visit '
                         f'misses), {st} store{"s" if st != 1 else ""} per visit: an order '
                         'of magnitude under binary instrumentation (≤ 18×, a tenth of '
                         'Pin/drmemtrace\'s 180×)', f'worst {worst:.2f}×', worst <= 18)

        sw = [kv for n, kv in res if n == 'samplewalk']
        if sw:
            rep.p(f'### 8. Sampling mode ({where}, tests/bench/samplebench: a walk over '
                  'memory kept resident, one store per page visit, untraced and sampled '
                  'every MS ms; scans and faults per run, scan cost from the trace\'s '
                  'own sample lines)')
            rep.p()
            rep.table(['walk', 'mode', 'visits/s', 'slowdown', 'scans per run',
                       'µs per scan', 'ns per page scanned', 'faults per run', 'lost'],
                      [[kv['walk'], kv['mode'], fmt(kv['visits_per_s']),
                        fmt(kv['slowdown'], 3), fmt(kv['scans']), fmt(kv['scan_us'], 1),
                        fmt(kv['scan_ns_per_page'], 2), fmt(kv['faults']), fmt(kv['lost'])]
                       for kv in sw])
            at100 = [kv['slowdown'] for kv in sw if kv['mode'] == 'sample=100']
            if at100 and arch == 'x86_64':
                worst = max(at100)
                rep.goal(where, 'sampling every 100 ms, page-exact: ≤ 1.02× untraced',
                         f'worst {worst:.3f}×', worst <= 1.02)

    icount = None
    if 'x86_64' in args.arch.split(','):
        icount = icount_section(rep, args.timeout)
        failed |= icount is None

    rep.p('## Goals')
    rep.p()
    rep.table(['where', 'goal', 'measured', ''], rep.goals)
    rep.p(f'Total time {time.monotonic() - t0:.0f}s.')
    text = '\n'.join(rep.lines) + '\n'
    with open(os.path.join(OUT, 'report.md'), 'w') as f:
        f.write(text)
    print(text)
    print(f'# written to {os.path.relpath(os.path.join(OUT, "report.md"), TOP)}')
    path = benchjson.write(
        'results', 'make bench', rep.tables,
        goals=[dict(zip(('where', 'goal', 'measured', 'verdict'), g))
               for g in rep.goals],
        host_faults=host, runs=RUNS, icount=icount)
    print(f'# and {os.path.relpath(path, TOP)}')
    if failed:
        print('bench: some runs failed (see above)', file=sys.stderr)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
