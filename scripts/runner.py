# SPDX-License-Identifier: GPL-2.0
"""Run test suites (host programs, or the guest) and judge the outcome.

A run fails on: any "not ok", a missing or short KTAP plan, a timeout, a
guest that never reported its status, or a kernel splat anywhere in the
console log or the guest's dmesg.
"""

import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap      # noqa: E402
import guest     # noqa: E402


class Report:
    def __init__(self, name):
        self.name = name
        self.leaves = []     # (path, 'pass'|'fail'|'skip')
        self.errors = []     # problems with the run itself
        self.splats = []
        self.log = None

    def counts(self):
        c = {'pass': 0, 'fail': 0, 'skip': 0}
        for _, s in self.leaves:
            c[s] += 1
        return c

    @property
    def ok(self):
        return not self.errors and not self.splats and self.counts()['fail'] == 0

    def add_ktap(self, text, where):
        res = ktap.parse(text.splitlines(), where)
        self.leaves += [(f'{self.name}.{p}', s) for p, s in res.leaves()]
        self.errors += res.errors


def run_guest(suites=(), timeout=1800, echo=True, name='guest', env=None,
              arch='um', kernel=None):
    """Boot the guest, run suites (default all), return a Report."""
    if isinstance(suites, str):
        suites = [s for s in suites.replace(',', ' ').split() if s]
    files = {'suites': ' '.join(suites) + '\n'}
    if env:
        # Quoted: EXCLUDE_SUITES is a list.
        files['env'] = ''.join(f'export {k}={shlex.quote(str(v))}\n'
                               for k, v in env.items())
    jobdir = guest.new_job('test', **files)
    res = guest.boot(jobdir, share=guest.SHARE, timeout=timeout, echo=echo,
                     log_name=f'{name}-{os.path.basename(jobdir)}',
                     arch=arch, kernel=kernel)
    rep = Report(name)
    rep.log = res.log
    rep.where = res.where
    rep.add_ktap(res.read('ktap') or '', name)
    if res.timed_out:
        rep.errors.append(f'{name}: timeout after {timeout}s, guest killed')
    elif res.status is None:
        rep.errors.append(f'{name}: the guest stopped without finishing the job '
                          f'({res.where} exit code {res.returncode})')
    with open(res.log, errors='replace') as f:
        console = f.readlines()
    dmesg = (res.read('dmesg') or '').splitlines()
    seen = set()
    for line in ktap.find_splats(console) + ktap.find_splats(dmesg):
        key = line.split(']', 1)[-1].strip()
        if key not in seen:
            seen.add(key)
            rep.splats.append(line)
    # Keep the job's files next to the log for post-mortems.
    with open(res.log, 'a') as f:
        f.write('\n# ---- guest dmesg ----\n')
        f.write('\n'.join(dmesg) + '\n')
    return rep


_KTAP_LINE = re.compile(r'^(\s|ok |not ok |#|1\.\.|KTAP version)')


def kunit_from_log(log, name='kunit'):
    """The KUnit results the kernel printed at boot, from a console log.

    The test kernel runs its KUnit suites built in, before init; their KTAP
    is one block in the log, from "KTAP version" to as many top-level
    results as its plan says. Other kernel messages printed meanwhile (from
    other CPUs) are interleaved with it and skipped. No block at all is an
    error.
    """
    block = []
    plan = done = None
    with open(log, errors='replace') as f:
        for line in f:
            line = re.sub(r'^\[[ 0-9.]+\]\s?', '', line.rstrip('\n'))
            if not block:
                if line.startswith('KTAP version'):
                    block.append(line)
                continue
            if not _KTAP_LINE.match(line):
                continue
            block.append(line)
            m = re.match(r'^1\.\.(\d+)', line)
            if m and plan is None:
                plan, done = int(m.group(1)), 0
            elif re.match(r'^(ok|not ok) ', line) and plan is not None:
                done += 1
                if done >= plan:
                    break
    rep = Report(name)
    rep.log = log
    rep.add_ktap('\n'.join(block), name)
    return rep


def run_host(path, timeout=600, name=None):
    """Run one host-side test program that prints KTAP; return a Report."""
    name = name or os.path.splitext(os.path.basename(path))[0]
    rep = Report(name)
    argv = [sys.executable, path] if path.endswith('.py') else [path]
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        out = p.stdout.decode(errors='replace')
        rc = p.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b'').decode(errors='replace')
        rep.errors.append(f'{name}: timeout after {timeout}s')
        rc = None
    sys.stdout.write(out)
    rep.add_ktap(out, name)
    if rc not in (0, None) and not rep.errors and rep.counts()['fail'] == 0:
        rep.errors.append(f'{name}: exit status {rc} although every test passed')
    return rep


def report(*reps, out=sys.stdout):
    """Print failures and the closing line; return the exit status."""
    total = {'pass': 0, 'fail': 0, 'skip': 0}
    bad = False
    for rep in reps:
        for k, v in rep.counts().items():
            total[k] += v
        for path, s in rep.leaves:
            if s == 'fail':
                print(f'FAILED: {path}', file=out)
        for e in rep.errors:
            print(f'ERROR: {e}', file=out)
        for s in rep.splats:
            print(f'KERNEL SPLAT: {s}', file=out)
        if rep.log and not rep.ok:
            print(f'  full console log: {rep.log}', file=out)
        bad |= not rep.ok
    # Errors and splats are failures of the run even if no test said so.
    extra = sum(len(r.errors) + (1 if r.splats else 0) for r in reps)
    print(f"{total['pass']} passed, {total['fail'] + extra} failed, "
          f"{total['skip']} skipped", file=out)
    return 1 if bad else 0
