#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# makebench.sh PROJ [REPS]: what tracepgfault -f costs on "make -j2" of a
# small C project (tests/bench/proj), untraced and traced, REPS times each
# (treebench does the timing and the counting).
#
# Runs in a guest booted with the host's root shared at /host
# (guest.py run --share /): the guest's rootfs is busybox only, so the
# build uses the host's own make and gcc, chrooted into /host, which is
# remounted read-only first; the guest's /tmp, /proc and /dev are bound
# over the host's, so the build writes only to the guest's tmpfs.
# PROJ is the project's path as the guest sees it (/host/...).
set -e
proj=$1
reps=${2:-3}
[ -f "$proj/Makefile" ] || { echo "makebench: no project at '$proj'" >&2; exit 1; }
[ -x /host/usr/bin/make ] && [ -x /host/usr/bin/gcc ] ||
	{ echo "makebench: the shared root has no make or gcc" >&2; exit 1; }
mount -o remount,ro /host
for d in tmp proc dev; do
	mount -o bind "/$d" "/host/$d"
done
rm -rf /tmp/proj
cp -r "$proj" /tmp/proj
chroot /host make -s -C /tmp/proj clean
exec /usr/lib/pgfault/bench/treebench 1 "$reps" \
	"chroot /host sh -c 'make -s -C /tmp/proj clean && make -s -j2 -C /tmp/proj'"
