# SPDX-License-Identifier: GPL-2.0
"""Small traces the host suites share: every record type of format
version 9 with each field set (EVERY), a tree file (TREE), version 1
(OLD); write() puts one in a file; gentrace() makes a generated one;
on_terminal() runs a command on a pty."""
import os
import select
import subprocess

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
BIN = os.path.join(TOP, 'build', 'host', 'bin')

# Every record type the format has (version 9), each field set.
EVERY = '''pgfault_history 9 pid 7 page_size 4096
start 100 sample=50 inherit files
layout 100 2
map 100 1 400000 401000 r-xp 0 08:01 1234 /bin/with space
map 100 2 7f0000000000 7f0000004000 rw-p 1000 fd:1f 0
fault 200 7 400010 x user minor 400010
fault 210 8 7f0000001000 w kernel major 400020
fault 220 7 7f0000002000 r user reref 400030
fault 230 7 0 r user SIGSEGV 400040
fault 240 7 7f0000003000 w user SIGBUS 400050
fault 250 8 7f0000003000 w user OOM 400060
remote 260 7 r minor
remote 261 7 w major
change 270 2 7f0000000000 7f0000008000 rw-p 1000 fd:1f 0
rearm 280 12 window
child 290 7 9
child 291 7 10 untraced
refs 300 7 400000+1 7f0000001000+3
sample 310 7 40 4 1234
sample 320 7 40 0 99 baseline incomplete stopped
sample 330 7 40 40 5 incomplete
file 331 0 08:01 1234 /bin/with space
file 332 1 00:2a 77 /tmp/data
cache 333 7 0 0 4 r miss
cache 334 7 0 4 12 r readahead
cache 335 8 1 3 2 w hit
cache 336 7 1 9 1 r hole
cache 337 7 1 20 8 w direct
fault 338 7 7f0000003000 w user minor 400070 1a2b3 1 0 pte
fault 339 8 7f0000002000 r kernel reref 400080 ffffffffff - 9 pmd
move 339 55 7f0000001000 1 numa 0 1 1a2b3 2c3d4 0 pte
evict 339 0 7f0000002000 1 kswapd 1 - 2c3d4 - 0 pte
split 339 0 7f0000000000 4 - 0 0
collapse 339 77 7f0000000000 4 madvise - 1 - 3e000 9 pmd
mapped 339 90 7f0000003000 1 remote - 0 - 4f000 0 pte
lost 3 4
unmap 340 1
stop 350 exiting now
exec 360 7 /usr/bin/next prog
layout 370 1
map 370 5 555555554000 555555556000 r--p 0 08:01 99 /usr/bin/next prog
exit 400 0 7 3 1 cache 5 0
'''

TREE = '''pgfault_history_tree 1 root 10
pid 10
pgfault_history 5 pid 10 page_size 4096
start 1000000 first inherit
layout 1000000 1
map 1000000 1 1000 3000 rw-p 0 00:00 0
child 1050000 10 11
fault 1100000 10 1000 w user minor 0
pid 11
pgfault_history 5 pid 11 page_size 4096
start 1060000 first inherit
layout 1060000 1
map 1060000 1 1000 3000 rw-p 0 00:00 0
fault 1200000 11 2000 w user minor 0
exit 1300000 0 1 0 1
pid 10
exit 1400000 0 1 0 1
'''

OLD = '''pgfault_history 1 pid 1 page_size 4096
start 5
layout 5 1
map 5 1 8048000 805a000 r-xp 0 08:01 42 /bin/ps
fault 6 1 8048000 r user minor 8048000
exit 9 0 1 0 1
'''


def ended(text):
    """@text, the hand-made trace of one process, ended as the kernel ends
    a trace: an exit record with its totals (the counted fault and remote
    records, the faults its lost records count, the highest region id)
    after the last record, unless it ends with an exit or a stop already.
    pgfreport warns of, and exits 1 for, a trace with no end."""
    kept = lost = regions = 0
    time = '0'
    last = ''
    for line in text.splitlines():
        f = line.split()
        if not f or f[0].startswith('pgfault_history'):
            continue
        last = f[0]
        if f[0] in ('fault', 'remote') and len(f) > 6 - 2 * (f[0] == 'remote'):
            result = f[6] if f[0] == 'fault' else f[4]
            kept += result in ('minor', 'major', 'reref')
        elif f[0] == 'lost':
            lost += int(f[1])
        elif f[0] in ('map', 'change'):
            regions = max(regions, int(f[2]))
        if f[0] != 'lost' and len(f) > 1 and f[1].isdigit():
            time = f[1]
    if last in ('exit', 'stop'):
        return text
    if text and not text.endswith('\n'):
        text += '\n'
    return text + f'exit {time} 0 {kept} {lost} {regions}\n'


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, 'w') as f:
        f.write(text)
    return path


def gentrace(d, n, name='g.trace'):
    """A generated trace of @n faults over four regions (tests/bench/gentrace.c)."""
    path = os.path.join(d, name)
    with open(path, 'w') as f:
        subprocess.run([os.path.join(BIN, 'gentrace'), str(n)], stdout=f,
                       check=True, timeout=120)
    return path


def pgfreport(*args, timeout=300):
    """Run pgfreport with @args: (exit status, standard output, standard
    error)."""
    p = subprocess.run([os.path.join(BIN, 'pgfreport'), *args],
                       capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def on_terminal(argv, timeout=30):
    """Run @argv with a pty as its terminal (standard input, output and
    error); (its wait status, all it wrote). Fails if it waits on the
    terminal longer than @timeout seconds."""
    import pty
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(argv[0], argv)
    out = b''
    while True:
        r, _, _ = select.select([fd], [], [], timeout)
        assert r, f'{argv} waited on the terminal'
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    return status, out
