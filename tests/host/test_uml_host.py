# SPDX-License-Identifier: GPL-2.0
"""UML on the hosts people have (issue 27).

UML moves each guest thread's FP registers to and from the host with
ptrace, in the size of the host's XSAVE area: 2,432 bytes on an AMD EPYC
with AVX-512, 2,696 on Intel with AVX-512 and PKRU, 11,008 with AMX.
kernel-patches/0018 sizes the buffer from the host at boot. Here:
  - the harness's check before a boot (scripts/guest.py) passes on this
    host, and says in one line what is wrong where UML cannot run;
  - UML boots and keeps every register (the fpstate suite) on this host
    and on an emulated AMX host: tests/host/xstate_pad.c, preloaded into
    UML, makes the host's ptrace behave as one with an 11,008-byte area
    (PTRACE_SETREGSET refuses any other size, as there), which a UML with
    a fixed 2,696-byte buffer cannot boot on.
"""
import contextlib
import io
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
from ktaplib import Skip, test, main  # noqa: E402
import guest  # noqa: E402
import runner  # noqa: E402

KERNEL = guest.KERNELS['um']
PAD = os.path.join(TOP, 'build', 'host', 'xstate_pad.so')
AMX_SIZE = 11008


def boot_fpstate(extra_env=None):
    """Boot UML (host environment + extra_env), run the fpstate suite;
    return (report, console text, runner's verdict)."""
    saved = dict(os.environ)
    os.environ.update(extra_env or {})
    try:
        rep = runner.run_guest(['fpstate'], timeout=600, echo=False,
                               name='umlhost')
    finally:
        os.environ.clear()
        os.environ.update(saved)
    out = io.StringIO()
    rc = runner.report(rep, out=out)
    for line in out.getvalue().splitlines():
        print('# inner run | ' + line.replace(' passed, ', ' pass / ')
              .replace(' failed, ', ' fail / '))
    with open(rep.log, errors='replace') as f:
        console = f.read()
    return rep, console, rc


def fp_line(console):
    """The size UML found, from its boot line."""
    marker = guest.UML_FP_MARKER.decode()
    for line in console.splitlines():
        if marker in line:
            return int(line.split(marker, 1)[1].split()[0])
    raise AssertionError(f'no "{marker}" line in the console')


@test
def the_check_before_a_boot_passes_here():
    size, problem = guest.host_xstate_size()
    print(f'# host XSAVE area: {size} bytes')
    assert problem is None, problem
    assert guest.uml_kernel_sizes_fp(KERNEL), f'{KERNEL} lacks 0018'
    assert guest.uml_host_problem(KERNEL, '768M') is None


@test
def a_fixed_size_uml_on_an_amx_host_is_refused_in_one_line():
    with tempfile.NamedTemporaryFile(prefix='old-uml-') as old:
        old.write(b'\x7fELF a UML kernel without 0018')
        old.flush()
        why = guest.uml_host_problem(old.name, '768M', xstate=(AMX_SIZE, None))
        assert why and '\n' not in why, why
        assert f'{AMX_SIZE} bytes' in why and 'rebuild' in why, why
        # on a 2,696-byte host it boots: no complaint
        assert guest.uml_host_problem(old.name, '768M', xstate=(2696, None)) is None
    # ours sizes from the host: fine at any size
    assert guest.uml_host_problem(KERNEL, '768M', xstate=(AMX_SIZE, None)) is None
    # no ptrace at all
    why = guest.uml_host_problem(KERNEL, '768M', xstate=(None, 'no ptrace here'))
    assert why == 'no ptrace here', why


@contextlib.contextmanager
def tmpfs(options):
    """A tmpfs mounted with @options on a fresh directory, for the block."""
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(['mount', '-t', 'tmpfs', '-o', options, 'pgf-test', d], check=True)
        try:
            yield d
        finally:
            subprocess.run(['umount', d], check=True)


@test
def a_noexec_or_small_tmpdir_is_refused_before_booting():
    if os.geteuid() != 0:
        raise Skip('needs root to mount a noexec tmpfs')
    with tmpfs('noexec,size=1G') as d:
        why = guest.uml_host_problem(KERNEL, '768M', tmpdir=d)
        assert why and 'noexec' in why and '\n' not in why, why
        # the guest is not started: one line, and a failure status
        r = subprocess.run([sys.executable, os.path.join(TOP, 'scripts', 'guest.py'),
                            'run', '--', 'true'], env=dict(os.environ, TMPDIR=d),
                           capture_output=True, text=True, timeout=60)
        assert r.returncode != 0, r
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith('guest: ') and 'noexec' in lines[0], r.stderr
    # and one too small for the guest's memory
    with tmpfs('size=64M') as d:
        why = guest.uml_host_problem(KERNEL, '768M', tmpdir=d)
        assert why and 'MiB free' in why and '\n' not in why, why
        assert guest.uml_host_problem(KERNEL, '32M', tmpdir=d) is None


@test
def uml_keeps_the_registers_at_this_hosts_size():
    size, _ = guest.host_xstate_size()
    rep, console, rc = boot_fpstate()
    assert fp_line(console) == (size or 512), (fp_line(console), size)
    assert rc == 0, rep.leaves
    assert rep.counts()['pass'] >= 8, rep.counts()


@test
def uml_keeps_the_registers_on_an_emulated_amx_host():
    size, _ = guest.host_xstate_size()
    if not size:
        raise Skip('no XSAVE on this host')
    if size >= AMX_SIZE:
        raise Skip(f'this host is {size} bytes already: the other test is the real one')
    assert os.path.exists(PAD), f'{PAD} missing: make tools'
    rep, console, rc = boot_fpstate({'LD_PRELOAD': PAD,
                                     'PGF_XSTATE_SIZE': str(AMX_SIZE)})
    assert fp_line(console) == AMX_SIZE, fp_line(console)
    assert rc == 0, rep.leaves
    assert rep.counts()['pass'] >= 8, rep.counts()


main()
