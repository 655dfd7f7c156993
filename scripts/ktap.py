# SPDX-License-Identifier: GPL-2.0
"""Parse KTAP (Documentation/dev-tools/ktap.rst) and find kernel splats.

parse(lines) returns a Result whose leaves are the individual tests; a
suite that reports subtests counts as its subtests. Problems with the
stream itself (no header, no plan, fewer results than planned, numbering
out of order) are errors, and a run with any error fails.
"""

import re

_VERSION = re.compile(r'^(KTAP version \d+|TAP version \d+)\s*$')
_PLAN = re.compile(r'^1\.\.(\d+)\s*$')
_RESULT = re.compile(
    r'^(ok|not ok)\s+(\d+)(?:\s+-)?\s*([^#]*?)\s*(?:#\s*(SKIP|TODO)\b\s*(.*))?$',
    re.IGNORECASE)
INDENT = '    '


class Test:
    def __init__(self, name, ok, number, directive=None, reason=''):
        self.name = name
        self.ok = ok
        self.number = number
        self.skip = directive is not None and directive.upper() == 'SKIP'
        self.reason = reason
        self.children = []      # Test objects of a subtest document
        self.diags = []         # '# ...' lines before this result

    def leaves(self, prefix=''):
        """Yield (path, status) for each leaf; status pass|fail|skip."""
        path = prefix + self.name
        if not self.children:
            yield path, 'skip' if self.skip else ('pass' if self.ok else 'fail')
            return
        for c in self.children:
            yield from c.leaves(path + '.')
        # A suite that failed while all its tests passed (it crashed or
        # returned non-zero outside a test) still fails, once.
        if not self.ok and all(s != 'fail' for _, s in
                               (x for c in self.children for x in c.leaves())):
            yield path + '.<suite>', 'fail'


class Result:
    def __init__(self):
        self.tests = []
        self.errors = []

    def leaves(self):
        for t in self.tests:
            yield from t.leaves()

    def counts(self):
        c = {'pass': 0, 'fail': 0, 'skip': 0}
        for _, s in self.leaves():
            c[s] += 1
        return c


def _parse_doc(lines, i, indent, where, errors):
    """Parse one KTAP document whose version line is lines[i]."""
    i += 1
    plan = None
    tests = []
    sub = None
    diags = []
    while i < len(lines):
        line = lines[i].rstrip('\r\n')
        if line.strip() == '':
            i += 1
            continue
        if not line.startswith(indent) and indent:
            break
        rest = line[len(indent):]
        if rest.startswith(INDENT) and _VERSION.match(rest[len(INDENT):]):
            sub_errors = []
            sub, i = _parse_doc(lines, i, indent + INDENT, where, sub_errors)
            errors.extend(sub_errors)
            continue
        if rest.startswith(' '):
            i += 1           # deeper output that is not a subtest: ignore
            continue
        if _VERSION.match(rest):
            break            # a new document at this level
        m = _PLAN.match(rest)
        if m:
            if plan is not None:
                errors.append(f'{where}: second plan line "{rest}"')
            plan = int(m.group(1))
            i += 1
            continue
        m = _RESULT.match(rest)
        if m:
            t = Test(m.group(3) or f'test{m.group(2)}', m.group(1).lower() == 'ok',
                     int(m.group(2)), m.group(4), m.group(5) or '')
            if t.number != len(tests) + 1:
                errors.append(f'{where}: result "{rest}" out of order, '
                              f'expected number {len(tests) + 1}')
            if sub is not None:
                t.children = sub
                sub = None
            t.diags = diags
            diags = []
            tests.append(t)
            i += 1
            continue
        if rest.startswith('#'):
            diags.append(rest)
        i += 1
    name = where + (f' (indent {len(indent)})' if indent else '')
    if plan is None:
        errors.append(f'{name}: no plan line')
    elif len(tests) != plan:
        errors.append(f'{name}: plan says {plan} tests, {len(tests)} reported')
    if sub is not None:
        errors.append(f'{name}: subtest document without a result line')
    return tests, i


def parse(lines, where='ktap'):
    """Parse every top-level KTAP document in lines."""
    res = Result()
    i = 0
    found = False
    while i < len(lines):
        if _VERSION.match(lines[i].rstrip('\r\n')):
            found = True
            tests, i = _parse_doc(lines, i, '', where, res.errors)
            res.tests.extend(tests)
        else:
            i += 1
    if not found:
        res.errors.append(f'{where}: no KTAP output (no "KTAP version" line)')
    return res


# What the kernel prints when something is wrong, at the start of a line or
# after the printk timestamp. Lockdep reports start "WARNING: possible ..."
# or "INFO: ...", KASAN's "BUG: KASAN: ...", sleeping in atomic context
# "BUG: sleeping function called ...".
_SPLAT = re.compile(
    r'(?:^|^\[[ 0-9.]+\]\s*)('
    r'WARNING:|BUG:|kernel BUG at|Kernel panic|Oops:|general protection fault|'
    r'UBSAN:|DEBUG_LOCKS_WARN_ON|'
    r'INFO: (?:possible|inconsistent|trying to register|task \S+ blocked)'
    r')')


def find_splats(lines):
    """Return the lines that start a kernel splat report."""
    return [ln.rstrip('\r\n') for ln in lines if _SPLAT.search(ln)]
