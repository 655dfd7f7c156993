#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the build, the guest and the test runner need.
# Idempotent: installs only what is missing, so a warm machine pays nothing.
# Usage: scripts/host-deps.sh [extra-package...]
set -euo pipefail

pkgs=(
	make gcc libc6-dev        # tools and tests, linked statically
	bc bison flex libelf-dev libssl-dev perl python3 # kernel build
	unifdef                   # the overlay's feature stages (scripts/stage.sh)
	zlib1g-dev libzstd-dev binutils # libelf (static too, pgfreport symbols), compressed traces; readelf in tests
	chromium                  # host tests: pgfreport html's page in a real browser
	protobuf-compiler         # host tests: protoc decodes export perfetto's trace
	python3-pandas zstd       # host tests: the Python reader's DataFrame, .zst traces
	xz-utils cpio gzip rsync  # unpacking the source, packing the initramfs
	ccache                    # incremental and warm rebuilds
	time                      # benchmarks: /usr/bin/time
	busybox-static            # the guest's userland
	qemu-system-x86           # the x86_64 guest
	librsvg2-bin              # host tests: rsvg-convert renders the charts
	python3-docutils          # make docs: the kernel documentation
	mandoc man-db             # host tests: the man pages' lint
	bash-completion           # the tools' completion
	dpkg-dev lintian          # make deb
	util-linux sqlite3        # pgfault-run (unshare, mount) and its tests
	debhelper kmod            # make kernel-deb (the kernel's bindeb-pkg)
	file                      # host tests: the kernel package's image
	liburcu-dev               # host tests: the kernel's VMA tests (tools/testing/vma)
	e2fsprogs                 # the guests' scratch disks (mkfs.ext4)
	xfsprogs                  # (mkfs.xfs)
	dwarves                   # pahole: the benchmark kernels' BTF
	"$@"
)


missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "host-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "host-deps: these Debian packages are missing and I am not root:" >&2
	echo "    apt-get install -y ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
