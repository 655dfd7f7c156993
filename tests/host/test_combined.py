# SPDX-License-Identifier: GPL-2.0
"""Several reports on one pass (tools/pgfreport/report.c): pgfreport
A+B+C prints exactly what A, B and C print alone, each under a
"# ==== NAME" line, in the order given; an option goes to each of them
that has it; a command that cannot share a pass, one named twice, or one
alone is refused; --help shows each command's usage."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
BIN = os.path.join(TOP, 'build', 'host', 'bin')


def run(*args):
    p = subprocess.run([os.path.join(BIN, 'pgfreport'), *args],
                       capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def generated(d, n=40000):
    path = os.path.join(d, 'g.trace')
    with open(path, 'w') as f:
        subprocess.run([os.path.join(BIN, 'gentrace'), str(n)], stdout=f,
                       check=True, timeout=120)
    return path


@test
def one_pass_prints_what_each_prints_alone():
    with tempfile.TemporaryDirectory() as d:
        t = generated(d)
        for combo in (['mrc', 'hot', 'wss'],
                      ['summary', 'map', 'reuse', 'tlb', 'prefetch', 'timeline',
                       'symbols']):
            want = []
            for c in combo:
                rc, out, err = run(c, t)
                assert rc == 0, (c, err)
                want.append(f'# ==== {c}\n{out}')
            rc, out, err = run('+'.join(combo), t)
            assert rc == 0, err
            assert out == '\n'.join(want), combo


@test
def an_option_goes_to_each_command_that_has_it():
    with tempfile.TemporaryDirectory() as d:
        t = generated(d)
        rc, out, err = run('mrc+hot', '--sizes', '1,64', '--top', '3', t)
        assert rc == 0, err
        alone = run('mrc', '--sizes', '1,64', t)[1] + '\n' + \
            run('hot', '--top', '3', t)[1]
        assert out == '# ==== mrc\n' + alone.replace('\n\n', '\n\n# ==== hot\n', 1), out
        # --space goes to map and summary alike
        rc, out, err = run('map+summary', '--space', '0', t)
        assert rc == 0, err
        assert out == '# ==== map\n' + run('map', '--space', '0', t)[1] + \
            '\n# ==== summary\n' + run('summary', '--space', '0', t)[1]


@test
def bad_combinations_are_refused():
    for args, words in ((['mrc+mrc'], 'mrc twice'),
                        (['mrc+export'], "'export' cannot share a pass"),
                        (['mrc+'], 'name two commands or more'),
                        (['mrc+hot', '-n', '3'], "unknown option '-n'"),
                        (['mrc+hot', '--width', '3'], "unknown option '--width'"),
                        (['samples+mrc'], "'samples' cannot share a pass")):
        rc, out, err = run(*args, '/dev/null')
        assert rc == 2 and out == '', (args, out)
        assert words in err, (args, err)
    rc, out, err = run('mrc+hot', '--help')
    assert rc == 0 and '==== mrc' in out and '==== hot' in out and \
        '--sizes LIST' in out and '--top N' in out, out


main()
