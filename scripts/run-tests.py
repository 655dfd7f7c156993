#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The whole test suite: host-side tests, then the in-guest suites in UML,
in the x86_64 guest under QEMU (KVM if it works here, else TCG) and in the
arm64 guest (QEMU's virt machine, TCG).

Prints each suite's KTAP as it runs, then the failures, any kernel splat,
and a closing line "N passed, N failed, N skipped". Exits non-zero on any
failed test, a missing or short plan, a timeout or a kernel splat.
"""

import argparse
import glob
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402
import runner  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def host_suites():
    """Host test programs: tests/host/*.py (not the *lib.py helpers) and
    build/host-tests/*."""
    py = sorted(p for p in glob.glob(os.path.join(TOP, 'tests/host/*.py'))
                if not os.path.basename(p).endswith('lib.py'))
    bins = sorted(p for p in glob.glob(os.path.join(TOP, 'build/host-tests/*'))
                  if os.access(p, os.X_OK) and not p.endswith('.d'))
    return py + bins


# Suites that need a guest with two NUMA nodes (QEMU's: UML has one).
TWO_NODE_SUITES = ('numa', 'frames', 'changes')


# The arm64 guests: each names the CPU model QEMU emulates. 'max' updates
# the access flag in hardware (FEAT_HAFDBS): re-arming clears it with the
# NUMA-hinting PROT_NONE. 'cortex-a57' has no FEAT_HAFDBS: the kernel takes
# access flag faults itself and re-arming makes pages old.
ARM64_CPUS = {'arm64': 'max', 'arm64-nohwaf': 'cortex-a57'}
# What the arm64 kernel says at boot when the CPU has FEAT_HAFDBS
# (arch/arm64/kernel/cpufeature.c): a boot must say it exactly when its
# model has it, so that a result is known to be the one its name claims.
HWAF_LINE = 'CPU features: detected: Hardware dirty bit management'
# The short arm64 run (--quick arm64, make test): the boot with its KUnit
# tests and the suites that exercise what is arm64's own: the fault path's
# access kinds and user/kernel against /proc/<pid>/stat (pgfault_history,
# exactness), re-arming, window and sampling through the access flag
# (rearm, window, sample, idle, dirty), huge pages and contiguous-PTE mTHPs
# (hugepages), the page cache (files); about 3 minutes of the arm64
# suite's 15. make test-arm64 runs every suite, with and without
# FEAT_HAFDBS.
QUICK_SUITES = ('guest_env', 'pgfault_history', 'exactness', 'rearm', 'window',
                'sample', 'idle', 'dirty', 'hugepages', 'files')


def boots(arch, suites, name=None):
    """The boots that run `suites` (a comma list, '' for all) in `arch`:
    (name, suites, NUMA nodes, environment) for each."""
    name = name or arch
    env = {}
    # The torture test's length (seconds), if asked for.
    if os.environ.get('PGF_TORTURE_SECONDS', '').isdigit():
        env['PGF_TORTURE_SECONDS'] = os.environ['PGF_TORTURE_SECONDS']
        env['SUITE_TIMEOUT'] = str(int(env['PGF_TORTURE_SECONDS']) + 600)
    if arch not in ('x86_64', 'arm64'):
        return [(name, suites, 1, env)]
    wanted = [s for s in suites.split(',') if s]
    two = [s for s in wanted if s.split(':')[0] in TWO_NODE_SUITES]
    rest = [s for s in wanted if s not in two]
    if not wanted:
        two = list(TWO_NODE_SUITES)
        env = dict(env, EXCLUDE_SUITES=' '.join(TWO_NODE_SUITES))
    out = []
    if rest or not wanted:
        out.append((name, ','.join(rest), 1, env))
    if two:
        out.append((f'{name}-2nodes', ','.join(two), 2, {}))
    return out


def check_hwaf(rep, variant):
    """An arm64 boot's kernel found FEAT_HAFDBS exactly when its model
    has it ('max'), else the boot counts as an error."""
    with open(rep.log, errors='replace') as f:
        said = any(HWAF_LINE in line for line in f)
    want = variant == 'arm64'
    if said != want:
        rep.errors.append(f'{rep.name}: the kernel {"found" if said else "did not find"} '
                          f'FEAT_HAFDBS on -cpu {guest.ARM64_CPU}')


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--timeout', type=int, default=1800,
                    help='limit for one guest boot, seconds')
    ap.add_argument('--host-only', action='store_true')
    ap.add_argument('--guest-only', action='store_true')
    ap.add_argument('--suites', default='', help='guest suites (default all)')
    ap.add_argument('--arch', default='um,x86_64,arm64',
                    help='guests to run the suites in: um, x86_64, arm64 '
                    '(-cpu max), arm64-nohwaf (-cpu cortex-a57) '
                    '(default: um,x86_64,arm64)')
    ap.add_argument('--quick', default='', metavar='ARCHES',
                    help='guests that run only the short set of suites '
                    f'({",".join(QUICK_SUITES)}) when --suites is not given')
    ap.add_argument('--kernel', help='the kernel image to boot (one --arch '
                    'only; default: the test kernel)')
    args = ap.parse_args()
    if args.kernel and ',' in args.arch:
        ap.error('--kernel needs a single --arch')
    arches = [a for a in args.arch.split(',') if a]
    for a in arches + [a for a in args.quick.split(',') if a]:
        if a not in ('um', 'x86_64', *ARM64_CPUS):
            ap.error(f'no guest "{a}": um, x86_64, {", ".join(ARM64_CPUS)}')

    reps = []
    t0 = time.monotonic()
    if not args.guest_only:
        for path in host_suites():
            print(f'# host: {os.path.relpath(path, TOP)}', flush=True)
            reps.append(runner.run_host(path, timeout=args.timeout))
    if not args.host_only:
        for variant in arches:
            arch = 'arm64' if variant in ARM64_CPUS else variant
            wanted = args.suites
            if not wanted and variant in args.quick.split(','):
                wanted = ','.join(QUICK_SUITES)
            for name, suites, nodes, env in boots(arch, wanted, variant):
                print(f'# guest {name}: booting', flush=True)
                t1 = time.monotonic()
                guest.NODES = nodes
                guest.ARM64_CPU = ARM64_CPUS.get(variant, guest.ARM64_CPU)
                rep = runner.run_guest(suites, timeout=args.timeout, echo='job',
                                       name=name, arch=arch, env=env,
                                       kernel=args.kernel)
                if arch == 'arm64':
                    check_hwaf(rep, variant)
                print(f'# guest {name}: ran in {rep.where}, '
                      f'{time.monotonic() - t1:.0f}s; console log: '
                      f'{os.path.relpath(rep.log, TOP)}', flush=True)
                reps.append(rep)
                # The kernel's own KUnit tests ran at that boot.
                kunit = runner.kunit_from_log(rep.log, name=f'kunit-{name}')
                for path, status in kunit.leaves:
                    print(f'# {path}: {status}')
                reps.append(kunit)
    print(f'# total time {time.monotonic() - t0:.0f}s')
    sys.exit(runner.report(*reps))


if __name__ == '__main__':
    main()
