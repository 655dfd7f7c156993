#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Bring the patches applied to TREE in line with kernel-patches/series.
# Copies of what was applied last time are kept in STATE; the patches that
# changed (and everything after them) are reverted with those copies and the
# new ones applied, so files no patch touches keep their timestamps and the
# kernel build stays incremental.
#   apply-patches.sh TREE STATE
set -euo pipefail

tree=$1
state=$2
pdir=kernel-patches
mkdir -p "$state"
touch "$state/series"

mapfile -t want < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$pdir/series")
mapfile -t have < "$state/series"

for p in "${want[@]}"; do
	[ -f "$pdir/$p" ] || { echo "patch: $pdir/series names $p, which does not exist" >&2; exit 1; }
done

# Longest common prefix of identical patches stays applied.
keep=0
while [ $keep -lt ${#have[@]} ] && [ $keep -lt ${#want[@]} ] &&
      [ "${have[$keep]}" = "${want[$keep]}" ] &&
      cmp -s "$state/$keep.patch" "$pdir/${want[$keep]}"; do
	keep=$((keep + 1))
done

for ((i = ${#have[@]} - 1; i >= keep; i--)); do
	echo "patch: reverting ${have[$i]}"
	if ! patch -d "$tree" -p1 -R -s -f -E < "$state/$i.patch" >/dev/null; then
		echo "patch: could not revert ${have[$i]}; run 'make distclean' and build again" >&2
		exit 1
	fi
	rm -f "$state/$i.patch"
	sed -i '$d' "$state/series"
done

for ((i = keep; i < ${#want[@]}; i++)); do
	p=${want[$i]}
	if ! patch -d "$tree" -p1 -N -s -f -E --dry-run < "$pdir/$p" >/dev/null 2>"$state/err"; then
		echo "patch: $pdir/$p does not apply to $(cat "$(dirname "$state")/kernel-version"):" >&2
		patch -d "$tree" -p1 -N -f -E --dry-run < "$pdir/$p" >&2 || true
		exit 1
	fi
	echo "patch: applying $p"
	patch -d "$tree" -p1 -N -s -f -E < "$pdir/$p"
	cp "$pdir/$p" "$state/$i.patch"
	echo "$p" >> "$state/series"
done
rm -f "$state/err"
