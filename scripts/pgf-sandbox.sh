#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pgf-sandbox.sh VIEW RW-DIR... -- COMMAND [ARG...]
#
# Run COMMAND (the guest: UML or QEMU) with the host's root read-only, as
# the host kernel enforces it, whatever the guest's root does: run by
# pgfault-run under "unshare --mount --pid --fork", it makes VIEW a
# recursive bind of / with every mount in it read-only, binds each RW-DIR
# back writable at its own path, gives VIEW a /dev of its own (null, zero,
# full, random, urandom, tty, and kvm where there is one: no disk), a fresh
# /dev/shm (the guest's memory, UML's own files) and a /proc of the new pid
# namespace, and becomes COMMAND inside VIEW. Every process of the guest then has VIEW as its root: hostfs
# and 9p reach nothing else, and no magic link of /proc leads out.
set -euo pipefail

view=$1
shift
rw=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	rw+=("$1")
	shift
done
[ "${1:-}" = -- ] || { echo "pgf-sandbox: usage: VIEW RW-DIR... -- COMMAND" >&2; exit 2; }
shift

fail() {
	echo "pgfault-run: cannot set up the read-only view of the host: $*" >&2
	exit 125
}

mount --make-rprivate / || fail "mount --make-rprivate /"
mount --rbind / "$view" || fail "mount --rbind / $view"
# Deepest mounts last does not matter: each is remounted on its own.
findmnt -R -n -l -o TARGET "$view" | while read -r m; do
	mount -o remount,bind,ro "$m" 2>/dev/null || {
		# A mount that cannot be read-only (rare: a stale one) goes.
		umount -l "$m" 2>/dev/null || exit 1
	}
done || fail "a mount under $view stays writable"
# Nothing of the host's /dev, /proc, /sys: their own. (/tmp, /run stay,
# read-only: the checkout, the current directory may be there.)
for d in proc sys dev; do
	umount -R "$view/$d" 2>/dev/null || true
done
mount -t tmpfs -o mode=755,size=1M pgf-dev "$view/dev"
for n in null zero full random urandom tty kvm; do
	[ -e "/dev/$n" ] || continue
	touch "$view/dev/$n"
	mount --bind "/dev/$n" "$view/dev/$n"
done
mkdir -p "$view/dev/shm" "$view/dev/pts"
mount -t tmpfs -o mode=1777 pgf-shm "$view/dev/shm"
mount -t proc proc "$view/proc"
mount -t sysfs -o ro sysfs "$view/sys"
for d in "${rw[@]}"; do
	# under a fresh tmpfs (/dev/shm) the mount point is made there
	[ -d "$view$d" ] || mkdir -p "$view$d" 2>/dev/null || true
	mount --bind "$d" "$view$d" || fail "cannot share $d writable"
done
# Check what we promise: the root does not take a write.
if touch "$view/.pgf-write-test" 2>/dev/null; then
	rm -f "$view/.pgf-write-test"
	fail "the root of the view takes writes"
fi
cd "$view"
exec chroot "$view" "$@"
