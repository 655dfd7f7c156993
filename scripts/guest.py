#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot a guest for one job: run a command, a shell, or test suites.

  guest.py [--arch um|x86_64|arm64] [--kernel K] run [--share DIR] [--timeout S] -- 'command'
  guest.py [--arch ...] shell [--share DIR]
  guest.py [--arch ...] test [--suites a,b] [--timeout S]

Two guests run the same initramfs: User Mode Linux (--arch um, the
default), and an x86_64 kernel under QEMU (--arch x86_64), with KVM when
KVM really runs a guest on this host and TCG otherwise (see kvm_works()).
A third, --arch arm64, boots the arm64 kernel on QEMU's virt machine
under TCG with the same programs built for arm64 (make rootfs-arm64).
The job is described in a fresh directory under build/jobs/ that the guest
mounts (UML: hostfs; QEMU: 9p over virtio, see uml-rootfs/init); the guest
writes its exit status, its KTAP output and its dmesg back there. The
whole console output is saved as build/logs/<job>.log.
"""

import argparse
import ctypes
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(TOP, 'build')
KERNELS = {'um': os.path.join(BUILD, 'um', 'linux'),
           'x86_64': os.path.join(BUILD, 'x86', 'arch/x86/boot/bzImage'),
           'arm64': os.path.join(BUILD, 'arm64', 'arch/arm64/boot/Image')}
QEMU = 'qemu-system-x86_64'
# The arm64 guest: QEMU's virt machine, TCG on any other host, with the
# initramfs of the same programs cross-compiled (make rootfs-arm64).
QEMU_ARM64 = 'qemu-system-aarch64'
# -cpu for it: 'max' has every feature QEMU emulates, the hardware update
# of the access flag (FEAT_HAFDBS) among them; PGF_ARM64_CPU names another
# model (cortex-a57: none, the kernel takes access flag faults itself).
ARM64_CPU = os.environ.get('PGF_ARM64_CPU', 'max')
# vCPUs of the x86_64 guest.
SMP = 2
# QEMU's TCG runs each vCPU in a host thread of its own ('multi'), or all
# of them in one ('single'). A kernel that patches its own code while it
# runs (jump labels: static keys switched on and off, as when a trace
# starts) can take a stray int3 on multi-threaded TCG, an "Oops: int3"
# that real CPUs never see; one thread is safe. Our own x86_64 kernels
# have no jump labels; a distribution-like kernel (make kernel-deb) has.
TCG_THREAD = os.environ.get('PGF_TCG_THREAD', 'multi')
# PGF_ICOUNT=1: under TCG, guest time counts instructions (-icount
# shift=0, one TCG thread): a measure that does not wander with the host's
# load, for benchmarks (scripts/bench-icount.py). KVM ignores it.
ICOUNT = os.environ.get('PGF_ICOUNT') == '1'
# NUMA nodes of the x86_64 guest: its memory and vCPUs split evenly, as
# on a machine with that many sockets (PGF_NUMA_NODES, at most SMP).
NODES = int(os.environ.get('PGF_NUMA_NODES', '1') or 1)
SHARE = os.path.join(TOP, 'share')
INITRD = os.path.join(BUILD, 'initramfs.cpio.gz')
# The arm64 guest's: the same programs built for arm64 (make rootfs-arm64).
INITRD_ARM64 = os.path.join(BUILD, 'initramfs-arm64.cpio.gz')


def initrd_for(arch):
    """The initramfs `arch`'s guest boots (INITRD as the caller may have
    set it, pgfault-run for one)."""
    return INITRD_ARM64 if arch == 'arm64' else INITRD
# The images the guest mounts at /scratch (ext4) and /scratch-xfs
# (uml-rootfs/init, by their file system), made by the Makefile; each boot
# writes to a copy-on-write layer of its own.
SCRATCH = [os.path.join(BUILD, 'scratch-ext4.img'),
           os.path.join(BUILD, 'scratch-xfs.img')]


def scratch_for(kernel, option):
    """The scratch disks the guest gets: those that exist, if the kernel's
    .config (beside it, or two levels up for arch/x86/boot/bzImage) has
    @option, its driver (the test kernels do, the benchmark kernels not)."""
    images = [p for p in SCRATCH if os.path.exists(p)]
    if not images:
        return []
    d = os.path.dirname(os.path.abspath(kernel))
    for cfg in (os.path.join(d, '.config'),
                os.path.join(d, '..', '..', '..', '.config')):
        try:
            with open(cfg) as f:
                return images if f'{option}=y\n' in f.read() else []
        except OSError:
            continue
    return []


# Lines uml-rootfs/init prints around the job.
JOB_START = b'pgfault-guest: job start'
JOB_END = b'pgfault-guest: job end'


class Boot:
    """The outcome of one guest boot."""

    def __init__(self, jobdir, log):
        self.jobdir = jobdir
        self.log = log
        self.timed_out = False
        self.returncode = None
        self.elapsed = 0.0
        self.where = None     # 'UML', 'QEMU+KVM' or 'QEMU+TCG'

    def read(self, name):
        try:
            with open(os.path.join(self.jobdir, name), errors='replace') as f:
                return f.read()
        except FileNotFoundError:
            return None

    @property
    def status(self):
        """Exit status the guest reported, or None if it never finished."""
        s = self.read('status')
        try:
            return int(s) if s is not None else None
        except ValueError:
            return None


def new_job(kind, **files):
    stamp = time.strftime('%Y%m%d-%H%M%S')
    jobdir = os.path.join(BUILD, 'jobs', f'{kind}-{stamp}-{os.getpid()}')
    os.makedirs(jobdir)
    with open(os.path.join(jobdir, 'type'), 'w') as f:
        f.write(kind + '\n')
    for name, text in files.items():
        with open(os.path.join(jobdir, name), 'w') as f:
            f.write(text)
    return jobdir


def uml_argv(kernel, jobdir, share, mem, interactive, quiet):
    # UML's kernel and its processes hand the CPU to each other through
    # ptrace at every fault and system call. On a virtual host whose other
    # CPU is idle, every hand-over that crosses CPUs wakes a halted vCPU,
    # and a fault costs ten times more (measured: 250 vs 25 us). One host
    # CPU for all of UML keeps the hand-overs local; UML is uniprocessor.
    argv = ['taskset', '-c', str(_uml_cpu()), kernel, f'mem={mem}', f'initrd={INITRD}', f'pgfjob={jobdir}',
            'con=null', 'ssl=null',
            'con0=fd:0,fd:1' if interactive else 'con0=null,fd:1']
    if share:
        argv.append(f'pgfshare={os.path.abspath(share)}')
    for i, image in enumerate(scratch_for(kernel, 'CONFIG_BLK_DEV_UBD')):
        # A COW file in the job directory over the shared image.
        argv.append(f'ubd{i}={os.path.join(jobdir, f"scratch{i}.cow")},{image}')
    if quiet:
        argv.append('loglevel=4')   # warnings and worse still show
    return argv


# What a UML kernel that sizes its FP buffer from the host prints at boot
# (kernel-patches/0018); kernels without it have a 2,696-byte buffer, too
# small for hosts whose XSAVE area is larger (AMX: 11,008 bytes).
UML_FP_MARKER = b"Checking the host's FP register state..."
UML_OLD_FP_SIZE = 2696


class _Iovec(ctypes.Structure):
    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]


def host_xstate_size():
    """(bytes, problem): the XSAVE area the host's ptrace moves for a
    thread (NT_X86_XSTATE), as UML asks for it at boot; bytes is None
    without XSAVE. problem is a sentence when ptrace itself is refused."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.restype = ctypes.c_long
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p,
                            ctypes.c_void_p]
    pid = os.fork()
    if pid == 0:
        try:
            if libc.ptrace(0, 0, None, None) == 0:     # PTRACE_TRACEME
                os.kill(os.getpid(), signal.SIGSTOP)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, os.WUNTRACED)
    if not os.WIFSTOPPED(status):
        scope = ''
        try:
            with open('/proc/sys/kernel/yama/ptrace_scope') as f:
                scope = f' (kernel.yama.ptrace_scope={f.read().strip()})'
        except OSError:
            pass
        return None, (f'this host does not let a process be traced{scope}: '
                      'UML runs its processes under ptrace; allow it '
                      '(sysctl kernel.yama.ptrace_scope=1, or a container '
                      'with ptrace allowed)')
    try:
        buf = ctypes.create_string_buffer(1 << 16)
        iov = _Iovec(ctypes.cast(buf, ctypes.c_void_p), len(buf))
        if libc.ptrace(0x4204, pid, 0x202, ctypes.byref(iov)) < 0:
            return None, None                     # no XSAVE: FXSAVE only
        size = iov.len
        if libc.ptrace(0x4205, pid, 0x202, ctypes.byref(iov)) < 0:
            err = ctypes.get_errno()
            return size, (f'the host refuses to set the {size}-byte XSAVE '
                          f'state it reports ({os.strerror(err)}): UML '
                          'cannot keep its processes\' FP registers here')
        return size, None
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def _tmp_problem(tmpdir, mem):
    """UML backs guest memory with a file in TMPDIR mapped executable."""
    import mmap
    import tempfile
    try:
        fd, path = tempfile.mkstemp(dir=tmpdir, prefix='pgf-exec-check-')
    except OSError as e:
        return f'cannot create a file in {tmpdir} ({e.strerror}): UML keeps guest memory there; set TMPDIR'
    try:
        os.unlink(path)
        os.ftruncate(fd, mmap.PAGESIZE)
        try:
            mmap.mmap(fd, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_EXEC).close()
        except OSError:
            return (f'{tmpdir} does not allow executable mappings (noexec): UML maps '
                    'guest memory from there; set TMPDIR to a directory on a mount '
                    'without noexec')
        st = os.statvfs(tmpdir)
        free = st.f_bavail * st.f_frsize
        want = _bytes(mem)
        if want and free < want:
            return (f'{tmpdir} has {free >> 20} MiB free and the guest needs {want >> 20} MiB '
                    'there for its memory: free some, or set TMPDIR elsewhere')
    finally:
        os.close(fd)
    return None


def _bytes(mem):
    units = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}
    m = str(mem).upper().rstrip('B')
    try:
        return int(m[:-1]) * units[m[-1]] if m and m[-1] in units else int(m)
    except ValueError:
        return 0


def uml_kernel_sizes_fp(kernel):
    """Whether this UML kernel sizes its FP buffer from the host."""
    try:
        with open(kernel, 'rb') as f:
            return UML_FP_MARKER in f.read()
    except OSError:
        return False


def uml_host_problem(kernel, mem, xstate=None, tmpdir=None):
    """One line saying why UML cannot run here and what to do, or None.
    xstate: (bytes, problem) as host_xstate_size() gives (probed if None)."""
    size, problem = xstate if xstate is not None else host_xstate_size()
    if problem:
        return problem
    if size and size > UML_OLD_FP_SIZE and not uml_kernel_sizes_fp(kernel):
        return (f'{kernel} keeps {UML_OLD_FP_SIZE} bytes of FP state and this host\'s '
                f'XSAVE area is {size} bytes (AMX): it cannot boot here; rebuild it '
                'with kernel-patches/0018 (make), or use ARCH=x86_64')
    return _tmp_problem(tmpdir or os.environ.get('TMPDIR') or _uml_tmpdir(), mem)


def _uml_tmpdir():
    return '/dev/shm' if os.path.isdir('/dev/shm') else '/tmp'


def _kill_session(proc):
    """Kill a guest started with start_new_session, and all its helpers."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def _uml_cpu():
    """The host CPU UML runs on: the last one this process may use."""
    try:
        return max(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return 0


def _boot_id():
    try:
        with open('/proc/sys/kernel/random/boot_id') as f:
            return f.read().strip()
    except OSError:
        return ''


def kvm_works(kernel, timeout=20):
    """Whether KVM really runs a guest here, probed once per host boot.

    /dev/kvm can exist while (nested) KVM never gets a guest past the
    kernel's decompressor. Boot the kernel under KVM with an early serial
    console and wait for its first printk line; the answer is cached in
    build/kvm-probe for this host boot. PGF_KVM=0/1 overrides the probe."""
    forced = os.environ.get('PGF_KVM')
    if forced in ('0', '1'):
        return forced == '1', f'PGF_KVM={forced}'
    if not os.access('/dev/kvm', os.R_OK | os.W_OK):
        return False, 'no usable /dev/kvm'
    cache = os.path.join(BUILD, 'kvm-probe')
    try:
        with open(cache) as f:
            boot_id, verdict, why = f.read().rstrip('\n').split('\t')
        if boot_id == _boot_id():
            return verdict == 'yes', why + ' (cached)'
    except (OSError, ValueError):
        pass
    argv = [QEMU, '-accel', 'kvm', '-cpu', 'host', '-m', '256', '-nodefaults',
            '-display', 'none', '-no-reboot', '-serial', 'stdio',
            '-kernel', kernel, '-append',
            'console=ttyS0 earlyprintk=serial,ttyS0 panic=-1 rdinit=/nonexistent']
    ok, why = False, f'KVM guest printed nothing in {timeout}s'
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    out = b''
    try:
        while time.monotonic() - t0 < timeout:
            r, _, _ = select.select([proc.stdout], [], [], 0.5)
            if r:
                chunk = os.read(proc.stdout.fileno(), 4096)
                if not chunk:
                    why = 'QEMU with KVM exited: ' + out.decode(errors='replace').strip()[-200:]
                    break
                out += chunk
                if b'Linux version' in out:
                    ok = True
                    why = f'a KVM guest booted ({time.monotonic() - t0:.1f}s to its first line)'
                    break
    finally:
        _kill_session(proc)
    os.makedirs(BUILD, exist_ok=True)
    with open(cache, 'w') as f:
        f.write(f"{_boot_id()}\t{'yes' if ok else 'no'}\t{why}\n")
    return ok, why


# Whether accel_for() says which accelerator QEMU uses (pgfault-run -q: no).
SAY_ACCEL = True


def accel_for(kernel, say=None):
    """'kvm' or 'tcg' for the x86_64 guest; tells which and why on stderr."""
    ok, why = kvm_works(kernel)
    accel = 'kvm' if ok else 'tcg'
    if say if say is not None else SAY_ACCEL:
        print(f'guest: QEMU+{accel.upper()} ({why})', file=sys.stderr, flush=True)
    return accel


def smp_arg(nodes):
    """QEMU's -smp: with several NUMA nodes a socket each, so that no
    cache is shared across nodes (the kernel warns at boot otherwise)."""
    if nodes <= 1:
        return str(SMP)
    return f'{SMP},sockets={nodes},cores={SMP // nodes},threads=1'


def numa_argv(mem, nodes):
    """QEMU options for `nodes` NUMA nodes sharing `mem` and SMP vCPUs."""
    if nodes <= 1:
        return []
    if nodes > SMP:
        sys.exit(f'guest: {nodes} NUMA nodes need as many vCPUs; the guest has {SMP}')
    size = mem.upper().rstrip('B')
    mib = int(size[:-1]) * 1024 if size.endswith('G') else int(size.rstrip('M'))
    if mib % nodes:
        sys.exit(f'guest: {mem} does not split evenly over {nodes} NUMA nodes')
    argv = []
    for n in range(nodes):
        cpus = [c for c in range(SMP) if c % nodes == n]
        argv += ['-object', f'memory-backend-ram,id=m{n},size={mib // nodes}M',
                 '-numa', f'node,nodeid={n},memdev=m{n},'
                 + ','.join(f'cpus={c}' for c in cpus)]
    return argv


def qemu_argv(kernel, jobdir, share, mem, interactive, quiet, accel,
              arch='x86_64'):
    if arch == 'arm64':
        # QEMU's virt machine, its console on the PL011; TCG only.
        append = ['console=ttyAMA0', 'panic=-1', 'pgfjob=9p:pgfjob']
        head = [QEMU_ARM64, '-M', 'virt,gic-version=3', '-cpu', ARM64_CPU]
    else:
        # ACPI gives the kernel the vCPUs (MADT); its PCI interrupt
        # routing costs 20 s per virtio device under TCG with the debug
        # kernel, and the PIRQ table does the same job at once: acpi=noirq.
        append = ['console=ttyS0', 'panic=-1', 'acpi=noirq', 'pgfjob=9p:pgfjob']
        head = [QEMU, '-cpu', 'host' if accel == 'kvm' else 'max']
    tcg = f'tcg,thread={"single" if ICOUNT else TCG_THREAD}'
    argv = head + ['-accel', accel if accel == 'kvm' else tcg,
                   '-smp', smp_arg(NODES), '-m', mem.rstrip('B'), '-nodefaults',
                   '-display', 'none', '-no-reboot', '-kernel', kernel,
                   '-initrd', initrd_for(arch),
                   '-virtfs', f'local,path={jobdir},mount_tag=pgfjob,security_model=none']
    argv += numa_argv(mem, NODES)
    for image in scratch_for(kernel, 'CONFIG_VIRTIO_BLK'):
        # snapshot=on: the guest's writes go to a temporary file.
        argv += ['-drive', f'file={image},if=virtio,format=raw,snapshot=on']
    if ICOUNT and accel != 'kvm':
        argv += ['-icount', 'shift=0,sleep=off']
    if share:
        argv += ['-virtfs', f'local,path={os.path.abspath(share)},'
                 'mount_tag=pgfshare,security_model=none,multidevs=remap']
        append.append('pgfshare=9p:pgfshare')
    if interactive:
        argv += ['-serial', 'mon:stdio']
    else:
        argv += ['-serial', 'stdio', '-monitor', 'none']
    if quiet:
        append.append('loglevel=4')
    return argv + ['-append', ' '.join(append)]


def guest_argv(arch, kernel, jobdir, share, mem, interactive, quiet):
    """The command line that boots `kernel` for the job in `jobdir`."""
    kernel = kernel or KERNELS[arch]
    for path in (kernel, initrd_for(arch)):
        if not os.path.exists(path):
            sys.exit(f'guest: {path} is missing; run "make" first')
    if arch == 'arm64':
        if shutil.which(QEMU_ARM64) is None:
            sys.exit(f'guest: {QEMU_ARM64} is missing; run "make rootfs-arm64" '
                     '(it installs qemu-system-arm)')
        return (qemu_argv(kernel, jobdir, share, mem, interactive, quiet,
                          'tcg', arch),
                f'QEMU+TCG arm64 -cpu {ARM64_CPU}' + (' icount' if ICOUNT else ''))
    if arch == 'um':
        problem = uml_host_problem(kernel, mem)
        if problem:
            sys.exit(f'guest: {problem}')
        return uml_argv(kernel, jobdir, share, mem, interactive, quiet), 'UML'
    if shutil.which(QEMU) is None:
        sys.exit(f'guest: {QEMU} is missing; run "make" (it installs qemu-system-x86)')
    accel = accel_for(kernel)
    return (qemu_argv(kernel, jobdir, share, mem, interactive, quiet, accel),
            f'QEMU+{accel.upper()}' + (' icount' if ICOUNT and accel != 'kvm' else ''))


def boot(jobdir, share=None, timeout=600, mem='768M', echo=True,
         quiet=False, log_name=None, arch='um', kernel=None, prefix=None):
    """Boot non-interactively; return a Boot. Kills the guest on timeout.

    echo: True shows the whole console, 'job' only the job's own output
    (and kernel messages printed meanwhile), False nothing.
    prefix: a command that runs the guest (a profiler), as argv."""
    logdir = os.path.join(BUILD, 'logs')
    os.makedirs(logdir, exist_ok=True)
    log = os.path.join(logdir, (log_name or os.path.basename(jobdir)) + '.log')
    res = Boot(jobdir, log)
    argv, res.where = guest_argv(arch, kernel, jobdir, share, mem, False, quiet)
    argv = (prefix or []) + argv
    env = dict(os.environ)
    # UML backs guest memory with a file there; tmpfs is fastest.
    if 'TMPDIR' not in env:
        env['TMPDIR'] = _uml_tmpdir()
    # Until init says the job starts, UML's and the kernel's boot chatter
    # goes to the log only (echo='job'); everything goes to the log.
    showing = echo is True
    # Before the host gives up, the guest says what each of its tasks is
    # doing (uml-rootfs/init): a hang leaves its stacks in the log. Guest
    # time is the host's except under icount, which has no deadline.
    if not ICOUNT and timeout >= 60:
        with open(os.path.join(jobdir, 'deadline'), 'w') as f:
            f.write(f'{timeout - max(30, timeout // 10)}\n')
    start = time.monotonic()
    with open(log, 'wb') as logf:
        logf.write((f'# {res.where}: ' + ' '.join(argv) + '\n').encode())
        # Its own session, so a timeout kills UML and all its helpers.
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT,
                                start_new_session=True, env=env)

        def pump():
            nonlocal showing
            for chunk in iter(lambda: proc.stdout.readline(), b''):
                logf.write(chunk)
                logf.flush()
                if chunk.startswith(JOB_START):
                    showing = bool(echo)
                    continue
                if chunk.startswith(JOB_END):
                    showing = echo is True
                    continue
                if showing:
                    sys.stdout.buffer.write(chunk)
                    sys.stdout.flush()

        t = threading.Thread(target=pump, daemon=True)
        t.start()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            res.timed_out = True
        finally:
            _kill_session(proc)
            t.join(timeout=5)
        if res.timed_out:
            logf.write(f'\n# guest.py: timeout after {timeout}s, guest killed\n'.encode())
    res.returncode = proc.returncode
    res.elapsed = time.monotonic() - start
    return res


def cmd_run(args):
    cmd = ' '.join(args.command)
    if not cmd:
        sys.exit('guest: run needs a command')
    jobdir = new_job('run', cmd=cmd + '\n')
    res = boot(jobdir, share=args.share, timeout=args.timeout,
               echo='job', quiet=True, arch=args.arch, kernel=args.kernel)
    if res.timed_out:
        print(f'guest: timeout after {args.timeout}s; log: {res.log}', file=sys.stderr)
        return 124
    if res.status is None:
        print(f'guest: the guest stopped without reporting a status; log: {res.log}',
              file=sys.stderr)
        return 125
    return res.status


def cmd_shell(args):
    jobdir = new_job('shell')
    argv, where = guest_argv(args.arch, args.kernel, jobdir, args.share,
                             args.mem, True, True)
    if where != 'UML':
        print('guest: leave with "exit"; Ctrl-A X kills QEMU', file=sys.stderr)
    try:
        rc = subprocess.call(argv)
    finally:
        if sys.stdin.isatty():
            subprocess.call(['stty', 'sane'])
    return rc


def cmd_test(args):
    # Imported here so run/shell do not depend on the test code.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import runner
    return runner.report(runner.run_guest(args.suites, args.timeout,
                                          echo=not args.quiet, arch=args.arch,
                                          kernel=args.kernel))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--arch', choices=sorted(KERNELS), default=os.environ.get('PGF_ARCH', 'um'),
                    help='the guest: um (User Mode Linux), x86_64 or arm64 (QEMU)')
    ap.add_argument('--kernel', help='the kernel image to boot (default: the test kernel)')
    sub = ap.add_subparsers(dest='what', required=True)
    p = sub.add_parser('run', help='run one command, exit with its status')
    p.add_argument('--share', default=os.path.join(TOP, 'share'))
    p.add_argument('--timeout', type=int, default=1800)
    p.add_argument('command', nargs=argparse.REMAINDER)
    p.set_defaults(fn=cmd_run)
    p = sub.add_parser('shell', help='interactive shell')
    p.add_argument('--share', default=os.path.join(TOP, 'share'))
    p.add_argument('--mem', default='768M')
    p.set_defaults(fn=cmd_shell)
    p = sub.add_parser('test', help='run in-guest test suites')
    p.add_argument('--suites', default='')
    p.add_argument('--timeout', type=int, default=1800)
    p.add_argument('--quiet', action='store_true')
    p.set_defaults(fn=cmd_test)
    args = ap.parse_args()
    if getattr(args, 'command', None) and args.command[0] == '--':
        args.command = args.command[1:]
    sys.exit(args.fn(args))


if __name__ == '__main__':
    main()
