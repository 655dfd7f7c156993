#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot the UML guest for one job: run a command, a shell, or test suites.

  guest.py run [--share DIR] [--timeout S] -- 'command'
  guest.py shell [--share DIR]
  guest.py test [--suites a,b] [--timeout S]

The job is described in a fresh directory under build/jobs/ that the guest
mounts through hostfs (see uml-rootfs/init); the guest writes its exit
status, its KTAP output and its dmesg back there. The whole console output
is saved as build/logs/<job>.log.
"""

import argparse
import os
import signal
import subprocess
import sys
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(TOP, 'build')
KERNEL = os.path.join(BUILD, 'um', 'linux')
SHARE = os.path.join(TOP, 'share')
INITRD = os.path.join(BUILD, 'initramfs.cpio.gz')
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


def uml_argv(jobdir, share, mem, interactive, quiet):
    for path in (KERNEL, INITRD):
        if not os.path.exists(path):
            sys.exit(f'guest: {path} is missing; run "make" first')
    argv = [KERNEL, f'mem={mem}', f'initrd={INITRD}', f'pgfjob={jobdir}',
            'con=null', 'ssl=null',
            'con0=fd:0,fd:1' if interactive else 'con0=null,fd:1']
    if share:
        argv.append(f'pgfshare={os.path.abspath(share)}')
    if quiet:
        argv.append('loglevel=4')   # warnings and worse still show
    return argv


def boot(jobdir, share=None, timeout=600, mem='768M', echo=True,
         quiet=False, log_name=None):
    """Boot non-interactively; return a Boot. Kills the guest on timeout.

    echo: True shows the whole console, 'job' only the job's own output
    (and kernel messages printed meanwhile), False nothing."""
    logdir = os.path.join(BUILD, 'logs')
    os.makedirs(logdir, exist_ok=True)
    log = os.path.join(logdir, (log_name or os.path.basename(jobdir)) + '.log')
    res = Boot(jobdir, log)
    argv = uml_argv(jobdir, share, mem, False, quiet)
    env = dict(os.environ)
    # UML backs guest memory with a file there; tmpfs is fastest.
    if 'TMPDIR' not in env and os.path.isdir('/dev/shm'):
        env['TMPDIR'] = '/dev/shm'
    # Until init says the job starts, UML's and the kernel's boot chatter
    # goes to the log only (echo='job'); everything goes to the log.
    showing = echo is True
    start = time.monotonic()
    with open(log, 'wb') as logf:
        logf.write(('# ' + ' '.join(argv) + '\n').encode())
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
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
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
               echo='job', quiet=True)
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
    argv = uml_argv(jobdir, args.share, args.mem, True, True)
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
                                          echo=not args.quiet))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
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
