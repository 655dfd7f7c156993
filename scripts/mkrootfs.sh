#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Pack the guest's initramfs: Debian's static busybox, uml-rootfs/, the
# project's static tools (usr/bin), test suites (usr/lib/pgfault/tests),
# the runner's self-test programs (usr/lib/pgfault/selftests) and the
# benchmarks (usr/lib/pgfault/bench).
#   mkrootfs.sh OUT.cpio.gz GUESTDIR [BUSYBOX]
# GUESTDIR holds bin/, tests/ and selftests/ as built by the Makefile;
# BUSYBOX is the host's /bin/busybox unless given (the arm64 guest's:
# scripts/host-deps-arm64.sh).
set -euo pipefail
out=$1
guest=$2
stage=$out.d

bb=${3:-/bin/busybox}
if [ ! -x "$bb" ] || readelf -l "$bb" | grep -q INTERP; then
	echo "rootfs: $bb is not static; install busybox-static" >&2
	exit 1
fi

rm -rf "$stage"
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,usr/lib/pgfault,proc,sys,dev,tmp,root,etc}
cp "$bb" "$stage/bin/busybox"
# the applets of the host's busybox of the same version (an arm64 one
# does not run here)
for applet in $(/bin/busybox --list-full); do
	[ -e "$stage/$applet" ] || ln -s /bin/busybox "$stage/$applet"
done
cp -r uml-rootfs/etc/. "$stage/etc/"
install -m755 uml-rootfs/init "$stage/init"
install -m755 uml-rootfs/run-tests "$stage/usr/lib/pgfault/run-tests"
install -m755 uml-rootfs/run-bench "$stage/usr/lib/pgfault/run-bench"
install -m755 uml-rootfs/run-peers "$stage/usr/lib/pgfault/run-peers"
for d in bin tests selftests bench; do
	[ -d "$guest/$d" ] || continue
	case $d in
	bin) dst=$stage/usr/bin ;;
	*)   dst=$stage/usr/lib/pgfault/$d ;;
	esac
	mkdir -p "$dst"
	find "$guest/$d" -maxdepth 1 -type f -perm -u+x -exec cp {} "$dst/" \;
done
chmod 1777 "$stage/tmp"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
