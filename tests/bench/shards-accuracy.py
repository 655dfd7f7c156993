#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""SHARDS against the exact curves (issue 31): for each RATE, pgfreport
mrc --shards RATE on TRACE, then the exact pgfreport mrc at the very sizes
it printed, and the mean absolute error of the miss ratios over those
sizes, per policy, beside the sampler's own error estimate; with the time
of each run.

  shards-accuracy.py TRACE [RATE...] [-- ARG...]
      (default rates 0.01 0.1; ARGs go to every pgfreport mrc, such as
      --pid PID for a process of a tree file)
"""
import os
import re
import subprocess
import sys
import time

BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                   'build', 'host', 'bin', 'pgfreport')
POLICIES = ('lru', 'fifo', 'clock', 'opt')


def rows(text):
    """size -> {policy: ratio} from an mrc table."""
    out = {}
    for line in text.splitlines():
        w = line.split()
        if line.startswith('#') or len(w) < 6:
            continue
        out[int(w[0])] = dict(zip(POLICIES, map(float, w[2:6])))
    return out


def run(*args):
    t = time.time()
    p = subprocess.run([BIN, *args], capture_output=True, text=True, check=True)
    return p.stdout, time.time() - t


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index('--') + 1:] if '--' in argv else []
    argv = argv[:argv.index('--')] if '--' in argv else argv
    trace, rates = argv[0], argv[1:] or ['0.01', '0.1']
    for rate in rates:
        out, ts = run('mrc', *extra, '--shards', rate, trace)
        approx = rows(out)
        est = re.search(r'differs by ([0-9.]+)', out)
        sampled = re.search(r'(\d+) pages \(about (\d+) in all\)', out)
        exact_out, te = run('mrc', *extra, '--sizes', ','.join(map(str, approx)), trace)
        exact = rows(exact_out)
        mae = {p: sum(abs(approx[s][p] - exact[s][p]) for s in approx) / len(approx)
               for p in POLICIES}
        print(f'{os.path.basename(trace)} rate {rate}: {len(approx)} sizes, '
              f'{sampled.group(1) if sampled else "?"} pages sampled of about '
              f'{sampled.group(2) if sampled else "?"}; MAE ' +
              ' / '.join(f'{100 * mae[p]:.2f}%' for p in POLICIES) +
              ' (LRU / FIFO / CLOCK / OPT); the sampler\'s estimate ' +
              (f'{100 * float(est.group(1)) / 2 ** 0.5:.2f}%' if est else '?') +
              f'; {ts:.1f} s sampled, {te:.1f} s exact')


if __name__ == '__main__':
    main()
