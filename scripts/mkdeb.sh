#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A Debian binary package of the user tools, built with dpkg-deb:
#   mkdeb.sh OUTDIR
# It installs the host-built tools (build/host/bin) with `make install
# PREFIX=/usr DESTDIR=...`, compresses the man pages, strips the binaries,
# writes the copyright and changelog Debian policy asks for, computes the
# dependencies with dpkg-shlibdeps, and runs lintian when it is installed.
set -euo pipefail

out=$1
pkg=pgfault-history-tools
# The format's version as the kernel has it: the header at its last stage
# (the source holds every stage's, scripts/stage.sh).
uapi=$(mktemp)
trap 'rm -f "$uapi"' EXIT
scripts/stage.sh all include/uapi/linux/pgfault_history.h "$uapi"
fmt=$(sed -n 's/^#define PGFAULT_HISTORY_VERSION[[:space:]]*\([0-9]*\).*/\1/p' "$uapi")
date=$(git log -1 --format=%cd --date=format:%Y%m%d 2>/dev/null || true)
version=0.$fmt${date:++git$date}
arch=$(dpkg --print-architecture)
# Debian's variables name the maintainer; the default is a placeholder,
# which lintian's two bogus-mail-host tags are told to accept.
maint="${DEBFULLNAME:-pgfault_history developers} <${DEBEMAIL:-pgfault@localhost}>"
suppress=
[ -n "${DEBEMAIL:-}" ] || suppress=bogus-mail-host,bogus-mail-host-in-debian-changelog
stage=$out/stage
rm -rf "$out"
mkdir -p "$stage"

make --no-print-directory -s install PREFIX=/usr DESTDIR="$stage" INSTALL_GUEST=0
strip --remove-section=.comment --remove-section=.note --strip-unneeded \
	"$stage"/usr/bin/*
gzip -9n "$stage"/usr/share/man/man*/*

doc=$stage/usr/share/doc/$pkg
mkdir -p "$doc"
cat > "$doc/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: pgfault_history
Source: the pgfault_history project (tools/ of its repository)

Files: *
Copyright: 2026 pgfault_history developers
License: GPL-2
 This program is free software; you can redistribute it and/or modify it
 under the terms of the GNU General Public License version 2.
 .
 On Debian systems, the full text of the GNU General Public License
 version 2 can be found in /usr/share/common-licenses/GPL-2.
EOF
commit=$(git log -1 --format=%h 2>/dev/null || true)
cat > "$doc/changelog" <<EOF
$pkg ($version) unstable; urgency=medium

  * Built from the pgfault_history tree${commit:+ at commit $commit}.

 -- $maint  $(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")
EOF
gzip -9n "$doc/changelog"

# Dependencies, as dpkg-shlibdeps computes them for the binaries.
shl=$out/shlibs
mkdir -p "$shl/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$pkg" "$pkg" \
	> "$shl/debian/control"
depends=$(cd "$shl" && dpkg-shlibdeps -O "$PWD/../stage/usr/bin/"* 2>/dev/null |
	  sed -n 's/^shlibs:Depends=//p')

size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
mkdir -p "$stage/DEBIAN"
cat > "$stage/DEBIAN/control" <<EOF
Package: $pkg
Version: $version
Architecture: $arch
Maintainer: $maint
Installed-Size: $size
Depends: $depends
Recommends: python3
Suggests: python3-pandas
Section: devel
Priority: optional
Description: record and analyse per-process page fault traces
 tracepgfault runs a command under /proc/<pid>/pgfault_history, the
 page fault and address space trace of a kernel built with
 CONFIG_PGFAULT_HISTORY, and writes the trace to a file. pgfreport reads
 such traces on any machine: region maps, summaries, reuse distance,
 miss ratio curves, hot pages, working sets, sampled reference bits,
 SVG plots and CSV or JSON exports. The Python module pgfault_trace
 reads them too, as records or (with pandas) typed DataFrames.
EOF
(cd "$stage" && find usr -type f -exec md5sum {} + | sort -k2) > "$stage/DEBIAN/md5sums"
find "$stage" -type d -exec chmod 755 {} +

deb=$out/${pkg}_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "mkdeb: $deb"
dpkg-deb --info "$deb" | sed -n 's/^ \(Package\|Version\|Depends\):/  \1:/p'
if command -v lintian >/dev/null; then
	lintian --tag-display-limit 0 ${suppress:+--suppress-tags "$suppress"} "$deb" &&
		echo "mkdeb: lintian is clean${suppress:+ (placeholder maintainer address: set DEBEMAIL)}"
fi
