#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# pgfreport's throughput: generate a trace of N fault records (random
# addresses over four regions, the worst case for locality), then time each
# analysis on it, several runs, and print records per second and peak memory.
# Then the cache analyses of tools/lib alone (mrcbench: the same addresses,
# made in memory, no parsing): the LRU reuse-distance pass and FIFO, CLOCK
# and OPT at their default sizes.
#   bench-report.sh [N]
set -euo pipefail
n=${1:-10000000}
bin=build/host/bin
trace=$(mktemp --tmpdir pgf-bench.XXXXXX.trace)
trap 'rm -f "$trace" "$trace.svg"' EXIT
"$bin/gentrace" "$n" > "$trace"
echo "pgfreport on $n fault records ($(du -h "$trace" | cut -f1)), median of 3 runs, this host:"
printf '%-24s %10s %14s %12s\n' command seconds records/s max_rss_MiB
for cmd in "summary" "map --width 100" "export refs" "export csv" "reuse" "mrc" \
	   "tlb" "hot" "wss" "prefetch" "heatmap -o $trace.svg" \
	   "mrc --plot $trace.svg"; do
	times=()
	rss=0
	for i in 1 2 3; do
		out=$( { /usr/bin/time -f '%e %M' "$bin/pgfreport" $cmd "$trace" > /dev/null; } 2>&1 | tail -1)
		times+=("${out% *}")
		rss=${out#* }
	done
	med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
	printf '%-24s %10s %14.0f %12.1f\n' "${cmd//$trace.svg/F.svg}" "$med" "$(echo "$n / $med" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
done
echo
"$bin/mrcbench" "$n"
