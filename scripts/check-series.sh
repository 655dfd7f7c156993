#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove that the mail bisects: every prefix of the series `make patches`
# writes (build/patches/um, then build/patches/pgfault_history) builds,
# and so does the local patch on top of it (build/patches/local: the
# record path benchmark, which the mail does not carry).
#   check-series.sh [OUT]          (default build/series)
# On a pristine Linux tree (Debian's linux-source-6.12, or KSRC), the
# patches are applied one by one as a maintainer's `git am` would, and
# after each the kernel is built incrementally (ccache) in four configs:
#   um-on    UML, the feature on
#   x86-on   x86_64, the feature on
#   x86-off  x86_64, the feature off (built only after a patch that
#            touches a file of the kernel's own, not only new files,
#            Documentation/ or MAINTAINERS)
#   arm64-on arm64, the feature on (cross-compiled, gcc-aarch64-linux-gnu)
# CHECK_CONFIGS="x86-on arm64-on" builds only those.
# Each config is allnoconfig, a small arch fragment (UML: the test
# kernel's kernel-config/uml.config; x86_64 and arm64: check-x86_64.config
# and check-arm64.config, no devices) and kernel-config/check.config: every option the series'
# #ifdefs and the local patch's test, but no KASAN or lockdep (the test
# kernels build the series' end with those).
# Before the patch that adds the Kconfig option, "on" builds the kernel
# without it. At the end, every file the series touches must be what
# build/linux-src holds: the mail, with the local patch, is the code the
# tests ran.
# Prints one line per prefix and config; exits 1 if any build failed.
# Logs: OUT/logs/NN-CONFIG.log. Summary: OUT/result.txt.
# --quick: no vmlinux, only the objects of the files the series has
# touched so far (kernel files and new ones): every prefix compiles, but
# a call into a file not yet added is found only at link, by a full run.
#   check-series.sh [--quick] [OUT]
set -euo pipefail

quick=
if [ "${1:-}" = --quick ]; then
	quick=1
	shift
fi
top=$(pwd)
out=$(realpath -m "${1:-build/series}")
tree=$top/build/linux-src
jobs=${JOBS:-$(nproc)}
src=$out/src

# The UML fixes first, as the feature's mail sits on top of them.
patches=()
for d in um pgfault_history local; do
	for p in "$top"/build/patches/$d/0*.patch; do
		[ -f "$p" ] && [ "${p##*/0000-}" = "$p" ] && patches+=("$p")
	done
done
if [ ${#patches[@]} -eq 0 ]; then
	echo "check-series: no patches in build/patches: run make patches" >&2
	exit 1
fi

read -r -a configs <<< "${CHECK_CONFIGS:-um-on x86-on x86-off arm64-on}"
for c in "${configs[@]}"; do
	case $c in um-on | x86-on | x86-off | arm64-on) ;;
	*) echo "check-series: no config $c (um-on x86-on x86-off arm64-on)" >&2; exit 1 ;;
	esac
done
arch_of() { case $1 in um-*) echo um ;; arm64-*) echo arm64 ;; *) echo x86_64 ;; esac; }
frags_of() {
	local k=$top/kernel-config
	case $1 in
	um-on) echo "$k/uml.config $k/check.config $k/pgfault.config" ;;
	x86-on) echo "$k/check-x86_64.config $k/check.config $k/pgfault.config" ;;
	x86-off) echo "$k/check-x86_64.config $k/check.config" ;;
	arm64-on) echo "$k/check-arm64.config $k/check.config $k/pgfault.config" ;;
	esac
}
kmake() {	# kmake CONFIG ARGS...
	if [ "$(arch_of "$1")" = arm64 ]; then
		set -- "$1" CROSS_COMPILE=aarch64-linux-gnu- \
			CC="ccache aarch64-linux-gnu-gcc" "${@:2}"
	else
		set -- "$1" CC="ccache gcc" "${@:2}"
	fi
	make -C "$src" O="$out/obj-$1" ARCH="$(arch_of "$1")" \
		HOSTCC="ccache gcc" "${@:2}"
}
configure() {	# configure CONFIG: the fragments on the current tree
	local obj=$out/obj-$1
	# shellcheck disable=SC2046
	[ -f "$obj/.config" ] || kmake "$1" -s allnoconfig
	ARCH=$(arch_of "$1") "$src/scripts/kconfig/merge_config.sh" -m \
		-O "$obj" "$obj/.config" $(frags_of "$1") >/dev/null
	kmake "$1" -s olddefconfig
}

export CCACHE_BASEDIR=$out CCACHE_NOHASHDIR=1
rm -rf "$out/src" "$out/logs" "$out"/obj-*
mkdir -p "$out/logs"
scripts/unpack.sh "$src" ${KSRC:+"$KSRC"} >/dev/null

# generic PATCH: does it touch a file the kernel already had?
generic() {
	local f
	for f in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1"); do
		case $f in Documentation/* | MAINTAINERS) continue ;; esac
		[ -f "$out/base/$f" ] && return 0
	done
	return 1
}
# The base's files, to tell the kernel's own from the series' new ones.
rm -rf "$out/base"
mkdir -p "$out/base"
(cd "$src" && cp -a --parents $(cat "${patches[@]}" |
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' | sort -u |
	while read -r f; do [ -f "$f" ] && echo "$f"; done) "$out/base/")

# Does CONFIG compile the C file @2? Its directory's Makefile names its
# object on a line whose first CONFIG_ symbol, if it has one, must be set
# (mm/Makefile: obj-$(CONFIG_TRANSPARENT_HUGEPAGE) += huge_memory.o).
configured() {	# configured CONFIG FILE
	local mk=$src/$(dirname "$2")/Makefile o sym
	o=$(basename "${2%.c}").o
	[ -f "$mk" ] || return 0
	sym=$(grep -E "(^|[[:space:]=])${o//./[.]}([[:space:]]|\\\\|$)" "$mk" |
	      grep -o 'CONFIG_[A-Z0-9_]*' | head -1 || true)
	[ -z "$sym" ] || grep -q "^$sym=[ym]" "$out/obj-$1/.config"
}

# targets CONFIG: what to build: vmlinux, or (--quick) the objects of the
# C files the series touched so far that this config compiles, and the
# feature's directories.
targets() {
	local f o
	if [ -z "$quick" ]; then
		echo vmlinux
		return
	fi
	echo prepare
	for f in $(cat "${patches[@]:0:$n}" /dev/null |
		   sed -n 's|^+++ b/\([^[:space:]]*\.c\)$|\1|p' | sort -u); do
		o=${f%.c}.o
		[ -f "$src/$f" ] || continue
		# the series' new files: with the feature, below
		[ -f "$out/base/$f" ] || continue
		# UML's files in UML's build only, x86's in x86_64's, arm64's
		# in arm64's
		case $1:$f in
		*:*/user-offsets.c) continue ;;	# makes a header, not an object
		um-*:arch/x86/um/* | um-*:arch/um/*) ;;
		x86-*:arch/x86/um/*) continue ;;
		x86-*:arch/x86/*) ;;
		arm64-*:arch/arm64/*) ;;
		*:arch/*) continue ;;
		esac
		configured "$1" "$f" || continue
		echo "$o"
	done
	if grep -q '^CONFIG_PGFAULT_HISTORY=y' "$out/obj-$1/.config" 2>/dev/null; then
		[ -f "$src/mm/pgfault_history/Makefile" ] && echo mm/pgfault_history/
	fi
	return 0
}

# The files every patch of the mail touches, as an extended regex.
touched_re() {
	cat "${patches[@]}" | sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' | sort -u |
		sed 's/[.]/[.]/g' | paste -sd'|'
}

result=$out/result.txt
: > "$result"
fail=0
start=$SECONDS
build() {	# build N NAME CONFIG
	local log=$out/logs/$(printf '%02d' "$1")-$3.log t0=$SECONDS st
	if configure "$3" > "$log" 2>&1 &&
	   kmake "$3" -j"$jobs" $(targets "$3") >> "$log" 2>&1; then
		st=ok
	else
		st=FAILED
		fail=1
	fi
	# A warning in a file the series touches fails the prefix too.
	if [ $st = ok ] && grep -E "^[^ :]*($(touched_re)):[0-9]+:[0-9]+: warning:" "$log" >&2; then
		st="FAILED (warnings)"
		fail=1
	fi
	if [ "$3" != x86-off ] &&
	   grep -q '^config PGFAULT_HISTORY$' "$src/mm/pgfault_history/Kconfig" 2>/dev/null; then
		grep -qx 'CONFIG_PGFAULT_HISTORY=y' "$out/obj-$3/.config" ||
			{ st="FAILED (option off)"; fail=1; }
	fi
	if [ "$3" = x86-off ] && grep -q 'CONFIG_PGFAULT_HISTORY=y' "$out/obj-$3/.config"; then
		st="FAILED (option on)"
		fail=1
	fi
	printf '%2d %-8s %-20s %4ds  %s\n' "$1" "$3" "$st" $((SECONDS - t0)) "$2" |
		tee -a "$result"
}

n=0
for c in "${configs[@]}"; do build 0 "(the base)" "$c"; done
for p in "${patches[@]}"; do
	n=$((n + 1))
	name=$(sed -n 's/^Subject: \(\[[^]]*\] \)\{0,1\}//p' "$p" | head -1)
	if ! patch -d "$src" -p1 -s -f --no-backup-if-mismatch < "$p" > "$out/logs/$(printf '%02d' $n)-apply.log" 2>&1; then
		printf '%2d %-8s %-20s %4ds  %s\n' $n all "FAILED (applying)" 0 "$name" | tee -a "$result"
		fail=1
		continue
	fi
	for c in "${configs[@]}"; do
		if [ "$c" = x86-off ] && ! generic "$p"; then
			continue
		fi
		build $n "$name" "$c"
	done
done

# The series' end is the tree the tests ran.
diffs=0
while read -r f; do
	[ -n "$f" ] || continue
	if ! cmp -s "$src/$f" "$tree/$f"; then
		echo "check-series: $f differs from build/linux-src/$f" | tee -a "$result"
		diffs=1
	fi
done < <(cat "${patches[@]}" | sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' | sort -u)
if [ $diffs = 0 ]; then
	echo "check-series: the series' end is build/linux-src (every file it touches)" | tee -a "$result"
else
	fail=1
fi
echo "check-series: ${#patches[@]} patches, ${#configs[@]} configs, $((SECONDS - start)) s: $([ $fail = 0 ] && echo 'every prefix builds' || echo FAILED)" |
	tee -a "$result"
exit $fail
