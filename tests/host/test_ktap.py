# SPDX-License-Identifier: GPL-2.0
"""The runner's judgement on canned output: KTAP parsing and splat finding."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'scripts'))
from ktaplib import test, main  # noqa: E402
import ktap  # noqa: E402


def parse(text):
    return ktap.parse(text.strip('\n').splitlines())


GOOD = '''
KTAP version 1
1..2
    KTAP version 1
    1..3
    ok 1 a
    # a diagnostic
    ok 2 b # SKIP not here
    ok 3 c
ok 1 suite1
    KTAP version 1
    1..1
    ok 1 d
ok 2 suite2
'''


@test
def counts_nested_leaves():
    r = parse(GOOD)
    assert r.errors == [], r.errors
    assert r.counts() == {'pass': 3, 'fail': 0, 'skip': 1}, r.counts()
    assert [p for p, _ in r.leaves()] == ['suite1.a', 'suite1.b', 'suite1.c',
                                          'suite2.d']


@test
def not_ok_is_a_failure():
    r = parse(GOOD.replace('    ok 3 c', '    not ok 3 c').replace(
        'ok 1 suite1', 'not ok 1 suite1'))
    assert r.counts()['fail'] == 1, r.counts()
    assert ('suite1.c', 'fail') in list(r.leaves())


@test
def missing_plan_is_an_error():
    r = parse('KTAP version 1\nok 1 a\n')
    assert any('no plan' in e for e in r.errors), r.errors


@test
def short_plan_is_an_error():
    r = parse('KTAP version 1\n1..3\nok 1 a\nok 2 b\n')
    assert any('plan says 3 tests, 2 reported' in e for e in r.errors), r.errors


@test
def short_nested_plan_is_an_error():
    # A suite whose program died after two of its three tests.
    r = parse('KTAP version 1\n1..1\n    KTAP version 1\n    1..3\n'
              '    ok 1 a\n    ok 2 b\nnot ok 1 suite\n')
    assert any('plan says 3 tests, 2 reported' in e for e in r.errors), r.errors
    assert r.counts()['fail'] == 1, r.counts()   # the suite itself


@test
def no_ktap_at_all_is_an_error():
    r = parse('Kernel panic - not syncing: Attempted to kill init!\n')
    assert any('no KTAP output' in e for e in r.errors), r.errors


@test
def out_of_order_numbers_are_an_error():
    r = parse('KTAP version 1\n1..2\nok 2 b\nok 1 a\n')
    assert any('out of order' in e for e in r.errors), r.errors


@test
def failed_suite_with_passing_tests_fails_once():
    r = parse('KTAP version 1\n1..1\n    KTAP version 1\n    1..1\n'
              '    ok 1 a\n# suite: exit status 139\nnot ok 1 suite\n')
    assert r.counts() == {'pass': 1, 'fail': 1, 'skip': 0}, r.counts()


SPLATS = [
    'WARNING: CPU: 0 PID: 42 at mm/memory.c:123 handle_mm_fault+0x1/0x2',
    '[   12.345678] WARNING: CPU: 1 PID: 1 at lib/foo.c:1 bar',
    'BUG: KASAN: slab-use-after-free in pgfault_read+0x10/0x20',
    'BUG: sleeping function called from invalid context at mm/memory.c:6000',
    'WARNING: possible circular locking dependency detected',
    'WARNING: possible recursive locking detected',
    'INFO: possible irq lock inversion dependency detected',
    'INFO: trying to register non-static key.',
    'INFO: task cat:55 blocked for more than 120 seconds.',
    'Kernel panic - not syncing: Segfault with no mm',
    'kernel BUG at mm/vma.c:100!',
    'Oops: general protection fault, probably for non-canonical address',
    'UBSAN: array-index-out-of-bounds in mm/foo.c:1:2',
    'DEBUG_LOCKS_WARN_ON(1)',
]


@test
def finds_every_kind_of_splat():
    for s in SPLATS:
        assert ktap.find_splats([s + '\n']) == [s], s


@test
def ignores_test_output_that_mentions_splats():
    quiet = ['    # WARNING: this is a test diagnostic',
             '# BUG: not a kernel message',
             'ok 1 no_WARNING:_here',
             'Run /init as init process',
             '    not ok 2 BUG: in the name']
    assert ktap.find_splats(quiet) == [], ktap.find_splats(quiet)


@test
def kunit_block_is_found_in_a_boot_log():
    import tempfile
    import runner
    log = ('Linux version 6.12\nKTAP version 1\n1..1\n    KTAP version 1\n'
           '    # Subtest: pgfault_history\n    1..2\n    ok 1 a\n'
           '    not ok 2 b\n# pgfault_history: pass:1 fail:1\n'
           'not ok 1 pgfault_history\nFreeing initrd memory: 4672K\n'
           'KTAP version 1\n1..1\nok 1 not_kunit\n')
    with tempfile.NamedTemporaryFile('w', suffix='.log') as f:
        f.write(log)
        f.flush()
        rep = runner.kunit_from_log(f.name)
        assert rep.leaves == [('kunit.pgfault_history.a', 'pass'),
                              ('kunit.pgfault_history.b', 'fail')], rep.leaves
        assert not rep.ok
        f.seek(0)
        f.truncate()
        f.write('Linux version 6.12\nRun /init as init process\n')
        f.flush()
        rep = runner.kunit_from_log(f.name)
        assert any('no KTAP output' in e for e in rep.errors), rep.errors


@test
def kunit_block_survives_interleaved_kernel_messages():
    # Seen on the x86_64 guest: another CPU's messages inside the block.
    import tempfile
    import runner
    log = ('[    6.54] KTAP version 1\n[    6.54] 1..1\n'
           '[    6.54]     KTAP version 1\n[    6.54]     1..2\n'
           '[    6.55] tsc: Refined TSC clocksource calibration: 2299.998 MHz\n'
           '[    6.60] clocksource: Switched to clocksource tsc\n'
           '[    6.61]     ok 1 a\n[    6.62]     ok 2 b\n'
           '[    6.63] ok 1 pgfault_history\n[    6.64] Freeing initrd memory\n'
           'KTAP version 1\n1..1\nnot ok 1 not_kunit\n')
    with tempfile.NamedTemporaryFile('w', suffix='.log') as f:
        f.write(log)
        f.flush()
        rep = runner.kunit_from_log(f.name)
        assert rep.leaves == [('kunit.pgfault_history.a', 'pass'),
                              ('kunit.pgfault_history.b', 'pass')], rep.leaves
        assert rep.ok, rep.errors


main()
