#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What the arm64 guest needs beyond scripts/host-deps.sh: the cross
# compiler, QEMU's aarch64 system emulator, Debian's arm64 libelf, libzstd
# and zlib for the statically linked tools and tests (dpkg's arm64
# architecture, multiarch), and Debian's static arm64 busybox, unpacked
# into DIR (installing busybox-static:arm64 would replace the host's own,
# which the other guests' initramfs takes).
# Idempotent, as host-deps.sh.
#   host-deps-arm64.sh DIR
set -euo pipefail
dir=$1

pkgs=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm
      libelf-dev:arm64 libzstd-dev:arm64 zlib1g-dev:arm64)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
need_bb=0
[ -x "$dir/bin/busybox" ] || need_bb=1
[ ${#missing[@]} -eq 0 ] && [ $need_bb -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "host-deps-arm64: needs root to install ${missing[*]:-busybox-static:arm64}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	echo "host-deps-arm64: adding dpkg's arm64 architecture"
	dpkg --add-architecture arm64
fi
apt-get update -qq
if [ ${#missing[@]} -ne 0 ]; then
	echo "host-deps-arm64: installing ${missing[*]}"
	apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ $need_bb -eq 0 ]; then
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# apt-get download writes it as its own user, _apt, where there is one
chmod 755 "$tmp"
chown _apt "$tmp" 2>/dev/null || true
(cd "$tmp" && apt-get download -qq busybox-static:arm64 >/dev/null)
rm -rf "$dir.tmp"
dpkg-deb -x "$tmp"/busybox-static_*_arm64.deb "$dir.tmp"
if ! readelf -h "$dir.tmp/bin/busybox" | grep -q AArch64; then
	echo "host-deps-arm64: busybox-static:arm64 is not an arm64 program" >&2
	exit 1
fi
rm -rf "$dir"
mv "$dir.tmp" "$dir"
