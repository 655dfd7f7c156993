#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The overlay's files at one stage of the series. The patch series adds
# the feature in stages, each a commit of the mail (scripts/mkpatches.sh):
#
#   core      the trace, its rings and the fault hook
#   proc      the /proc/<pid>/pgfault_history file
#   regions   the layout and every region (VMA) change
#   rearm     re-arming pages: re-references, interval mode
#   window    window mode
#   sample    sampling accessed bits
#   inherit   process trees: new processes traced too
#   files     file I/O: the page cache pages of reads and writes
#   phys      the physical side: the frame behind each fault
#   changes   the frames the kernel changes behind the process's back
#
# A file of mm/ and include/ holds the code of every stage; what
# a later stage adds is between "#ifdef PGF_STAGE_<NAME>" and "#endif" (or
# "#ifndef" for what it removes, "#else" for what it replaces), as
# headers_install strips __KERNEL__. In C these are preprocessor lines; in
# a Makefile or Kconfig, comments. This writes SRC as it is at STAGE:
# those blocks of the stages up to STAGE kept and their marker lines gone,
# those of later stages dropped. "all" is the last stage and the local
# part, between "#ifdef PGF_LOCAL" and "#endif": what the kernel tree
# holds (the Makefile installs every file of the overlay so) and the mail
# does not (the record path benchmark: kernel-patches/series, #@local).
# Which stage a whole new file arrives with, kernel-patches/series says.
#   stage.sh STAGE SRC DEST
#   stage.sh --list            the stages, in order
set -euo pipefail

stages=(core proc regions rearm window sample inherit files phys changes)
if [ "${1:-}" = --list ]; then
	printf '%s\n' "${stages[@]}"
	exit 0
fi
[ $# -eq 3 ] || { echo "usage: stage.sh STAGE SRC DEST" >&2; exit 2; }
stage=$1 src=$2 dest=$3
args=(-UPGF_LOCAL) found=
[ "$stage" = all ] && stage=${stages[-1]} args=(-DPGF_LOCAL)
for s in "${stages[@]}"; do
	if [ -z "$found" ]; then
		args+=("-DPGF_STAGE_${s^^}")
	else
		args+=("-UPGF_STAGE_${s^^}")
	fi
	[ "$s" = "$stage" ] && found=1
done
[ -n "$found" ] || { echo "stage.sh: no stage $stage (stage.sh --list)" >&2; exit 2; }
# Not C: no strings, comments or continuations to parse.
case $src in *.[ch]) ;; *) args+=(-t) ;; esac
tmp=$(mktemp "${TMPDIR:-/tmp}/stage.XXXXXX")
trap 'rm -f "$tmp"' EXIT
# -B: no run of blank lines where a block was; -x2: 0 unless an error.
unifdef -B -x2 "${args[@]}" -o "$tmp" "$src"
if grep -n 'PGF_STAGE_\|PGF_LOCAL' "$tmp" >&2; then
	echo "stage.sh: $src: a stage marker unifdef did not take (an #if expression?)" >&2
	exit 1
fi
install -D -m644 "$tmp" "$dest"
