#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# pgfreport's throughput: generate a trace of N fault records (random
# addresses over four regions, the worst case for locality: every page
# lookup misses the caches), convert it to the binary form, then time each
# analysis on both forms, several runs, and print records per second and
# peak memory. "read" is a pass that reads and places every fault and
# reports none (summary --tid of no thread). Then the cache analyses of
# tools/lib alone (mrcbench: the same addresses, made in memory, no
# parsing): the LRU reuse-distance pass and FIFO, CLOCK and OPT at their
# default sizes.
#   bench-report.sh [N]
set -euo pipefail
n=${1:-10000000}
bin=build/host/bin
trace=$(mktemp --tmpdir pgf-bench.XXXXXX.trace)
trap 'rm -f "$trace" "$trace.pgfb" "$trace.svg"' EXIT
"$bin/gentrace" "$n" > "$trace"
"$bin/pgfreport" convert -o "$trace.pgfb" "$trace" 2> /dev/null
echo "pgfreport on $n fault records (text $(du -h "$trace" | cut -f1)," \
	"binary $(du -h "$trace.pgfb" | cut -f1)), median of 3 runs, this host:"
printf '%-24s %8s %12s %8s %12s %8s\n' command text_s records/s bin_s records/s max_MiB
median() {
	local times=() rss=0 out
	for i in 1 2 3; do
		out=$( { /usr/bin/time -f '%e %M' "$bin/pgfreport" "$@" > /dev/null; } 2>&1 | tail -1)
		times+=("${out% *}")
		rss=${out#* }
	done
	echo "$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p) $rss"
}
for cmd in "read" "summary" "map --width 100" "export refs" "export csv" "reuse" \
	   "mrc" "tlb" "hot" "wss" "prefetch" "heatmap -o $trace.svg" \
	   "mrc --plot $trace.svg" "summary+hot+wss+reuse"; do
	args=$cmd
	[ "$cmd" = read ] && args="summary --tid 2147483647"
	read -r ts _ <<< "$(median $args "$trace")"
	read -r bs rss <<< "$(median $args "$trace.pgfb")"
	printf '%-24s %8s %12.0f %8s %12.0f %8.1f\n' "${cmd//$trace.svg/F.svg}" \
		"$ts" "$(echo "$n / $ts" | bc -l)" "$bs" "$(echo "$n / $bs" | bc -l)" \
		"$(echo "$rss / 1024" | bc -l)"
done
echo
"$bin/mrcbench" "$n"
