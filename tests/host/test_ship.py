# SPDX-License-Identifier: GPL-2.0
"""Shipping: the kernel documentation builds, the series goes out as mail
and passes checkpatch, the tools install (make install, make deb) and say
what they need, and a no-op `make run` builds nothing.

Runs after `make all` (as scripts/run-tests.py does, from `make test`):
the unpacked tree, the kernels and the host tools exist. Runs as a KTAP
suite (python3 tests/host/test_ship.py) and under pytest."""
import glob
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test as ktap_test, main, Skip  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.path.join(TOP, 'build')


def make(*args, timeout=900):
    p = subprocess.run(['make', '--no-print-directory', *args], cwd=TOP,
                       capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def series():
    with open(os.path.join(TOP, 'kernel-patches', 'series')) as f:
        return [ln.split('#')[0].strip() for ln in f
                if ln.split('#')[0].strip()]


def stage_commits():
    """The #@stage lines that are commits of their own (a message file)."""
    with open(os.path.join(TOP, 'kernel-patches', 'series')) as f:
        return [ln.split()[2] for ln in f
                if ln.startswith('#@stage') and len(ln.split()) == 3]


def test(fn):
    globals()['test_' + fn.__name__] = fn
    return ktap_test(fn)


@test
def docs_build_without_warnings():
    docs = sorted(glob.glob(os.path.join(TOP, 'Documentation', '**', '*.rst'),
                            recursive=True))
    assert len(docs) >= 2, docs
    rc, out, err = make('-B', 'docs')
    assert rc == 0, out + err
    for d in docs:
        html = os.path.join(BUILD, 'docs', os.path.relpath(
            d, os.path.join(TOP, 'Documentation')))[:-4] + '.html'
        assert os.path.getsize(html) > 1000, html
    # docutils halts on a warning: a broken page must fail the build.
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, 'bad.rst')
        with open(bad, 'w') as f:
            f.write('Title\n=\n\nA `broken link_.\n')
        p = subprocess.run(['/usr/bin/python3', '-m', 'docutils', '--halt=warning',
                            bad, os.path.join(tmp, 'bad.html')],
                           capture_output=True, text=True)
        assert p.returncode != 0, p.stderr


@test
def documentation_is_added_and_linked_by_the_series():
    # Each page is named in its index by a patch, and the tree has them.
    text = ''.join(open(os.path.join(TOP, 'kernel-patches', p)).read()
                   for p in series())
    for page, index in (('admin-guide/mm/pgfault_history.rst',
                         'admin-guide/mm/index.rst'),
                        ('mm/pgfault_history.rst', 'mm/index.rst')):
        assert os.path.exists(os.path.join(TOP, 'Documentation', page)), page
        assert os.path.exists(os.path.join(BUILD, 'linux-src',
                                           'Documentation', page)), page
        assert f'+++ b/Documentation/{index}' in text, index
        assert re.search(r'^\+   pgfault_history$', text, re.M)
    assert re.search(r'^\+0xB9 .*uapi/linux/pgfault_history\.h', text, re.M)
    with open(os.path.join(TOP, 'include/uapi/linux/pgfault_history.h')) as f:
        assert '_IO(0xB9,' in f.read()


def touched(text):
    return set(re.findall(r'^\+\+\+ b/(\S+)', text, re.M))


@test
def patches_are_mail_that_checkpatch_accepts():
    rc, out, err = make('patches', timeout=1200)
    assert rc == 0, out + err
    assert 'checkpatch --strict is clean on every patch' in out, out + err
    um = sorted(glob.glob(os.path.join(BUILD, 'patches', 'um', '*.patch')))
    files = sorted(glob.glob(os.path.join(BUILD, 'patches', 'pgfault_history',
                                          '*.patch')))
    assert not glob.glob(os.path.join(BUILD, 'patches', '*.patch'))
    # The UML fixes are a series of their own: the patches of the series
    # that touch arch/um alone, each naming the commit it fixes.
    src = {p: open(os.path.join(TOP, 'kernel-patches', p)).read()
           for p in series()}
    um_src = [p for p in series()
              if all(f.startswith(('arch/um/', 'arch/x86/um/'))
                     for f in touched(src[p]))]
    assert len(um_src) >= 4, um_src
    assert len(um) == len(um_src) + 1, (um, um_src)
    for i, f in enumerate(um[1:], 1):
        t = open(f).read()
        assert re.search(r'^Subject: \[PATCH %d/%d\] um: ' % (i, len(um) - 1),
                         t, re.M), f
        assert re.search(r'^Fixes: [0-9a-f]{12} \("[^"]+"\)$', t, re.M), f
        assert all(x.startswith(('arch/um/', 'arch/x86/um/'))
                   for x in touched(t)), f
    assert re.search(r'^Subject: \[PATCH 0/%d\] um: ' % (len(um) - 1),
                     open(um[0]).read(), re.M), um[0]
    # The feature: the MAINTAINERS-only patches go with the new files
    # (the entry with the Kconfig, the rest with the first headers), plus
    # the cover letter. Every file a patch adds is named by the entry as
    # it stands after that patch, and every header a patch includes is in
    # the tree by then (the cheap half of make check-series).
    maint = [p for p in series() if touched(src[p]) == {'MAINTAINERS'}]
    assert len(maint) == 2, maint
    assert len(files) == len(series()) - len(um_src) - len(maint) + \
        len(stage_commits()) + 1, (len(files), series(), stage_commits())
    entry, present = [], set()
    for f in files[1:]:
        t = open(f).read()
        entry += re.findall(r'^\+F:\t(\S+)$', t, re.M)
        new = re.findall(r'^diff --git a/\S+ b/(\S+)\nnew file mode', t, re.M)
        present |= set(new)
        for n in new:
            if n.startswith('Documentation/'):
                continue
            assert any(n == e or (e.endswith('/') and n.startswith(e))
                       for e in entry), (f, n, entry)
        for h in re.findall(r'^\+#include <((?:linux|trace/events)/pgfault_history\S*\.h)>',
                            t, re.M):
            assert 'include/' + h in present, (f, h)
    cover = open(files[0]).read()
    for c in (cover, open(um[0]).read()):
        assert '*** SUBJECT HERE ***' not in c and \
            '*** BLURB HERE ***' not in c, c[:300]
    assert re.search(r'^Subject: \[RFC PATCH 00/%02d\] mm, proc: pgfault_history'
                     % (len(files) - 1), cover, re.M), cover[:600]
    for word in ('perf', 'ftrace', 'DAMON', 'Cost'):
        assert word in cover, word
    # The cover letter's account of the patches names as many as there are.
    n = len(files) - 1
    assert re.search(r'\b%d documents it\b' % n, cover), cover
    every = ''.join(open(f).read() for f in files[1:])
    # The local part (the record path benchmark) is a patch of its own on
    # top of the mail, which never mentions it.
    local = glob.glob(os.path.join(BUILD, 'patches', 'local', '*.patch'))
    assert len(local) == 1, local
    local = open(local[0]).read()
    assert re.search(r'^Subject: \[PATCH\] mm/pgfault_history: add a microbenchmark',
                     local, re.M), local[:400]
    for word in ('BENCHMARK', 'bench.c', 'pgfault_history_bench',
                 'trace/events/pgfault_history'):
        assert word not in every and word not in cover, word
    # Every new kernel file of the project is added by the mail or the
    # local patch, once, and each stage of the feature (scripts/stage.sh)
    # has its own patches.
    for d, dest in (('mm', 'mm'), ('include', 'include'),
                    ('Documentation', 'Documentation')):
        for path in glob.glob(os.path.join(TOP, d, '**', '*'), recursive=True):
            # Documentation/'s .md files are the project's, not the kernel's
            if os.path.isdir(path) or (d == 'Documentation' and
                                       not path.endswith('.rst')):
                continue
            rel = dest + '/' + os.path.relpath(path, os.path.join(TOP, d))
            new = f'diff --git a/{rel} b/{rel}\nnew file mode'
            assert every.count(new) + local.count(new) == 1, rel
    # Split by feature: the trace (core.c, ring.c), the proc file (proc.c,
    # format.c), then regions, re-arming, window mode, sampling and process
    # trees, each file in a patch of its own, in that order.
    where = {}
    for i, f in enumerate(files[1:], 1):
        for n in re.findall(r'^diff --git a/\S+ b/mm/pgfault_history/(\w+)\.c\nnew file mode',
                            open(f).read(), re.M):
            where[n] = i
    order = [where[n] for n in ('core', 'proc', 'regions', 'rearm', 'window', 'sample',
                                'inherit')]
    assert order == sorted(set(order)), where
    assert where['ring'] == where['core'], where
    assert where['format'] == where['proc'], where
    # Each patch is signed off and numbered, every file with its index
    # line, and no subject keeps a stale number.
    for i, f in enumerate(files[1:], 1):
        t = open(f).read()
        assert re.search(r'^Subject: \[RFC PATCH %02d/%02d\]' %
                         (i, len(files) - 1), t, re.M), f
        assert 'Signed-off-by: ' in t, f
    for f in um[1:] + files[1:]:
        t = open(f).read()
        assert t.count('\ndiff --git ') == t.count('\nindex ') == \
            len(touched(t)), f
    for p, t in src.items():
        assert t.count('\ndiff --git ') == len(touched(t)), p
        assert len(re.findall(r'^index [0-9a-f]+\.\.[0-9a-f]+', t, re.M)) == \
            len(touched(t)), p
        assert not re.search(r'^Subject: \[[^]]*\d/\d', t, re.M), p


@test
def every_file_is_well_formed_at_every_stage():
    # scripts/stage.sh strips the stage markers (unifdef); a marker it
    # cannot take, or a stage name that does not exist, is an error.
    stages = subprocess.run([os.path.join(TOP, 'scripts', 'stage.sh'), '--list'],
                            capture_output=True, text=True, check=True).stdout.split()
    assert stages[0] == 'core' and stages[-1] == 'changes', stages
    names = {'PGF_STAGE_' + st.upper() for st in stages}
    with tempfile.TemporaryDirectory() as tmp:
        for d in ('mm', 'include'):
            for path in glob.glob(os.path.join(TOP, d, '**', '*'), recursive=True):
                if os.path.isdir(path):
                    continue
                used = set(re.findall(r'PGF_STAGE_\w+', open(path).read()))
                assert used <= names, (path, used - names)
                for st in stages + ['all']:
                    out = os.path.join(tmp, 'out')
                    r = subprocess.run([os.path.join(TOP, 'scripts', 'stage.sh'),
                                        st, path, out], capture_output=True, text=True)
                    assert r.returncode == 0, (path, st, r.stderr)
                    assert 'PGF_STAGE_' not in open(out).read(), (path, st)
                # The kernel tree holds the last stage.
                kpath = os.path.relpath(path, TOP)
                r = subprocess.run([os.path.join(TOP, 'scripts', 'stage.sh'), 'all',
                                    path, out], check=True)
                assert open(out).read() == open(os.path.join(BUILD, 'linux-src', kpath)).read(), path


def installed(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, fs in os.walk(root) for f in fs)


EXPECTED = ['bin/pgfreport', 'bin/tracepgfault',
            'share/bash-completion/completions/pgfreport',
            'share/bash-completion/completions/tracepgfault',
            'share/man/man1/pgfreport.1', 'share/man/man1/tracepgfault.1',
            'share/man/man5/proc_pid_pgfault_history.5']
# The Python reader: /usr's packages' directory, else python3.X's under
# the prefix (both on Debian's python3's path for /usr and /usr/local).
PY3 = '%d.%d' % tuple(int(x) for x in subprocess.run(
    ['/usr/bin/python3', '-c', 'import sys; print(*sys.version_info[:2])'],
    capture_output=True, text=True, check=True).stdout.split())
PY_USR = 'lib/python3/dist-packages/pgfault_trace.py'
PY_OTHER = f'lib/python{PY3}/dist-packages/pgfault_trace.py'


# What make install adds for pgfault-run: the launcher and the guest it
# boots (its default kernels, the benchmark ones, and the test kernels).
GUEST_EXPECTED = ['bin/pgfault-run', 'lib/pgfault/guest.py',
                  'lib/pgfault/initramfs.cpio.gz', 'lib/pgfault/pgf-sandbox.sh',
                  'lib/pgfault/um/linux', 'lib/pgfault/x86/bzImage',
                  'lib/pgfault/bench-um/linux', 'lib/pgfault/bench-x86/bzImage',
                  'share/bash-completion/completions/pgfault-run',
                  'share/man/man1/pgfault-run.1']


@test
def make_install_puts_tools_pages_and_completion_in_place():
    with tempfile.TemporaryDirectory() as tmp:
        rc, out, err = make('install', 'PREFIX=/opt/pgf', f'DESTDIR={tmp}')
        assert rc == 0, out + err
        want = sorted(EXPECTED + GUEST_EXPECTED + [PY_OTHER])
        assert installed(os.path.join(tmp, 'opt/pgf')) == want, \
            installed(tmp)
        # installed under /usr or /usr/local, Debian's python3 imports it
        # with no PYTHONPATH: those directories are on its path
        p = subprocess.run(['/usr/bin/python3', '-c', 'import sys; print(*sys.path)'],
                           capture_output=True, text=True, env={}, check=True)
        for d in ('/usr/' + os.path.dirname(PY_USR),
                  '/usr/local/' + os.path.dirname(PY_OTHER)):
            assert d in p.stdout.split(), (d, p.stdout)
        p = subprocess.run(['/usr/bin/python3', '-B', '-c', 'import pgfault_trace as pt; '
                            'print(pt.__file__)'], capture_output=True, text=True,
                           env={'PYTHONPATH': os.path.join(tmp, 'opt/pgf',
                                                           os.path.dirname(PY_OTHER))})
        assert p.returncode == 0 and tmp in p.stdout, p
        for b in ('tracepgfault', 'pgfault-run'):
            assert os.access(os.path.join(tmp, 'opt/pgf/bin', b), os.X_OK), b
        # the installed launcher finds its guest where it was installed
        p = subprocess.run([os.path.join(tmp, 'opt/pgf/bin/pgfault-run'), '--help'],
                           capture_output=True, text=True)
        assert p.returncode == 0 and 'pgfault-run' in p.stdout, p
        rc, out, err = make('uninstall', 'PREFIX=/opt/pgf', f'DESTDIR={tmp}')
        assert rc == 0 and installed(tmp) == [], installed(tmp)


@test
def installed_tools_work_on_a_kernel_without_the_feature():
    if os.path.exists('/proc/self/pgfault_history'):
        raise Skip('this host kernel has pgfault_history')
    with tempfile.TemporaryDirectory() as tmp:
        rc, out, err = make('install', 'PREFIX=/usr', f'DESTDIR={tmp}')
        assert rc == 0, out + err
        bin_ = os.path.join(tmp, 'usr/bin')
        trace = os.path.join(tmp, 'out.trace')
        p = subprocess.run([os.path.join(bin_, 'tracepgfault'), '-o', trace, 'true'],
                           capture_output=True, text=True)
        assert p.returncode != 0 and 'CONFIG_PGFAULT_HISTORY' in p.stderr and \
            'no /proc/<pid>/pgfault_history' in p.stderr, p
        assert not os.path.exists(trace), 'wrote a trace it could not make'
        # pgfreport reads traces anywhere.
        sample = os.path.join(TOP, 'tests', 'host', 'traces')
        traces = sorted(glob.glob(os.path.join(sample, '*.trace')))
        assert traces, sample
        p = subprocess.run([os.path.join(bin_, 'pgfreport'), 'summary',
                            traces[0]], capture_output=True, text=True)
        assert p.returncode == 0 and p.stdout, p


@test
def make_deb_builds_a_package_of_the_tools():
    for tool in ('dpkg-deb', 'dpkg-shlibdeps'):
        if subprocess.run(['sh', '-c', f'command -v {tool}'],
                          capture_output=True).returncode:
            raise AssertionError(f'{tool} is missing: scripts/host-deps.sh '
                                 'installs dpkg-dev')
    rc, out, err = make('deb', timeout=900)
    assert rc == 0, out + err
    debs = glob.glob(os.path.join(BUILD, 'deb', '*.deb'))
    assert len(debs) == 1, debs
    p = subprocess.run(['dpkg-deb', '--contents', debs[0]],
                       capture_output=True, text=True, check=True)
    files = sorted(ln.split()[-1].lstrip('.') for ln in p.stdout.splitlines()
                   if not ln.startswith('d'))
    want = sorted('/usr/' + e + ('.gz' if '/man/' in e else '')
                  for e in EXPECTED + [PY_USR])
    want += ['/usr/share/doc/pgfault-history-tools/changelog.gz',
             '/usr/share/doc/pgfault-history-tools/copyright']
    assert files == sorted(want), files
    p = subprocess.run(['dpkg-deb', '--field', debs[0], 'Depends'],
                       capture_output=True, text=True, check=True)
    assert 'libc6' in p.stdout, p.stdout
    if 'lintian' in out:
        assert 'mkdeb: lintian is clean' in out, out


@test
def a_no_op_make_run_builds_nothing():
    # The first call may still build (this checkout's first `make run`);
    # the second must do nothing on the way to the guest.
    rc, out, err = make('run', 'CMD=true', timeout=900)
    assert rc == 0, out + err
    rc, out, err = make('run', 'CMD=echo no-op-run', timeout=900)
    assert rc == 0, out + err
    for word in ('LINK', 'make -C', 'CC ', 'mkrootfs', 'gcc '):
        assert word not in out + err, (word, out + err)
    assert 'no-op-run' in out, out


if __name__ == '__main__':
    main()
