# SPDX-License-Identifier: GPL-2.0
"""make kernel-deb (issue 28): the x86_64 kernel as a Debian package, held
to what a user installing it on a real machine relies on; and the arm64
one, make kernel-deb ARCH=arm64 (issue 51).

The package is what bindeb-pkg built in build/kernel-deb. It must be a
linux-image package dpkg accepts on this Debian host; the kernel in it
must carry the feature and no debug options; and that very image, taken
out of the package, must boot under QEMU on the host's own root (as
pgfault-run boots it) and pass the whole guest suite (under a minute on
TCG: without the test kernel's KASAN and lockdep, it runs ~10x faster).

The arm64 package, in build/kernel-deb-arm64, is held to the same, but
that dpkg takes it here only with --force-architecture, and its image
boots the arm64 guest's initramfs (the host's root is amd64). make test
does not build it, so its checks skip when it is missing, unless
PGF_KDEB_ARM64=1 (make test-arm64, which builds it) says it must be
there."""
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
from ktaplib import Skip, test, main  # noqa: E402

DEB_DIRS = {'x86_64': os.path.join(TOP, 'build', 'kernel-deb'),
            'arm64': os.path.join(TOP, 'build', 'kernel-deb-arm64')}
DPKG_ARCH = {'x86_64': 'amd64', 'arm64': 'arm64'}
RUN = os.path.join(TOP, 'scripts', 'pgfault-run')
# Set in the test kernels' configs for the tests' sake, never in this one.
DEBUG_OPTIONS = ('KASAN', 'PROVE_LOCKING', 'DEBUG_LOCK_ALLOC', 'LOCKDEP',
                 'DEBUG_VM', 'DEBUG_PAGEALLOC', 'PGFAULT_HISTORY_DEBUG',
                 'KCSAN', 'DEBUG_INFO')
WANTED = {'PGFAULT_HISTORY': 'y', 'NUMA_BALANCING': 'y', 'OVERLAY_FS': 'y',
          '9P_FS': 'y', 'VIRTIO_PCI': 'y', 'VIRTIO_BLK': 'y'}

_unpacked = {}


def image_deb(arch='x86_64'):
    debs = [p for p in glob.glob(os.path.join(DEB_DIRS[arch], 'linux-image-*.deb'))
            if '-dbg_' not in p]
    if not debs:
        if arch == 'arm64' and os.environ.get('PGF_KDEB_ARM64') == '1':
            raise AssertionError(f'no package in {DEB_DIRS[arch]}: '
                                 'make kernel-deb ARCH=arm64')
        if arch == 'arm64':
            raise Skip('no arm64 package: make kernel-deb ARCH=arm64 '
                       '(make test-arm64 builds it)')
        raise Skip('no package: make kernel-deb (make test builds it)')
    assert len(debs) == 1, debs
    return debs[0]


def field(deb, name):
    return subprocess.run(['dpkg-deb', '-f', deb, name], capture_output=True,
                          text=True, check=True).stdout.strip()


def unpacked(arch='x86_64'):
    """The package's files, unpacked once; (root, kernel release)."""
    if arch not in _unpacked:
        deb = image_deb(arch)
        d = tempfile.mkdtemp(prefix='kernel-deb-')
        subprocess.run(['dpkg-deb', '-x', deb, d], check=True)
        images = glob.glob(os.path.join(d, 'boot', 'vmlinuz-*'))
        assert len(images) == 1, images
        _unpacked[arch] = (d, os.path.basename(images[0])[len('vmlinuz-'):])
    return _unpacked[arch]


def check_package(arch):
    deb = image_deb(arch)
    root, release = unpacked(arch)
    pkg = field(deb, 'Package')
    print(f'# {os.path.basename(deb)}: {pkg} {field(deb, "Version")}')
    assert pkg == f'linux-image-{release}', (pkg, release)
    assert release.endswith('-pgfault'), release
    assert field(deb, 'Architecture') == DPKG_ARCH[arch]
    for f in (f'boot/vmlinuz-{release}', f'boot/config-{release}',
              f'boot/System.map-{release}', f'lib/modules/{release}/modules.order'):
        assert os.path.isfile(os.path.join(root, f)), f
    # deb.config's module that calls the inline vm_flags modifiers (the
    # build's modpost fails unless the feature's hooks are exported).
    uio = glob.glob(os.path.join(root, 'lib', 'modules', release, 'kernel',
                                 'drivers', 'uio', 'uio.ko*'))
    assert uio, 'no drivers/uio/uio.ko in the package'
    # The maintainer scripts run the hooks that make an initramfs and the
    # boot loader entry on a Debian machine.
    ctl = subprocess.run(['dpkg-deb', '-I', deb], capture_output=True,
                         text=True, check=True).stdout
    for script in ('postinst', 'postrm'):
        assert script in ctl, ctl
    # dpkg accepts it here: dependencies and conflicts, without installing
    # (an arm64 package on this amd64 host: as a foreign architecture's).
    force = ['--force-architecture'] if arch != 'x86_64' else []
    r = subprocess.run(['dpkg', '--dry-run', *force, '-i', deb],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    # The image is the architecture's own.
    r = subprocess.run(['file', '-b', '-z', os.path.join(root, 'boot', f'vmlinuz-{release}')],
                       capture_output=True, text=True, check=True)
    print(f'# vmlinuz-{release}: {r.stdout.strip()}')
    want = {'x86_64': 'x86 boot', 'arm64': 'ARM64'}[arch]
    assert want.lower() in r.stdout.lower(), r.stdout


@test
def the_package_is_a_linux_image_for_this_machine():
    check_package('x86_64')


@test
def the_arm64_package_is_a_linux_image_dpkg_takes_as_arm64s():
    check_package('arm64')


def check_config(arch):
    root, release = unpacked(arch)
    config = {}
    with open(os.path.join(root, 'boot', f'config-{release}')) as f:
        for line in f:
            if line.startswith('CONFIG_'):
                k, v = line.rstrip('\n').split('=', 1)
                config[k[len('CONFIG_'):]] = v
    for k, v in WANTED.items():
        assert config.get(k) == v, (k, config.get(k))
    on = [k for k in DEBUG_OPTIONS if config.get(k, 'n') != 'n']
    assert not on, on
    return config


@test
def the_kernel_has_the_feature_and_no_debug_options():
    check_config('x86_64')


@test
def the_arm64_kernel_has_the_feature_and_no_debug_options():
    config = check_config('arm64')
    # re-arming's two ways on arm64: the access flag's hardware update
    # where the CPU has it (NUMA hinting then), software AF faults where not
    assert config.get('ARM64_HW_AFDBM') == 'y', config.get('ARM64_HW_AFDBM')


@test
def the_packaged_kernel_traces_a_host_program_on_the_hosts_root():
    root, release = unpacked()
    image = os.path.join(root, 'boot', f'vmlinuz-{release}')
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([RUN, '-q', '--arch', 'x86_64', '--kernel', image, '--',
                            'python3', '-c', 'import os; print(os.uname().release)'],
                           cwd=d, capture_output=True, timeout=900)
        assert r.returncode == 0, r
        assert r.stdout.decode().strip() == release, r.stdout
        faults, exit_rec = 0, None
        with open(os.path.join(d, 'pgfault.trace')) as f:
            for line in f:
                w = line.split()
                if not w:
                    continue
                if ((w[0] == 'fault' and w[6] in ('minor', 'major', 'reref')) or
                        (w[0] == 'remote' and w[4] in ('minor', 'major', 'reref'))):
                    faults += 1
                elif w[0] == 'exit':
                    exit_rec = (int(w[3]), int(w[4]))
        print(f'# python3 on {release}: {faults} faults, exit record {exit_rec}')
        assert exit_rec == (faults, 0), (faults, exit_rec)
        assert faults > 100, faults


def guest_suite(arch):
    import runner
    root, release = unpacked(arch)
    image = os.path.join(root, 'boot', f'vmlinuz-{release}')
    # This kernel has jump labels: one TCG thread (see guest.TCG_THREAD).
    runner.guest.TCG_THREAD = 'single'
    rep = runner.run_guest((), timeout=1200, echo=False,
                           name=f'kernel-deb-{arch}', arch=arch, kernel=image)
    c = rep.counts()
    print(f'# the guest suite on {release}: {c["pass"]} passed, {c["fail"]} failed, '
          f'{c["skip"]} skipped; console log {os.path.relpath(rep.log, TOP)}')
    for path, status in rep.leaves:
        if status == 'fail':
            print(f'# not ok: {path}')
    assert not rep.errors, rep.errors
    assert not rep.splats, rep.splats
    assert c['fail'] == 0 and c['pass'] > 100, c
    # The guest really ran this kernel.
    with open(rep.log, errors='replace') as f:
        assert release in f.read(), 'the console log does not name ' + release


@test
def the_guest_suite_passes_on_the_packaged_kernel():
    guest_suite('x86_64')


@test
def the_guest_suite_passes_on_the_packaged_arm64_kernel():
    guest_suite('arm64')


if __name__ == '__main__':
    try:
        main()
    finally:
        for root, _ in _unpacked.values():
            subprocess.run(['rm', '-rf', root])
