#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# pgfreport's throughput: generate a trace of N fault records (random
# addresses over four regions, the worst case for locality: every page
# lookup misses the caches), convert it to the binary form, then time each
# analysis on both forms, several runs, and print records per second and
# peak memory. "read" is a pass that reads and places every fault and
# reports none (summary --tid of no thread). Then the file reports on a
# generated trace of N file references (gentrace N 0 files: cache
# records over 64 files). Then the same on each TRACE
# given (real programs' traces: tracepgfault or pgfault-run output, text
# or binary, a tree file's largest process). Then the cache analyses of
# tools/lib alone (mrcbench: the same addresses, made in memory, no
# parsing): the LRU reuse-distance pass and FIFO, CLOCK and OPT at their
# default sizes. Every table also goes to build/bench/tools.json
# (scripts/benchjson.py), for the benchmarks document.
#   bench-report.sh [N [TRACE...]]
set -euo pipefail
n=${1:-10000000}
shift || true
bin=build/host/bin
tmp=$(mktemp -d --tmpdir pgf-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
tables=0
mkdir "$tmp/tables"

median() {
	local times=() rss=0 out
	for i in 1 2 3; do
		out=$( { /usr/bin/time -f '%e %M' "$bin/pgfreport" "$@" > /dev/null; } 2>&1 | tail -1)
		times+=("${out% *}")
		rss=${out#* }
	done
	echo "$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p) $rss"
}

# What the figures depend on: one cache miss per reference in the
# generated trace, so the host's CPU, its caches and what else runs.
host() {
	local model caches hv
	model=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	caches=$(lscpu 2>/dev/null | awk -F': *' '/^L[23] cache/ { sub(/ \(.*/, "", $2);
		printf "%s%s %s", sep, substr($1, 1, 2), $2; sep = ", " }')
	hv=$(lscpu 2>/dev/null | awk -F': *' '/^Hypervisor vendor/ { print $2 }')
	echo "$(nproc) CPUs, ${model:-unknown CPU}${caches:+, $caches}${hv:+, a $hv guest}," \
		"load $(cut -d' ' -f1 /proc/loadavg)"
}

# table NAME TEXT BINARY RECORDS [PID_ARGS... | FILES]: every report on
# both forms; FILES: the file reports of a trace of file references
table() {
	local name=$1 text=$2 bin_trace=$3 records=$4 title tsv kind=fault
	shift 4
	local cmds=("read" "summary" "map --width 100" "export refs" "export csv" "reuse"
		    "mrc" "mrc --jobs 1" "tlb" "hot" "wss" "prefetch" "heatmap -o $tmp/f.svg"
		    "mrc --plot $tmp/f.svg" "summary+hot+wss+reuse")
	if [ "${1:-}" = FILES ]; then
		shift
		kind=cache
		cmds=("read" "files" "export csv --files" "export refs --files"
		      "export json" "mrc --files" "reuse --files" "hot --files"
		      "wss --files" "heatmap --files -o $tmp/f.svg")
	fi
	title="pgfreport on $name: $records $kind records (text $(du -h "$text" | cut -f1), binary $(du -h "$bin_trace" | cut -f1)), median of 3 runs"
	tables=$((tables + 1))
	tsv=$tmp/tables/$tables.tsv
	printf '# %s\ncommand\ttext_s\trecords/s\tbinary_s\trecords/s\tmax_MiB\n' \
		"$title" > "$tsv"
	echo "$title, this host ($(host)):"
	printf '%-24s %8s %12s %8s %12s %8s\n' command text_s records/s bin_s records/s max_MiB
	for cmd in "${cmds[@]}"; do
		args=$cmd
		[ "$cmd" = read ] && args="summary --tid 2147483647"
		read -r ts trss <<< "$(median $args ${1+"$@"} "$text")"
		read -r bs rss <<< "$(median $args ${1+"$@"} "$bin_trace")"
		# the peak of either form (text is read ahead, in blocks)
		[ "$trss" -gt "$rss" ] && rss=$trss
		awk -v c="${cmd//$tmp\/f.svg/F.svg}" -v n="$records" -v t="$ts" -v b="$bs" \
		    -v m="$rss" -v tsv="$tsv" '
			function rate(s) { if (s > 0) return sprintf("%.0f", n / s); return "-" }
			BEGIN { printf "%-24s %8s %12s %8s %12s %8.1f\n", c, t, rate(t), b, rate(b), m / 1024
				printf "%s\t%s\t%s\t%s\t%s\t%.1f\n", c, t, rate(t), b, rate(b), m / 1024 >> tsv }'
	done
	echo
}

"$bin/gentrace" "$n" > "$tmp/g.trace"
"$bin/pgfreport" convert -o "$tmp/g.pgfb" "$tmp/g.trace" 2> /dev/null
table "a generated trace" "$tmp/g.trace" "$tmp/g.pgfb" "$n"
rm -f "$tmp/g.trace" "$tmp/g.pgfb"

# File references (tracepgfault -c): N cache records over 64 files.
"$bin/gentrace" "$n" 0 files > "$tmp/f.trace"
"$bin/pgfreport" convert -o "$tmp/f.pgfb" "$tmp/f.trace" 2> /dev/null
table "a generated trace of file references (cache records, not faults)" \
	"$tmp/f.trace" "$tmp/f.pgfb" "$n" FILES
rm -f "$tmp/f.trace" "$tmp/f.pgfb"

for t in "$@"; do
	# both forms, whichever this one is; a tree file: its largest process
	"$bin/pgfreport" convert --to text -o "$tmp/t.trace" "$t" 2> /dev/null
	"$bin/pgfreport" convert --to binary -o "$tmp/t.pgfb" "$t" 2> /dev/null
	pid=()
	if head -c 22 "$tmp/t.trace" | grep -q '^pgfault_history_tree'; then
		pid=(--pid "$("$bin/pgfreport" tree "$tmp/t.pgfb" |
			awk '$1 ~ /^[0-9]+$/ { if ($5 > max) { max = $5; p = $1 } } END { print p }')")
	fi
	# records/s of the whole file: every record is read, --pid or not
	recs=$(grep -c '^fault ' "$tmp/t.trace")
	table "$(basename "$t")${pid:+ (process ${pid[1]})}" "$tmp/t.trace" "$tmp/t.pgfb" \
		"$recs" ${pid[@]+"${pid[@]}"}
	rm -f "$tmp/t.trace" "$tmp/t.pgfb"
done

"$bin/mrcbench" "$n" | tee "$tmp/mrcbench.out"
# its table: an analysis (words), then five numbers
tables=$((tables + 1))
awk -v n="$n" 'NR == 1 { printf "# the cache analyses alone (mrcbench): %s references made in memory\n", n
		    print "analysis\tsizes\tpages\tseconds\tcpu_s\treferences/s"; next }
	NF >= 6 && $NF ~ /^[0-9]+$/ { label = $1; for (i = 2; i <= NF - 5; i++) label = label " " $i
		printf "%s\t%s\t%s\t%s\t%s\t%s\n", label, $(NF-4), $(NF-3), $(NF-2), $(NF-1), $NF }' \
	"$tmp/mrcbench.out" > "$tmp/tables/$tables.tsv"
python3 scripts/benchjson.py tools "make bench-report" \
	$(for i in $(seq 1 "$tables"); do echo "$tmp/tables/$i.tsv"; done)
