# SPDX-License-Identifier: GPL-2.0
"""The benchmarks document holds the last run of each benchmark, made by
scripts/benchdoc.py from the JSON the benchmarks write
(scripts/benchjson.py), each with its host, date and commit; and the
documents narrate no history (dates and issue numbers belong in git log,
but for a long target's "Last result")."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
DOC = os.path.join(TOP, 'Documentation', 'benchmarks.md')
BENCHDOC = os.path.join(TOP, 'scripts', 'benchdoc.py')
sys.path.insert(0, os.path.join(TOP, 'scripts'))
import benchdoc  # noqa: E402
import benchjson  # noqa: E402

DATE = r'20\d\d-[01]\d-[0-3]\d'


def run(*args):
    return subprocess.run([sys.executable, BENCHDOC, *args], capture_output=True,
                          text=True, timeout=60)


def sections(text):
    _, old, _ = benchdoc.split_doc(text)
    return old


@test
def a_run_s_json_becomes_its_section():
    with tempfile.TemporaryDirectory() as d:
        doc = os.path.join(d, 'b.md')
        shutil.copy(DOC, doc)
        before = sections(open(doc).read())
        table = {'title': 'a | title', 'head': ['figure', 'boot 1'],
                 'rows': [['anon', '1.051'], ['zero', '1.312']], 'note': 'no records lost'}
        with open(os.path.join(d, 'icount.json'), 'w') as f:
            json.dump({'name': 'icount', 'command': 'make bench-icount',
                       'commit': 'abc1234', 'date': '2031-01-02 03:04',
                       'host': benchjson.host(), 'tables': [table]}, f)
        p = run('--json', d, '--doc', doc)
        assert p.returncode == 0, p.stderr
        after = sections(open(doc).read())
        text = '\n'.join(after['icount'])
        assert text.startswith('### `make bench-icount`: icount'), text
        assert f'Host: {benchjson.host().rsplit(", load", 1)[0]}' in text, text
        assert 'Run: 2031-01-02 03:04, commit `abc1234`.' in text, text
        assert '**a \\| title**' in text and '| anon | 1.051 |' in text and \
            '| zero | 1.312 |' in text and 'no records lost' in text, text
        # the others: as the document had them
        for name in before:
            if name != 'icount':
                assert after[name] == before[name], name
        # the document is what the runs give, until a run changes
        assert run('--json', d, '--doc', doc, '--check').returncode == 0
        table['rows'][0][1] = '1.052'
        with open(os.path.join(d, 'icount.json'), 'w') as f:
            json.dump({'name': 'icount', 'command': 'make bench-icount',
                       'commit': 'abc1234', 'date': '2031-01-02 03:04',
                       'host': 'h', 'tables': [table]}, f)
        p = run('--json', d, '--doc', doc, '--check')
        assert p.returncode == 1 and 'make bench-doc' in p.stderr, p
        # a shell script's tables: benchjson.py NAME COMMAND TSV...
        tsv = os.path.join(d, '1.tsv')
        with open(tsv, 'w') as f:
            f.write('# pgfreport on x\ncommand\ttext_s\nread\t0.10\nsummary\t0.20\n')
        p = subprocess.run([sys.executable, os.path.join(TOP, 'scripts', 'benchjson.py'),
                            'tools-test', 'make bench-report', tsv],
                           capture_output=True, text=True, timeout=60)
        path = os.path.join(TOP, 'build', 'bench', 'tools-test.json')
        try:
            assert p.returncode == 0, p.stderr
            got = json.load(open(path))
            assert got['tables'] == [{'title': 'pgfreport on x',
                                      'head': ['command', 'text_s'],
                                      'rows': [['read', '0.10'], ['summary', '0.20']]}]
            assert re.fullmatch(DATE + r' \d\d:\d\d', got['date']) and got['host'] \
                and got['commit'], got
        finally:
            for f in os.listdir(os.path.dirname(path)):
                if f.startswith('tools-test'):
                    os.unlink(os.path.join(os.path.dirname(path), f))
        with open(tsv, 'w') as f:
            f.write('# t\na\tb\n1\n')
        p = subprocess.run([sys.executable, os.path.join(TOP, 'scripts', 'benchjson.py'),
                            'tools-test', 'x', tsv], capture_output=True, text=True,
                           timeout=60)
        assert p.returncode == 1 and 'not the header' in p.stderr, p


@test
def the_document_holds_the_last_run_of_every_benchmark():
    got = sections(open(DOC).read())
    for name, _ in benchdoc.BENCHES:
        assert name in got, f'benchmarks.md has no section of {name}'
        text = '\n'.join(got[name])
        assert re.search(r'\nHost: \d+ CPUs, .+\. Run: ' + DATE +
                         r' \d\d:\d\d, commit `[0-9a-f]{7,}\+?`\.\n', text), text
        assert re.search(r'\n\| .+ \|\n\|( --- \|)+\n\| ', text), (name, 'no table')


@test
def the_documents_narrate_no_history():
    docs = [os.path.join(TOP, 'README.md')] + [
        os.path.join(TOP, 'Documentation', f) for f in
        sorted(os.listdir(os.path.join(TOP, 'Documentation'))) if f.endswith('.md')]
    for path in docs:
        text = open(path).read()
        if path == DOC:
            head, _, tail = benchdoc.split_doc(text)
            text = head + tail
        for n, line in enumerate(text.splitlines(), 1):
            if re.search(DATE, line):
                # a long target's last result says when it ran
                assert 'Last result' in line or 'Last result' in \
                    text.splitlines()[n - 2], (os.path.relpath(path, TOP), n, line)
            assert not re.search(r'\b(issue|stop) \d+\b', line, re.I), \
                (os.path.relpath(path, TOP), n, line)


if __name__ == '__main__':
    main()
