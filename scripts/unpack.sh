#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Put a pristine Linux 6.12 tree at DEST.
#   unpack.sh DEST            from Debian's linux-source-6.12 (installed if missing)
#   unpack.sh DEST KSRC       copy of the user's tree at KSRC (never modified)
# Prints the kernel version and records it in DEST/../kernel-version.
set -euo pipefail

dest=$1
ksrc=${2:-}
tarball=/usr/src/linux-source-6.12.tar.xz

rm -rf "$dest" "$dest.tmp"
mkdir -p "$dest.tmp"

if [ -n "$ksrc" ]; then
	if [ ! -f "$ksrc/Makefile" ] || [ ! -d "$ksrc/mm" ]; then
		echo "unpack: KSRC=$ksrc is not a Linux source tree" >&2
		exit 1
	fi
	origin="KSRC=$(cd "$ksrc" && pwd)"
	rsync -a --exclude=.git "$ksrc"/ "$dest.tmp"/
	# A tree the user configured in place cannot be built with O=.
	if [ -f "$dest.tmp/.config" ] || [ -d "$dest.tmp/include/config" ]; then
		make -s -C "$dest.tmp" mrproper
	fi
else
	if [ ! -f "$tarball" ]; then
		scripts/host-deps.sh linux-source-6.12
	fi
	origin="Debian linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12)"
	tar -C "$dest.tmp" -xf "$tarball"
	mv "$dest.tmp"/linux-source-6.12/* "$dest.tmp"/linux-source-6.12/.[!.]* "$dest.tmp"/ 2>/dev/null || true
	rmdir "$dest.tmp"/linux-source-6.12
fi

version=$(make -s -C "$dest.tmp" kernelversion)
case "$version" in
6.12|6.12.*) ;;
*)	echo "unpack: this project targets Linux 6.12, the tree is $version" >&2
	exit 1 ;;
esac
mv "$dest.tmp" "$dest"
echo "$version ($origin)" > "$(dirname "$dest")/kernel-version"
echo "unpack: Linux $version from $origin"
