# SPDX-License-Identifier: GPL-2.0
"""The runner itself, on real guest boots: it must pass a good run and fail
a run with a crashing test, a hung guest, or a kernel WARNING, each for
the right reason. Uses tests/selftest/runner_selftest.c in the guest."""
import io
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'scripts'))
from ktaplib import test, main  # noqa: E402
import runner  # noqa: E402


def boot(tests, timeout=300, env=None):
    rep = runner.run_guest([f'runner_selftest:{tests}'], timeout=timeout,
                           echo=False, name='selftest', env=env)
    out = io.StringIO()
    rc = runner.report(rep, out=out)
    # The inner run's closing line must not read like ours.
    for line in out.getvalue().splitlines():
        print('# inner run | ' + line.replace(' passed, ', ' pass / ')
              .replace(' failed, ', ' fail / '))
    return rep, rc


@test
def good_run_passes():
    rep, rc = boot('passes')
    assert rc == 0 and rep.counts() == {'pass': 1, 'fail': 0, 'skip': 0}, rep.counts()


@test
def crashing_test_fails_the_run():
    rep, rc = boot('passes,crashes')
    assert rc != 0
    assert ('selftest.runner_selftest.crashes', 'fail') in rep.leaves, rep.leaves
    assert ('selftest.runner_selftest.passes', 'pass') in rep.leaves, rep.leaves
    assert not rep.splats, rep.splats


@test
def hung_guest_times_out():
    # The in-guest limits are lifted so that only the host's timeout acts.
    rep, rc = boot('hangs', timeout=30,
                   env={'KTAP_TIMEOUT': 100000, 'SUITE_TIMEOUT': 100000})
    assert rc != 0
    assert any('timeout after 30s' in e for e in rep.errors), rep.errors
    assert any('plan says' in e or 'no plan' in e for e in rep.errors), rep.errors


@test
def kernel_warning_fails_the_run():
    rep, rc = boot('warns')
    assert rc != 0
    assert rep.counts()['fail'] == 0, rep.leaves    # the test itself passed
    assert any('WARNING:' in s for s in rep.splats), rep.splats


main()
