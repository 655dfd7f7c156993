# SPDX-License-Identifier: GPL-2.0
"""A KTAP harness for host-side Python tests.

    from ktaplib import test, main
    @test
    def parses_plan(): assert ...
    main()

Each test is a function; an AssertionError or any exception fails it,
raising Skip skips it. Output is KTAP; the exit status is 1 if any failed.
"""
import sys
import traceback

_tests = []


class Skip(Exception):
    pass


def test(fn):
    _tests.append(fn)
    return fn


def main():
    only = sys.argv[1:]
    sel = [t for t in _tests if not only or t.__name__ in only]
    print('KTAP version 1')
    print(f'1..{len(sel)}', flush=True)
    failed = 0
    for i, t in enumerate(sel, 1):
        try:
            t()
        except Skip as e:
            print(f'ok {i} {t.__name__} # SKIP {e}', flush=True)
            continue
        except Exception:
            for line in traceback.format_exc().rstrip().splitlines():
                print(f'# {line}')
            print(f'not ok {i} {t.__name__}', flush=True)
            failed += 1
            continue
        print(f'ok {i} {t.__name__}', flush=True)
    sys.exit(1 if failed else 0)
