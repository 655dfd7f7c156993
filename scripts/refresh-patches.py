#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Rewrite the diffs of kernel-patches/ as git writes them.

After editing a patch by hand (a hunk's lines, a file dropped or added, a
patch moved in the series), this regenerates the diff part of every patch
whose text would change: real index lines against the right blobs, hunk
headers and counts, the diffstat. The messages stay as they are.

The base is the unpacked tree (build/linux-src) with the series that is
applied there reverted: kernel-patches/ as committed at HEAD, which is
what `make` last applied (pass --applied REV if the tree holds another).
The series as it is now in the working tree is then applied in order,
with patch(1)'s fuzz, and each patch's diff is taken from git.

Patch files keep no trailing whitespace (a blank context line is empty,
the signature separator is "--"): checkpatch reads a patch file that git
tracks as source and would call those lines errors; patch(1), git
mailinfo and mkpatches.sh take them as they are.

  refresh-patches.py [--applied REV] [PATCH...]   (default: all)
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
TREE = os.path.join(TOP, 'build', 'linux-src')


def run(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


def names(text):
    return [ln.split('#')[0].strip() for ln in text.splitlines() if ln.split('#')[0].strip()]


def touched(text):
    return sorted(set(re.findall(r'^\+\+\+ b/(\S+)', text, re.M)))


def patch(work, text, reverse=False):
    cmd = ['patch', '-d', work, '-p1', '-s', '-f', '-E', '--no-backup-if-mismatch']
    if reverse:
        cmd.append('-R')
    return subprocess.run(cmd, input=text, capture_output=True, text=True)


def strip(text):
    out = []
    for ln in text.split('\n'):
        out.append('' if ln == ' ' else '--' if ln == '-- ' else ln)
    return '\n'.join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--applied', default='HEAD')
    ap.add_argument('only', nargs='*')
    a = ap.parse_args()
    pdir = os.path.join(TOP, 'kernel-patches')
    git = ['git', '-C', TOP]
    old = names(run(*git, 'show', f'{a.applied}:kernel-patches/series'))
    olds = {n: run(*git, 'show', f'{a.applied}:kernel-patches/{n}') for n in old}
    new = names(open(os.path.join(pdir, 'series')).read())
    news = {n: open(os.path.join(pdir, n)).read() for n in new}
    files = sorted({f for t in list(olds.values()) + list(news.values()) for f in touched(t)})
    work = tempfile.mkdtemp(prefix='refresh-patches.')
    try:
        for f in files:
            if os.path.exists(os.path.join(TREE, f)):
                os.makedirs(os.path.dirname(os.path.join(work, f)), exist_ok=True)
                shutil.copy(os.path.join(TREE, f), os.path.join(work, f))
        for n in reversed(old):
            r = patch(work, olds[n], reverse=True)
            if r.returncode:
                sys.exit(f'refresh-patches: cannot revert {n} ({a.applied}) from '
                         f'{TREE}:\n{r.stdout}{r.stderr}')
        run('git', 'init', '-q', work)
        run('git', '-C', work, 'add', '-A')
        ident = ['-c', 'user.name=refresh', '-c', 'user.email=refresh@localhost']
        run('git', '-C', work, *ident, 'commit', '-q', '-m', 'base')
        for n in new:
            text = news[n]
            r = patch(work, text)
            if r.returncode:
                sys.exit(f'refresh-patches: {n} does not apply:\n{r.stdout}{r.stderr}')
            run('git', '-C', work, 'add', '-A')
            if not a.only or n in a.only:
                diff = run('git', '-C', work, 'diff', '--cached', '--no-color')
                stat = run('git', '-C', work, 'diff', '--cached', '--stat', '--summary')
                head = text.partition('\n---\n')[0]
                m = re.search(r'\n(--\s?\n[\d.]+\n?)\s*$', text)
                trailer = m.group(1) if m else '--\n2.39.5\n'
                out = strip(head + '\n---\n' + stat + '\n' + diff + trailer)
                if not out.endswith('\n'):
                    out += '\n'
                if out != text:
                    with open(os.path.join(pdir, n), 'w') as f:
                        f.write(out)
                    print(f'refresh-patches: rewrote {n}')
            run('git', '-C', work, *ident, 'commit', '-q', '--allow-empty', '-m', n)
    finally:
        shutil.rmtree(work)
    return 0


if __name__ == '__main__':
    sys.exit(main())
