#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-profile: where the record path's time goes, on UML.

UML's kernel is a host process, so the host's perf can sample it. This
boots the UML benchmark kernel (build/bench-um) under `perf record`
(cpu-clock, a sample every PERIOD ns of the guest's CPU time), runs
`recbench -P ROUNDS` in it (the record path alone, ROUNDS x 200,000
records, each round drained before the next) and turns the samples in each
function into ns per record:

    ns/record(f) = samples(f) * PERIOD / records

Functions of the record path are marked; the rest of the run (boot, the
reader draining between rounds) is listed under "other". The total of the
marked rows is checked against the loop's own timing.

  profile-recpath.py [--rounds N] [--period NS] [--top K]
"""

import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402

OUT = os.path.join(guest.BUILD, 'bench')
KERNEL = os.path.join(guest.BUILD, 'bench-um', 'linux')
RECORDS_PER_ROUND = 200000

# The functions the record path runs, as the UML benchmark kernel's symbols
# and the host's clock read under them; what is not here is not charged to
# the record path.
RECORD_PATH = {
    'pgf_bench_records': 'the loop (mm/pgfault_history/bench.c)',
    'pgf_record_fault': 'building the record',
    'pgf_rec_init': 'building the record',
    'pgf_emit_fault': 'choosing the CPU ring',
    '__pgf_emit_to': 'the ring lock, state checks',
    '__pgf_write': 'reserving and copying into the ring',
    '__pgf_reserve': 'reserving space',
    '__pgf_want_grow': 'growth check',
    '__pgf_want_wake': 'wake-up check',
    'pgf_after_write': 'wake-up',
    'task_pid_nr_ns': 'the thread id',
    '__task_pid_nr_ns': 'the thread id',
    'syscall_get_nr': 'kernel or user mode',
    '_raw_spin_lock': 'the ring lock',
    '_raw_spin_unlock': 'the ring lock',
    'preempt_count_add': 'the ring lock',
    'preempt_count_sub': 'the ring lock',
}
CLOCK = {
    'ktime_get_ns': 'clock: ktime_get_ns()',
    'ktime_get_mono_fast_ns': 'clock',
    'timer_read': 'clock: UML clocksource',
    'os_nsecs': 'clock: UML os_nsecs()',
    'clock_gettime': 'clock: host libc',
    '__clock_gettime': 'clock: host libc',
    '__vdso_clock_gettime': 'clock: host vDSO',
    'do_hres': 'clock: host vDSO',
}


def perf_rows(data):
    """perf report -> [(samples, dso, symbol)]."""
    p = subprocess.run(['perf', 'report', '-i', data, '--stdio', '--no-children',
                        '--sort', 'dso,sym', '-F', 'sample,dso,sym',
                        '--percent-limit', '0'],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True, check=True)
    rows = []
    for line in p.stdout.splitlines():
        m = re.match(r'\s*(\d+)\s+(\S+)\s+\[[^\]]+\]\s+(\S+)', line)
        if m:
            rows.append((int(m.group(1)), m.group(2), m.group(3)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--rounds', type=int, default=40)
    ap.add_argument('--period', type=int, default=250000,
                    help='ns of CPU time between samples (default 250000)')
    ap.add_argument('--top', type=int, default=12)
    ap.add_argument('--timeout', type=int, default=900)
    args = ap.parse_args()
    if args.rounds < 1 or args.period < 1000:
        sys.exit('profile-recpath: need --rounds >= 1 and --period >= 1000')
    os.makedirs(OUT, exist_ok=True)
    data = os.path.join(OUT, 'recpath.perf.data')
    cmd = (f'/usr/lib/pgfault/bench/recbench -P {args.rounds} '
           f'-n {RECORDS_PER_ROUND} > /tmp/b.out 2>&1; '
           's=$?; cp /tmp/b.out /job/bench.out; cat /tmp/b.out; exit $s')
    jobdir = guest.new_job('run', cmd=cmd + '\n')
    prefix = ['perf', 'record', '-q', '-e', 'cpu-clock', '-c', str(args.period),
              '-o', data, '--']
    res = guest.boot(jobdir, timeout=args.timeout, echo='job', quiet=True,
                     arch='um', kernel=KERNEL, mem='1536M', prefix=prefix,
                     log_name='bench-profile')
    text = res.read('bench.out') or ''
    m = re.search(r'result profile records=(\d+) ns=(\d+) lost=(\d+)', text)
    if res.timed_out or res.status != 0 or not m:
        sys.exit(f'profile-recpath: the guest run failed; log {res.log}')
    records, loop_ns, lost = (int(x) for x in m.groups())

    rows = perf_rows(data)
    total = sum(s for s, _, _ in rows)
    per = args.period / records
    charged, clock, other = [], [], []
    for s, dso, sym in rows:
        base = sym.split('.')[0]	# a compiler's clone: foo.isra.0
        if base in CLOCK:
            clock.append((s, dso, sym, CLOCK[base]))
        elif base in RECORD_PATH and dso == 'linux':
            charged.append((s, dso, sym, RECORD_PATH[base]))
        else:
            other.append((s, dso, sym, ''))
    rec_ns = sum(s for s, *_ in charged) * per
    clk_ns = sum(s for s, *_ in clock) * per

    print(f'# Profile of the record path: UML (build/bench-um), host perf, cpu-clock '
          f'every {args.period} ns; {records:,} records in {args.rounds} rounds, '
          f'{lost} lost; {total:,} samples in all')
    print(f'# the loop timed itself at {loop_ns / records:.1f} ns/record; '
          f'the functions below add up to {rec_ns + clk_ns:.1f}')
    print()
    print('| function | where | what | ns/record | share |')
    print('|---|---|---|---|---|')
    for s, dso, sym, what in sorted(clock + charged, reverse=True):
        print(f'| {sym} | {dso} | {what} | {s * per:.1f} | '
              f'{100 * s * per / (rec_ns + clk_ns):.0f}% |')
    print(f'| **clock** | | ktime_get_ns() and what it calls | **{clk_ns:.1f}** | '
          f'**{100 * clk_ns / (rec_ns + clk_ns):.0f}%** |')
    print(f'| **the rest** | | | **{rec_ns:.1f}** | '
          f'**{100 * rec_ns / (rec_ns + clk_ns):.0f}%** |')
    print()
    print(f'# not the record path (boot, the reader between rounds), top {args.top}:')
    for s, dso, sym, _ in sorted(other, reverse=True)[:args.top]:
        print(f'#   {s:8,} samples  {dso:20} {sym}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
