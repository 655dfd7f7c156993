#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# libCacheSim beside pgfreport (issue 31): build libCacheSim (a benchmark
# peer, never part of the project) from its public source, feed it
# pgfreport export lcs of the same traces, and check that its own LRU,
# FIFO, Clock and Belady count exactly the misses pgfreport mrc counts at
# the same sizes (tests/bench/libcachesim/lcs_misses.c prints the counts;
# cachesim prints 4 places); then the time and memory of both on each trace.
#
#   LIBCACHESIM_SRC=DIR tests/bench/libcachesim.sh [TRACE...]
#
# DIR: a libCacheSim checkout, or its git directory (it is archived without
# its large data/); required, the tree fetches nothing. Its build dependencies come
# from Debian. Without TRACE: a generated trace of 10^6 references
# (gentrace). Exits 1 if a count differs.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
src=${LIBCACHESIM_SRC:-}
if [ -z "$src" ]; then
	echo "libcachesim.sh: give LIBCACHESIM_SRC=DIR, a checkout of libCacheSim's public source (or its git directory)" >&2
	exit 2
fi
out=$top/build/libcachesim
bin=$top/build/host/bin
sizes=${SIZES:-64,256,1024,4096,16384,65536}

"$top/scripts/host-deps.sh" cmake libglib2.0-dev libzstd-dev pkg-config time
if [ ! -x "$out/build/bin/cachesim" ]; then
	rm -rf "$out/src" && mkdir -p "$out/src" "$out/build"
	if [ -f "$src/CMakeLists.txt" ]; then
		cp -a "$src/." "$out/src/"
	elif git --git-dir="$src" rev-parse HEAD >/dev/null 2>&1; then
		git --git-dir="$src" archive HEAD -- . ':!data' ':!doc' 2>/dev/null |
			tar -x -C "$out/src"
	else
		echo "libcachesim: no libCacheSim source at $src (LIBCACHESIM_SRC=DIR:" \
			"a checkout of https://github.com/1a1a11a/libCacheSim)" >&2
		exit 1
	fi
	(cd "$out/build" && cmake -DENABLE_TESTS=OFF -DCMAKE_BUILD_TYPE=Release \
		"$out/src" >/dev/null && make -j2 cachesim >/dev/null)
fi
libs=$(find "$out/build" -name '*.a' | tr '\n' ' ')
# shellcheck disable=SC2086
gcc -O2 -I "$out/src/libCacheSim/include" $(pkg-config --cflags glib-2.0) \
	"$top/tests/bench/libcachesim/lcs_misses.c" -o "$out/lcs_misses" \
	-Wl,--start-group $libs -Wl,--end-group $(pkg-config --libs glib-2.0) \
	-lzstd -lstdc++ -lm -lpthread
commit=$(git --git-dir="$src" rev-parse --short HEAD 2>/dev/null ||
	git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
traces=("$@")
if [ ${#traces[@]} -eq 0 ]; then
	"$bin/gentrace" 1000000 >"$tmp/gen1m.trace"
	traces=("$tmp/gen1m.trace")
fi
echo "libCacheSim $commit beside pgfreport, this host, sizes $sizes (pages = objects of size 1)"
status=0
for t in "${traces[@]}"; do
	name=$(basename "$t")
	"$bin/pgfreport" export lcs -o "$tmp/t.oracleGeneral" "$t" 2>/dev/null
	"$bin/pgfreport" mrc --sizes "$sizes" "$t" | grep -v '^#' |
		awk '{ print "lru", $1, $7; print "fifo", $1, $8; print "clock", $1, $9;
		       print "opt", $1, $10 }' | sort >"$tmp/ours"
	# shellcheck disable=SC2086
	"$out/lcs_misses" "$tmp/t.oracleGeneral" ${sizes//,/ } | awk '{ print $1, $2, $4 }' |
		sort >"$tmp/theirs"
	n=$(wc -l <"$tmp/ours")
	if cmp -s "$tmp/ours" "$tmp/theirs"; then
		echo "$name: the misses of all $n (policy, size) pairs are equal"
	else
		echo "$name: DIFFERENT misses (policy size pgfreport libCacheSim):"
		join -j1 <(awk '{ print $1"/"$2, $3 }' "$tmp/ours") \
			<(awk '{ print $1"/"$2, $3 }' "$tmp/theirs") | awk '$2 != $3'
		status=1
	fi
	# time and memory: pgfreport mrc (text, four policies in one pass) and
	# cachesim (its binary trace, one simulation per policy and size; its
	# Belady wants "oracleGeneral" in the file name)
	/usr/bin/time -f '%e %U %M' -o "$tmp/t1" "$bin/pgfreport" mrc --sizes "$sizes" \
		"$t" >/dev/null
	(cd "$tmp" && /usr/bin/time -f '%e %U %M' -o "$tmp/t2" "$out/build/bin/cachesim" \
		"$tmp/t.oracleGeneral" oracleGeneral lru,fifo,clock,belady "$sizes" \
		--ignore-obj-size 1 >/dev/null 2>&1)
	read -r w1 u1 m1 <"$tmp/t1"
	read -r w2 u2 m2 <"$tmp/t2"
	refs=$(grep -c '^fault' "$t" || true)
	awk -v n="$name" -v w1="$w1" -v u1="$u1" -v m1="$m1" -v w2="$w2" -v u2="$u2" \
		-v m2="$m2" -v r="$refs" 'BEGIN {
		printf "%s: %d fault records; pgfreport mrc %.2f s (%.2f s CPU), %d MiB; " \
		       "cachesim %.2f s (%.2f s CPU), %d MiB; pgfreport / cachesim: " \
		       "%.2fx wall, %.2fx CPU, %.2fx memory\n", n, r, w1, u1, m1 / 1024,
		       w2, u2, m2 / 1024, w1 / w2, u1 / (u2 ? u2 : 0.01), m1 / m2 }'
done
exit $status
