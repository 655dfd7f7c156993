# SPDX-License-Identifier: GPL-2.0
"""What pgfreport html embeds is vendored, pinned and checked: every file
of tools/pgfreport/html/vendor is in its SHA256SUMS and matches it; the
versions of the packages are those the Makefile and THIRD_PARTY.md name;
the build's rules name no npm, no network fetch, outside the one explicit
target (make vendor-echarts); and the page made from them carries each
licence."""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main  # noqa: E402
from tracelib import BIN, EVERY, ended  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
VENDOR = os.path.join(TOP, 'tools', 'pgfreport', 'html', 'vendor')


def read(*path):
    with open(os.path.join(TOP, *path)) as f:
        return f.read()


@test
def every_vendored_file_is_summed_and_matches():
    sums = {}
    for line in read(VENDOR, 'SHA256SUMS').splitlines():
        digest, name = line.split(None, 1)
        sums[os.path.normpath(name)] = digest
    files = set()
    for d, _, names in os.walk(VENDOR):
        for n in names:
            rel = os.path.relpath(os.path.join(d, n), VENDOR)
            if rel != 'SHA256SUMS':
                files.add(rel)
    assert files == set(sums), (files ^ set(sums))
    for rel, digest in sums.items():
        with open(os.path.join(VENDOR, rel), 'rb') as f:
            assert hashlib.sha256(f.read()).hexdigest() == digest, rel


@test
def versions_are_those_the_makefile_and_the_notes_name():
    want = re.search(r'^ECHARTS_VERSION := (\S+)$', read('Makefile'), re.M).group(1)
    notes = read('tools', 'pgfreport', 'html', 'THIRD_PARTY.md')
    for pkg in ('echarts', 'zrender', 'tslib'):
        meta = json.loads(read(VENDOR, pkg, 'package.json'))
        assert meta['name'] == pkg, meta['name']
        row = [l for l in notes.splitlines() if l.startswith('| ') and
               (pkg in l.split('|')[1].lower())]
        assert row and f'| {meta["version"]} ' in row[0], (pkg, meta['version'], row)
        if pkg == 'echarts':
            assert meta['version'] == want, (meta['version'], want)


@test
def the_build_fetches_nothing():
    make = read('Makefile')
    rules = re.split(r'\n(?=\S)', make)
    for r in rules:
        for line in r.split('\n')[1:]:
            cmd = line.strip().lstrip('@-+')
            if line.startswith('\t') and not cmd.startswith('echo ') and \
                    re.search(r'\b(npm|npx|curl|wget)\s', cmd):
                assert r.startswith('vendor-echarts:'), \
                    'a fetch outside make vendor-echarts:\n' + line
    assert not re.search(r'\bnpm\b', read('scripts', 'host-deps.sh')), \
        'host-deps installs npm'
    # the assets' rule checks the sums before it embeds
    assets = [r for r in rules if r.startswith('$(HTML_ASSETS):')][0]
    assert 'sha256sum --quiet -c SHA256SUMS' in assets, assets


@test
def the_page_carries_each_licence():
    with tempfile.TemporaryDirectory() as d:
        trace = os.path.join(d, 't.trace')
        with open(trace, 'w') as f:
            f.write(ended(EVERY))
        page = os.path.join(d, 'r.html')
        p = subprocess.run([os.path.join(BIN, 'pgfreport'), 'html', '-o', page,
                            trace], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        with open(page) as f:
            html = f.read()
    lic = re.search(r'<script type="text/plain" id="pgf-licences">(.*?)</script>',
                    html, flags=re.S).group(1)
    for words in ('==== echarts 6.1.0 (Apache-2.0)', '==== zrender 6.1.0 (BSD-3-Clause)',
                  '==== tslib 2.3.0 (0BSD)', 'Apache License'):
        assert words in lic, words
    with open(os.path.join(VENDOR, 'echarts', 'dist', 'echarts.min.js')) as f:
        assert f.read() in html, 'the page does not hold the vendored echarts'


if __name__ == '__main__':
    main()
