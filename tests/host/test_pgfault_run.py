# SPDX-License-Identifier: GPL-2.0
"""pgfault-run (issue 28): the host's own programs traced in the guest, in
one command, from the current directory, with the host's root read-only.

Each test runs scripts/pgfault-run on the host in a fresh directory, in UML
(PGF_RUN_ARCH=x86_64 for the x86_64 guest) with the test kernel, and holds
the result to an oracle: the trace's fault records against the kernel's own
count in its exit record, the program's output and files against what it
was given, the host's files against what they were before."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
from ktaplib import Skip, test, main  # noqa: E402
sys.path.insert(0, HERE)
import symlib as symoracle  # noqa: E402

RUN = os.path.join(TOP, 'scripts', 'pgfault-run')
PGFREPORT = os.path.join(TOP, 'build', 'host', 'bin', 'pgfreport')
ARCH = os.environ.get('PGF_RUN_ARCH', 'um')
# PGF_RUN_LONG=1: the longer workloads (a 24-file project built by make
# -j2, 200,000 sqlite rows, a bigger Python program); make test runs the
# short ones.
LONG = os.environ.get('PGF_RUN_LONG', '') not in ('', '0')
COUNTED = ('minor', 'major', 'reref')


def run(argv, cwd, opts=(), timeout=600, stdin=b''):
    """pgfault-run ARGV in CWD. It gives up a minute before the test does,
    so that a guest that hangs is killed by it and its console log, with
    the stacks the guest prints before its deadline, ends up here."""
    r = subprocess.run([RUN, '-q', '--arch', ARCH, '--kernel', 'test',
                        '--timeout', str(timeout - 60), *opts, '--', *argv],
                       cwd=cwd, capture_output=True, timeout=timeout, input=stdin)
    if r.returncode in (124, 125):
        show_log(r.stderr)
    return r


def show_log(stderr, lines=150):
    """The end of the console log that pgfault-run's message names."""
    msg = stderr.decode(errors='replace')
    if 'log: ' not in msg:
        return
    path = msg.rsplit('log: ', 1)[1].split()[0]
    try:
        with open(path, errors='replace') as f:
            tail = f.read().splitlines()[-lines:]
    except OSError as e:
        print(f'# {path}: {e}')
        return
    print(f'# the end of {path}:')
    for ln in tail:
        print(f'#   {ln}')


def counted(w):
    """A fault the kernel counts in the exit record: the process's own
    ('fault'), or one it took on another address space ('remote': exec
    arguments, process_vm_readv), unless it failed."""
    return ((w[0] == 'fault' and w[6] in COUNTED) or
            (w[0] == 'remote' and w[4] in COUNTED))


def check_symbols(path, pid=None):
    """pgfreport symbols of the trace @path (process @pid of a tree) by
    IP and by address against the oracle (binutils' readelf); returns its
    rows by IP: {(file base name, symbol): faults}."""
    with open(path) as f:
        lines = f.read().splitlines()
    rows = {}
    for by in ('ip', 'addr'):
        p = subprocess.run([PGFREPORT, 'symbols', '-n', '0', '--by', by,
                            *(('--pid', str(pid)) if pid else ()), path],
                           capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, (by, p.stderr)
        got = symoracle.pgfreport_rows(p.stdout)
        want = symoracle.by_base(symoracle.count(lines, pid, by=by))
        assert got == want, (by, sorted(set(got.items()) ^ set(want.items()))[:10])
        rows[by] = got
    return rows['ip']


def named(rows, dso):
    """The faults @rows count for a symbol (not an offset) of @dso."""
    return sum(n for (f, s), n in rows.items()
               if (f == dso or f.startswith(dso + '.')) and not s.startswith('0x'))


def trace_counts(path, framed=None):
    """(fault records counted, the exit record's FAULTS and LOST, execs);
    with @framed (a list), the counted 'fault' records (not 'remote') and
    how many of them carry their frame appended to it."""
    faults, exit_rec, execs, frames, own = 0, None, [], 0, 0
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if counted(w):
                faults += 1
                own += w[0] == 'fault'
                frames += w[0] == 'fault' and len(w) == 12
            elif w[0] == 'exit':
                exit_rec = (int(w[3]), int(w[4]))
            elif w[0] == 'exec':
                execs.append(w[-1])
    if framed is not None:
        framed += [own, frames]
    return faults, exit_rec, execs


@test
def a_python_script_is_traced_and_its_faults_are_the_kernels_count():
    n = 200000 if LONG else 2
    prog = ('import json, sys; d = {str(i): list(range(i % 7)) for i in range(int(sys.argv[1]))}; '
            'print(len(json.dumps(d)))')
    want = len(__import__('json').dumps({str(i): list(range(i % 7)) for i in range(n)}))
    with tempfile.TemporaryDirectory() as d:
        r = run(['python3', '-c', prog, str(n)], d)
        assert r.returncode == 0, r
        assert r.stdout == f'{want}\n'.encode(), (r.stdout, want)
        framed = []
        faults, exit_rec, execs = trace_counts(os.path.join(d, 'pgfault.trace'),
                                               framed)
        print(f'# python3: {faults} faults in the trace, exit record {exit_rec}; '
              f'{framed[1]} of its {framed[0]} fault records with their frame')
        assert exit_rec is not None, 'no exit record'
        assert exit_rec == (faults, 0), (faults, exit_rec)
        assert faults > 100, faults
        # the guest's root reads the trace: the faults carry their frames,
        # all but one that installed nothing (a wait for a migration or for
        # I/O that kcompactd or writeback could make, however rare)
        assert framed[1] >= framed[0] - framed[0] // 100, framed
        assert execs and execs[0].endswith('/python3'), execs
        # which functions fault: the interpreter's (its dynamic symbols) and
        # libc's, as binutils reads the same files
        rows = check_symbols(os.path.join(d, 'pgfault.trace'))
        top = sorted(rows.items(), key=lambda kv: -kv[1])[:3]
        print(f'# python3: faults in python3.11 symbols {named(rows, "python3")}, '
              f'libc {named(rows, "libc.so")}; most: {top}')
        assert named(rows, 'python3') > 0 and named(rows, 'libc.so') > 0, rows


@test
def argv_is_passed_exactly_and_the_status_and_stderr_are_the_programs():
    argv = ['a b', '', "x'y\"z", 'l1\nl2', '$HOME', '*']
    prog = ('import sys; print(repr(sys.argv[1:])); '
            'print("to stderr", file=sys.stderr); sys.exit(3)')
    with tempfile.TemporaryDirectory() as d:
        r = run(['python3', '-c', prog, *argv], d)
        assert r.returncode == 3, r
        assert r.stdout.decode() == repr(argv) + '\n', r.stdout
        assert r.stderr == b'to stderr\n', r.stderr


@test
def standard_input_from_a_pipe_is_the_programs():
    data = bytes(range(256)) * 64
    with tempfile.TemporaryDirectory() as d:
        r = run(['python3', '-c', 'import sys, hashlib; '
                 'print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())'], d,
                stdin=data)
        assert r.returncode == 0, r
        import hashlib
        assert r.stdout.decode().strip() == hashlib.sha256(data).hexdigest(), r.stdout


@test
def files_in_the_current_directory_are_the_hosts():
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, 'in.txt'), 'w') as f:
            f.write('3 4\n')
        os.mkdir(os.path.join(d, 'sub'))
        r = run(['sh', '-c', 'read a b < in.txt && echo $((a * b)) > sub/out.txt && pwd'], d)
        assert r.returncode == 0, r
        assert r.stdout.decode().strip() == os.path.realpath(d), r.stdout
        with open(os.path.join(d, 'sub', 'out.txt')) as f:
            assert f.read() == '12\n'
        # -o elsewhere: its directory is shared too
        with tempfile.TemporaryDirectory() as o:
            out = os.path.join(o, 'x.trace')
            r = run(['true'], d, opts=('-o', out))
            assert r.returncode == 0, r
            assert os.path.getsize(out) > 0


@test
def nothing_the_guest_does_writes_to_the_host():
    home = os.path.expanduser('~')
    targets = ['/etc/pgf-run-test', '/usr/pgf-run-test', os.path.join(home, 'pgf-run-test'),
               '/tmp/pgf-run-test']
    for t in targets:
        assert not os.path.exists(t), t
    script = '; '.join([f'echo x > {t} && echo wrote {t}' for t in targets] + [
        # the guest's root mounts the host's /etc through hostfs: read-only
        'mkdir -p /tmp/h',
        '{ mount -t hostfs none /tmp/h -o /etc || mount -t 9p -o trans=virtio pgfshare /tmp/h; }',
        'echo y > /tmp/h/pgf-run-test2 || echo refused',
        'ls /tmp/h/passwd >/dev/null && echo mounted'])
    with tempfile.TemporaryDirectory() as d:
        r = run(['sh', '-c', script], d)
        out = r.stdout.decode()
        print('# ' + out.replace('\n', ' | '))
        # the writes went to the throwaway layer...
        for t in targets:
            assert f'wrote {t}' in out, out
        # ...and a write through the host's own files was refused
        if 'mounted' in out:
            assert 'refused' in out, out
    for t in targets + ['/etc/pgf-run-test2']:
        assert not os.path.exists(t), t


@test
def sqlite3_runs_a_workload_whose_database_is_the_hosts():
    rows = 200000 if LONG else 2000
    sql = ('create table t(k integer primary key, v text);'
           f'with recursive n(i) as (select 1 union all select i + 1 from n where i < {rows}) '
           "insert into t select i, printf('value %d', i) from n;"
           'create index tv on t(v);'
           "select count(*), sum(k), max(v) from t where v like 'value 1%';")
    with tempfile.TemporaryDirectory() as d:
        r = run(['sqlite3', 'test.db', sql], d)
        assert r.returncode == 0, r
        # the same query, in Python
        keys = [i for i in range(1, rows + 1) if f'value {i}'.startswith('value 1')]
        want = f'{len(keys)}|{sum(keys)}|{max(f"value {i}" for i in keys)}\n'
        assert r.stdout.decode() == want, (r.stdout, want)
        faults, exit_rec, execs = trace_counts(os.path.join(d, 'pgfault.trace'))
        print(f'# sqlite3: {faults} faults in the trace, exit record {exit_rec}')
        assert exit_rec == (faults, 0), (faults, exit_rec)
        # the database is on the host, and whole
        r = subprocess.run(['sqlite3', os.path.join(d, 'test.db'),
                            'pragma integrity_check; select count(*) from t'],
                           capture_output=True)
        assert r.stdout == f'ok\n{rows}\n'.encode(), r


def file_pages(path):
    """Of the trace @path of file I/O (-c): {file path: {'r': set of pages
    used by reads, 'w': by writes, 'hit'/'miss'/...: pages}}, through the
    Python reader."""
    sys.path.insert(0, os.path.join(TOP, 'tools', 'python'))
    import pgfault_trace as pt
    names, out = {}, {}
    for r in pt.records(path):
        key = (r.get('pid', 0), r.get('id', r.get('file')))
        if r['type'] == 'file':
            names[key] = r['path']
        elif r['type'] == 'cache':
            f = out.setdefault(names[key], {'r': set(), 'w': set()})
            f[r['cache']] = f.get(r['cache'], 0) + r['pages']
            if r['cache'] != 'readahead':
                f[r['access']].update(range(r['index'], r['index'] + r['pages']))
    return out


@test
def file_io_of_sqlite3_grep_and_cp_is_traced():
    """-c: sqlite3's query reads every page of its database (a full scan
    of a table with no index, of PRAGMA page_size pages); grep -r reads
    every page of every file of a tree; cp reads every page of the file and
    writes every page of the copy, none of which the cache held."""
    rows = 20000 if LONG else 3000
    with tempfile.TemporaryDirectory() as d:
        db = os.path.join(d, 'scan.db')
        sql = ('pragma page_size=4096; create table t(k integer primary key, v text);'
               f'with recursive n(i) as (select 1 union all select i + 1 from n where i < {rows}) '
               "insert into t select i, printf('value %d %s', i, hex(randomblob(40))) from n;")
        subprocess.run(['sqlite3', db, sql], check=True, timeout=120)
        size = os.path.getsize(db)
        r = run(['sqlite3', 'scan.db', 'pragma page_size; select count(*), sum(length(v)) from t;'],
                d, opts=('-c', '-o', 'sqlite.trace'))
        assert r.returncode == 0, r
        page_size, counts = r.stdout.decode().split('\n')[:2]
        assert page_size == '4096' and counts.startswith(f'{rows}|'), r.stdout
        got = file_pages(os.path.join(d, 'sqlite.trace'))
        f = [v for k, v in got.items() if k.endswith('/scan.db')]
        assert len(f) == 1, got.keys()
        print(f'# sqlite3: {size // 4096} pages of {size} bytes; read {len(f[0]["r"])} '
              f'distinct pages: {f[0].get("hit", 0)} hit, {f[0].get("miss", 0)} miss, '
              f'{f[0].get("readahead", 0)} readahead')
        assert f[0]['r'] == set(range(size // 4096)), sorted(set(range(size // 4096)) ^ f[0]['r'])[:20]
        assert not f[0]['w']
        # grep -r: every page of every file of the tree
        tree = os.path.join(d, 'src')
        sizes = {}
        for i in range(30):
            sub = os.path.join(tree, f'd{i % 4}')
            os.makedirs(sub, exist_ok=True)
            p = os.path.join(sub, f'f{i}.txt')
            with open(p, 'w') as fh:
                fh.write(''.join(f'line {i} {j} nothing to see\n' for j in range(200 * (i + 1))))
            sizes[p] = os.path.getsize(p)
        r = run(['grep', '-r', 'no such words', 'src'], d, opts=('-c', '-o', 'grep.trace'))
        assert r.returncode == 1 and r.stdout == b'', r
        got = file_pages(os.path.join(d, 'grep.trace'))
        for p, n in sizes.items():
            f = [v for k, v in got.items() if k == p]
            assert len(f) == 1, (p, list(got)[:10])
            assert f[0]['r'] == set(range((n + 4095) // 4096)), (p, n, sorted(f[0]['r'])[:10])
        # cp: all of one read, all of the other written, as misses
        big = os.path.join(d, 'big')
        with open(big, 'wb') as fh:
            fh.write(os.urandom(3 << 20))
        r = run(['cp', 'big', 'copy'], d, opts=('-c', '-o', 'cp.trace'))
        assert r.returncode == 0, r
        assert open(os.path.join(d, 'copy'), 'rb').read() == open(big, 'rb').read()
        got = file_pages(os.path.join(d, 'cp.trace'))
        src = [v for k, v in got.items() if k == big][0]
        dst = [v for k, v in got.items() if k == os.path.join(d, 'copy')][0]
        assert src['r'] == set(range(768)) and not src['w'], sorted(src['r'])[:10]
        assert dst['w'] == set(range(768)) and dst.get('miss') == 768, dst.keys()


@test
def the_installed_pgfault_run_traces_from_its_own_files():
    with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as d:
        r = subprocess.run(['make', '-s', '--no-print-directory', 'install',
                            'PREFIX=/opt/pgf', f'DESTDIR={root}'], cwd=TOP,
                           capture_output=True, text=True, timeout=900)
        assert r.returncode == 0, r
        run_ = os.path.join(root, 'opt/pgf/bin/pgfault-run')
        r = subprocess.run([run_, '-q', '--arch', ARCH, '--kernel', 'test', '--',
                            'python3', '-c', 'print(6 * 7)'], cwd=d,
                           capture_output=True, timeout=600)
        assert r.returncode == 0 and r.stdout == b'42\n', r
        faults, exit_rec, _ = trace_counts(os.path.join(d, 'pgfault.trace'))
        assert exit_rec == (faults, 0) and faults > 100, (faults, exit_rec)


@test
def bad_usage_and_an_existing_output_are_refused():
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([RUN, '-i', 'x', '--', 'true'], cwd=d, capture_output=True)
        assert r.returncode == 2 and b'-i wants a number' in r.stderr, r
        r = subprocess.run([RUN, '-i', '10', '-s', '10', '--', 'true'], cwd=d,
                           capture_output=True)
        assert r.returncode == 2 and b'choose one' in r.stderr, r
        r = subprocess.run([RUN], cwd=d, capture_output=True)
        assert r.returncode == 2 and b'no program' in r.stderr, r
        # The host's root holds the host's programs: an arm64 kernel
        # could not run them, and the message says where arm64 ones run.
        r = subprocess.run([RUN, '--arch', 'arm64', '--', 'true'], cwd=d,
                           capture_output=True)
        assert r.returncode == 2, r
        assert b'--arch arm64' in r.stderr and b'guest.py --arch arm64' in r.stderr, r
        open(os.path.join(d, 'pgfault.trace'), 'w').write('mine\n')
        r = subprocess.run([RUN, '--', 'true'], cwd=d, capture_output=True)
        assert r.returncode == 125 and b'--force' in r.stderr, r
        assert open(os.path.join(d, 'pgfault.trace')).read() == 'mine\n'


@test
def gcc_builds_a_project_and_every_process_is_traced():
    if not os.path.exists('/usr/bin/gcc'):
        raise Skip('no gcc on the host')
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, 'a.c'), 'w') as f:
            f.write('int b(int);\nint main(void) { return b(2) - 4; }\n')
        with open(os.path.join(d, 'b.c'), 'w') as f:
            f.write('int b(int x) { return x * x; }\n')
        if LONG:
            # b() as the sum of 23 more files' functions, built by make -j2
            for i in range(23):
                with open(os.path.join(d, f'f{i}.c'), 'w') as f:
                    f.write(f'int f{i}(int x) {{ return x + {i}; }}\n')
            with open(os.path.join(d, 'b.c'), 'w') as f:
                f.write(''.join(f'int f{i}(int);\n' for i in range(23)) +
                        'int b(int x) { return x * x + 0 * (' +
                        ' + '.join(f'f{i}(x)' for i in range(23)) + '); }\n')
            objs = ' '.join(['a.o', 'b.o'] + [f'f{i}.o' for i in range(23)])
            with open(os.path.join(d, 'Makefile'), 'w') as f:
                f.write(f'prog: {objs}\n\tgcc -O2 -o $@ $^\n'
                        '%.o: %.c\n\tgcc -O2 -c -o $@ $<\n')
            argv = ['make', '-j2']
        else:
            argv = ['gcc', '-O2', '-o', 'prog', 'a.c', 'b.c']
        r = run(argv, d, opts=('-f', '-o', 'gcc.trace'), timeout=1800)
        assert r.returncode == 0, r
        assert subprocess.run([os.path.join(d, 'prog')]).returncode == 0
        # each process's block: its faults against its exit record
        procs, cur = {}, None
        with open(os.path.join(d, 'gcc.trace')) as f:
            for line in f:
                w = line.split()
                if w and w[0] == 'pid':
                    cur = procs.setdefault(int(w[1]), {'faults': 0, 'exit': None, 'exec': []})
                elif w and cur is not None:
                    if counted(w):
                        cur['faults'] += 1
                    elif w[0] == 'exit':
                        cur['exit'] = (int(w[3]), int(w[4]))
                    elif w[0] == 'exec':
                        cur['exec'].append(os.path.basename(w[-1]))
        names = sorted(n for p in procs.values() for n in p['exec'])
        print(f'# {len(procs)} processes: {" ".join(names)}')
        for want in ('gcc', 'cc1', 'as', 'collect2', 'ld'):
            assert any(n == want or n.startswith(want + '-') or n.endswith('-' + want)
                       for n in names), (want, names)
        for pid, p in procs.items():
            assert p['exit'] == (p['faults'], 0), (pid, p)
        # cc1's faults per function, by its dynamic symbols
        cc1 = [pid for pid, p in procs.items() if 'cc1' in p['exec']]
        rows = check_symbols(os.path.join(d, 'gcc.trace'), cc1[0])
        print(f'# cc1 {cc1[0]}: faults in cc1 symbols {named(rows, "cc1")}, '
              f'libc {named(rows, "libc.so")}')
        assert named(rows, 'cc1') > 0, rows
        if LONG:
            assert names.count('cc1') == 25, names


@test
def the_default_kernel_is_the_one_without_debug_options():
    """No --kernel: the benchmark kernel (no lockdep, no KASAN); the test
    kernel has both. /proc/lockdep exists only with lockdep."""
    probe = ['sh', '-c', 'test -e /proc/lockdep && echo debug || echo plain']
    build = os.path.join(TOP, 'build')
    left = {w: set(os.listdir(os.path.join(build, w))) for w in ('jobs', 'logs')}
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([RUN, '-q', '--arch', ARCH, '--', *probe], cwd=d,
                           capture_output=True, timeout=600)
        assert r.returncode == 0 and r.stdout == b'plain\n', r
        r = run(probe, d, opts=('--force',))
        assert r.returncode == 0 and r.stdout == b'debug\n', r
    # a run that ends leaves no job or console log behind
    for w, before in left.items():
        new = set(os.listdir(os.path.join(build, w))) - before
        assert not new, (w, new)


@test
def the_hosts_map_limit_is_named_when_uml_reaches_it():
    """UML maps each scattered page of a guest process into a host mapping
    of its own: past the host's vm.max_map_count the process dies of
    SIGSEGV, as if it had crashed. pgfault-run says what it was. The limit
    is lowered to 3,000 for one run (root), and a program touches every
    other page of 40 MiB, from the top: 5,120 mappings."""
    if ARCH != 'um':
        raise Skip('UML only')
    if os.geteuid() != 0:
        raise Skip('lowering vm.max_map_count needs root')
    path = '/proc/sys/vm/max_map_count'
    with open(path) as f:
        saved = f.read().strip()
    prog = ('import mmap\nm = mmap.mmap(-1, 40 << 20)\n'
            'for i in range(len(m) - 4096, -1, -8192):\n    m[i] = 1\nprint("done")')
    with tempfile.TemporaryDirectory() as d:
        try:
            with open(path, 'w') as f:
                f.write('3000')
            r = run(['python3', '-c', prog], d)
        finally:
            with open(path, 'w') as f:
                f.write(saved)
        assert r.returncode == 139, r
        assert b'the host allows 3000 mappings per process (vm.max_map_count)' in r.stderr, r.stderr
        assert b'killed with SIGSEGV (this exit status)' in r.stderr, r.stderr
        # with the host's own limit, the same program runs, and nothing is said
        r = run(['python3', '-c', prog], d, opts=('--force',))
        assert r.returncode == 0 and r.stdout == b'done\n', r
        assert b'max_map_count' not in r.stderr, r.stderr


def on_x86_64(fn):
    """The same test in the x86_64 guest (QEMU; on TCG, 20-30 s a boot)."""
    def t():
        global ARCH
        saved, ARCH = ARCH, 'x86_64'
        try:
            fn()
        finally:
            ARCH = saved
    t.__name__ = 'x86_64_' + fn.__name__
    return t


# make test runs the rest in UML only (PGF_RUN_ARCH=x86_64: all in QEMU).
if ARCH == 'um':
    for fn in (a_python_script_is_traced_and_its_faults_are_the_kernels_count,
               nothing_the_guest_does_writes_to_the_host,
               gcc_builds_a_project_and_every_process_is_traced):
        test(on_x86_64(fn))

main()
