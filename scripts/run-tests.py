#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The whole test suite: host-side tests, then the in-guest suites in UML
and in the x86_64 guest under QEMU (KVM if it works here, else TCG).

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


def boots(arch, suites):
    """The boots that run `suites` (a comma list, '' for all) in `arch`:
    (name, suites, NUMA nodes, environment) for each."""
    env = {}
    # The torture test's length (seconds), if asked for.
    if os.environ.get('PGF_TORTURE_SECONDS', '').isdigit():
        env['PGF_TORTURE_SECONDS'] = os.environ['PGF_TORTURE_SECONDS']
        env['SUITE_TIMEOUT'] = str(int(env['PGF_TORTURE_SECONDS']) + 600)
    if arch not in ('x86_64', 'arm64'):
        return [(arch, suites, 1, env)]
    wanted = [s for s in suites.split(',') if s]
    two = [s for s in wanted if s.split(':')[0] in TWO_NODE_SUITES]
    rest = [s for s in wanted if s not in two]
    if not wanted:
        two = list(TWO_NODE_SUITES)
        env = dict(env, EXCLUDE_SUITES=' '.join(TWO_NODE_SUITES))
    out = []
    if rest or not wanted:
        out.append((arch, ','.join(rest), 1, env))
    if two:
        out.append((f'{arch}-2nodes', ','.join(two), 2, {}))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--timeout', type=int, default=1800,
                    help='limit for one guest boot, seconds')
    ap.add_argument('--host-only', action='store_true')
    ap.add_argument('--guest-only', action='store_true')
    ap.add_argument('--suites', default='', help='guest suites (default all)')
    ap.add_argument('--arch', default='um,x86_64',
                    help='guests to run the suites in (default: um,x86_64)')
    ap.add_argument('--kernel', help='the kernel image to boot (one --arch '
                    'only; default: the test kernel)')
    args = ap.parse_args()
    if args.kernel and ',' in args.arch:
        ap.error('--kernel needs a single --arch')

    reps = []
    t0 = time.monotonic()
    if not args.guest_only:
        for path in host_suites():
            print(f'# host: {os.path.relpath(path, TOP)}', flush=True)
            reps.append(runner.run_host(path, timeout=args.timeout))
    if not args.host_only:
        for arch in [a for a in args.arch.split(',') if a]:
            for name, suites, nodes, env in boots(arch, args.suites):
                print(f'# guest {name}: booting', flush=True)
                t1 = time.monotonic()
                guest.NODES = nodes
                rep = runner.run_guest(suites, timeout=args.timeout, echo='job',
                                       name=name, arch=arch, env=env,
                                       kernel=args.kernel)
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
