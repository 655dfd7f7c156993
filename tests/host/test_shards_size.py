# SPDX-License-Identifier: GPL-2.0
"""pgfreport mrc --shards-size PAGES (fixed-size SHARDS, LRU alone) on
generated traces (gentrace), against the exact LRU column of pgfreport mrc
--sizes at the same sizes: with room for every page, equal at sizes below
4096 and within the binning's 1/256 above; with a sample of 8192 pages
(about 5%), close; the other policies' columns are '-' and the plot draws LRU
alone; bad sizes, and --shards with it, are refused."""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main  # noqa: E402
from tracelib import gentrace, pgfreport as run  # noqa: E402


def rows(out):
    """{size: the row's fields} of the table."""
    return {int(line.split()[0]): line.split()
            for line in out.splitlines() if not line.startswith('#')}


def info(out, start):
    return next(line for line in out.splitlines() if line.startswith(start))


def fixed(d, n, pages, *args):
    """mrc --shards-size @pages on a generated trace of @n faults: (the
    trace, the output, its SHARDS line, its final rate)."""
    t = gentrace(d, n)
    rc, out, err = run('mrc', '--shards-size', str(pages), *args, t)
    assert rc == 0, err
    line = info(out, '# SHARDS of a fixed size')
    return t, out, line, float(re.search(r'ended at rate ([0-9.]+):', line).group(1))


def exact_lru(path, sizes):
    """{size: LRU misses} of the exact curves."""
    rc, out, err = run('mrc', '--sizes', ','.join(map(str, sizes)), path)
    assert rc == 0, err
    return {s: int(r[6]) for s, r in rows(out).items()}


@test
def with_room_for_every_page_it_is_the_exact_curve():
    with tempfile.TemporaryDirectory() as d:
        t, out, line, rate = fixed(d, 200000, 1000000)
        assert rate == 1, line
        got = rows(out)
        # the default sizes, from 128 up (as --shards's), and small ones asked for
        assert len(got) > 8 and min(got) == 128, got
        rc, out, err = run('mrc', '--shards-size', '1000000', '--sizes',
                           '1,3,100,4095,4096,5000,20000,50000,90000', t)
        assert rc == 0, err
        got.update(rows(out))
        want = exact_lru(t, got)
        for s, r in got.items():
            assert r[3:6] == ['-', '-', '-'] and r[7:] == ['-'] * 3, r
            if s < 4096:
                assert int(r[6]) == want[s], (s, r, want[s])
            else:
                assert abs(int(r[6]) - want[s]) <= want[s] / 256, (s, r, want[s])
        # the second sample is as exact: no difference
        assert 'differs by 0.0000 on average' in out, out


@test
def a_sample_of_8192_pages_is_close():
    # gentrace 400,000: about 167,000 pages; 8192 of them is a rate near 5%
    with tempfile.TemporaryDirectory() as d:
        t, out, line, rate = fixed(d, 400000, 8192)
        assert 0.03 < rate < 0.1, line
        assert ' 8192 pages kept' in line, line
        got = rows(out)
        want = exact_lru(t, got)
        refs = 400000
        err_sum = sum(abs(int(r[6]) - want[s]) / refs for s, r in got.items())
        mean = err_sum / len(got)
        print(f'# --shards-size 8192 at rate {rate:.4f}: mean absolute error '
              f'{mean:.4f} over {len(got)} sizes')
        # measured 0.0056; the bound is the unit test's at 8192 pages
        assert mean < 0.015, (mean, got, want)
        # default sizes start where the sample cache holds 128 pages
        assert min(got) * rate >= 127.5, (min(got), rate)
        est = info(out, '# error estimate')
        assert 'over the sizes)' in est, est


@test
def sizes_asked_for_and_the_plot():
    with tempfile.TemporaryDirectory() as d:
        t = gentrace(d, 100000)
        svg = os.path.join(d, 'm.svg')
        rc, out, err = run('mrc', '--shards-size', '4096', '--sizes',
                           '100,5000,20000', '--plot', svg, t)
        assert rc == 0, err
        assert sorted(rows(out)) == [100, 5000, 20000], out
        with open(svg) as f:
            s = f.read()
        assert 'LRU (sampled)' in s and 'FIFO (sampled)' not in s and \
            'OPT (sampled)' not in s, s[:2000]
        # --shards --plot draws its four sampled curves
        rc, out, err = run('mrc', '--shards', '0.5', '--plot', svg, t)
        assert rc == 0, err
        with open(svg) as f:
            s = f.read()
        assert 'OPT (sampled)' in s and 'LRU (sampled)' in s, s[:2000]


@test
def bad_sizes_and_both_kinds_are_refused():
    with tempfile.TemporaryDirectory() as d:
        t = gentrace(d, 1000)
        for bad in ('0', '-5', 'x', '12k', '', '1073741825',
                    '99999999999999999999999'):
            rc, out, err = run('mrc', '--shards-size', bad, t)
            assert rc == 2 and out == '' and \
                f"--shards-size: '{bad}' is not a number of sampled pages" in err, \
                (bad, rc, err)
        for args in (['--shards', '0.1', '--shards-size', '100'],
                     ['--shards-size', '100', '--shards', '0.1']):
            rc, out, err = run('mrc', *args, t)
            assert rc == 2 and out == '' and \
                '--shards and --shards-size: one or the other' in err, (args, err)
        rc, out, _ = run('mrc', '--help')
        assert rc == 0 and '--shards-size PAGES' in out, out


main()
