# SPDX-License-Identifier: GPL-2.0
"""The series on upstream Linux 6.12 (make check-vanilla): applied to the
tree of an upstream tarball, the UML test kernel built from it, the guest
suites run in it once.

Fetching and building take long, so this runs only when an upstream
tarball is already in build/upstream (linux-6.12*.tar.xz, as Debian's
linux-6.12 source package carries it) or PGF_VANILLA names one; otherwise
it skips and says how to run it (make check-vanilla)."""
import glob
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main, Skip  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))


@test
def series_applies_builds_and_passes_on_upstream():
    src = os.environ.get('PGF_VANILLA') or \
        (sorted(glob.glob(os.path.join(TOP, 'build/upstream/linux-6.12*.tar.xz')))
         or [''])[-1]
    if not src:
        raise Skip('no upstream tarball in build/upstream: '
                   'make check-vanilla [VANILLA=...] fetches or takes one')
    p = subprocess.run(['scripts/check-vanilla.sh', src], cwd=TOP,
                       capture_output=True, text=True, timeout=5400)
    tail = (p.stdout + p.stderr)[-3000:]
    assert p.returncode == 0, tail
    assert 'check-vanilla: built from 6.12' in p.stdout, tail
    assert ' 0 failed' in p.stdout, tail


if __name__ == '__main__':
    main()
