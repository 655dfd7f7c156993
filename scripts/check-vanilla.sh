#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Apply the series to an upstream (vanilla) Linux 6.12 tree, build the UML
# test kernel from it, and run the guest suites in it once.
#   check-vanilla.sh [TARBALL-OR-DIR]
# Without an argument: the newest build/upstream/linux-6.12*.orig.tar.xz,
# or else Debian's linux-6.12 source package's upstream tarball, fetched
# with apt-get source from bookworm-security's deb-src (a private apt
# configuration: the host's sources are left alone).
# Everything is built under build/upstream; the patched Debian tree of the
# other targets is not touched.
set -euo pipefail

up=build/upstream
mkdir -p "$up"
src=${1:-}

fetch() {
	local conf=$up/apt
	mkdir -p "$conf/lists/partial"
	echo 'deb-src http://deb.debian.org/debian-security bookworm-security main' \
		> "$conf/sources.list"
	local opts=(-o Dir::Etc::sourcelist="$PWD/$conf/sources.list"
		    -o Dir::Etc::sourceparts=/dev/null
		    -o Dir::State::Lists="$PWD/$conf/lists")
	echo "check-vanilla: fetching linux-6.12's upstream tarball (apt-get source)"
	apt-get "${opts[@]}" update >/dev/null
	(cd "$up" && apt-get -o Dir::Etc::sourcelist="$PWD/apt/sources.list" \
		-o Dir::Etc::sourceparts=/dev/null -o Dir::State::Lists="$PWD/apt/lists" \
		source --download-only --tar-only linux-6.12) || {
		echo "check-vanilla: the archive did not give linux-6.12's source" \
		     "package (see above). Put linux-6.12_*.orig.tar.xz (or any" \
		     "upstream 6.12 tarball or tree) in $up, or pass it:" \
		     "make check-vanilla VANILLA=path" >&2
		exit 2
	}
}

if [ -z "$src" ]; then
	src=$(ls -1 "$up"/linux-6.12*.orig.tar.xz "$up"/linux-6.12*.tar.xz 2>/dev/null |
	      sort -V | tail -1 || true)
	if [ -z "$src" ]; then
		fetch
		src=$(ls -1 "$up"/linux-6.12*.orig.tar.xz | sort -V | tail -1)
	fi
fi

# The pristine tree: a directory as given, or the tarball unpacked once.
if [ -d "$src" ]; then
	tree=$(cd "$src" && pwd)
else
	[ -f "$src" ] || { echo "check-vanilla: $src: no such file" >&2; exit 2; }
	tree=$PWD/$up/src/$(basename "$src" | sed 's/\.tar\..*//')
	if [ ! -f "$tree/Makefile" ]; then
		echo "check-vanilla: unpacking $src"
		rm -rf "$tree" "$tree.tmp"
		mkdir -p "$tree.tmp"
		tar -C "$tree.tmp" -xf "$src"
		top=$(ls "$tree.tmp")
		[ "$(echo "$top" | wc -l)" = 1 ] && [ -f "$tree.tmp/$top/Makefile" ] || {
			echo "check-vanilla: $src does not hold a kernel tree" >&2
			exit 2
		}
		mv "$tree.tmp/$top" "$tree"
		rmdir "$tree.tmp"
	fi
fi

# The same build as the test kernel's, in build/upstream: unpack.sh copies
# KSRC, apply-patches.sh applies the series (and fails loudly where a patch
# does not apply), then the overlay and the UML test kernel.
echo "check-vanilla: the series on $tree"
make --no-print-directory BUILD="$up" KSRC="$tree" "$up/um/linux"
echo "check-vanilla: built from $(cat "$up/kernel-version")"
make --no-print-directory rootfs tools
python3 scripts/run-tests.py --guest-only --arch um --kernel "$up/um/linux" \
	${PGF_VANILLA_TIMEOUT:+--timeout "$PGF_VANILLA_TIMEOUT"}
