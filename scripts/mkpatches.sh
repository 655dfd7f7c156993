#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Write the patches as mail: two series, each git format-patch with a
# cover letter.
#   mkpatches.sh TREE OUT
# OUT/um: the UML fixes, the patches that touch nothing but arch/um and
# arch/x86/um: they stand on their own (for linux-um), each names the
# commit it fixes (Fixes:), and the UML test kernel needs them; cover
# letter kernel-patches/mail/cover-letter-um.
# OUT/pgfault_history: the feature, on top of them (it builds without
# them); cover letter kernel-patches/mail/cover-letter.
# TREE is the patched tree (build/linux-src). The base is rebuilt from it:
# the files the series touches, with the series reverted. Then one commit
# per kernel-patches/series entry, the UML fixes first, else in order.
# The feature's new files (mm/, include/) come in stages (scripts/stage.sh:
# core, proc, regions, rearm, window, sample, inherit, files, phys, changes), and the series
# says where, in comment lines the other readers skip:
#   #@add FILE...        the next commit adds these files of the project
#   #@local MSG FILE...  the local part (scripts/stage.sh: the PGF_LOCAL
#                        blocks, and these files of the project): not in
#                        the mail, but a patch of its own on top of it,
#                        OUT/local, with the message MSG; the tree holds
#                        it. More #@local lines name more FILEs.
#   #@stage NAME [MSG]   from the next commit on, the files are as they
#                        are at stage NAME: the files added so far change
#                        with it. With MSG (a file: subject, blank line,
#                        body), that is a commit of its own, which also
#                        takes the #@add lines before it; else the next
#                        patch's commit carries it.
# Every file of the project arrives once, the stages end at the last, and
# so the series' end, with the local patch, is the tree the tests ran.
# Besides:
#   - a MAINTAINERS-only patch goes in with the next commit that adds
#     files of the subsystem (checkpatch asks for MAINTAINERS there): the
#     entry with the Kconfig, the rest with the next;
#   - the documentation patch also adds Documentation/.
# The cover letter is kernel-patches/mail/cover-letter (first line the
# subject); the result is checked with checkpatch.pl --strict.
set -euo pipefail

tree=$1
out=$(realpath -m "$2")
top=$(pwd)
pdir=$top/kernel-patches
work=$(mktemp -d "${TMPDIR:-/tmp}/mkpatches.XXXXXX")
trap 'rm -rf "$work"' EXIT

mapfile -t series < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$pdir/series")
# The whole series in order: patch names, and the #@ lines (mkpatches.sh's).
mapfile -t entries < <(awk '/^#@/ { sub(/^#@[[:space:]]*/, "@"); print; next }
	{ sub(/#.*/, ""); gsub(/[[:space:]]/, "") } $0 != "" { print }' "$pdir/series")
# A patch's own subject carries no number: format-patch numbers the series.
if numbered=$(cd "$pdir" && grep -l '^Subject: \[[^]]*[0-9]/[0-9]' "${series[@]}"); then
	echo "mkpatches: a numbered subject prefix in $numbered: make it [PATCH]" >&2
	exit 1
fi
touched() { sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$@" | sort -u; }
# Every file of a patch has its index line, as git writes them.
for p in "${series[@]}"; do
	nd=$(grep -c '^diff --git ' "$pdir/$p" || true)
	ni=$(grep -c '^index [0-9a-f]*\.\.[0-9a-f]*' "$pdir/$p" || true)
	nf=$(touched "$pdir/$p" | wc -l)
	if [ "$nd" != "$nf" ] || [ "$ni" != "$nf" ]; then
		echo "mkpatches: $p: $nf files, $nd diff --git and $ni index lines: write it with git (format-patch)" >&2
		exit 1
	fi
done
# The UML fixes: every file under arch/um or arch/x86/um.
is_um() { ! touched "$pdir/$1" | grep -qv -e '^arch/um/' -e '^arch/x86/um/'; }
um=() feature=()
for p in "${series[@]}"; do
	if is_um "$p"; then
		if ! grep -q '^Fixes: [0-9a-f]\{12\} ("' "$pdir/$p"; then
			echo "mkpatches: $p is a UML fix: it needs a Fixes: tag" >&2
			exit 1
		fi
		um+=("$p")
	else
		feature+=("$p")
	fi
done

# The base: the touched files as they were before the series.
repo=$work/repo
mkdir -p "$repo"
git -C "$repo" init -q
while read -r f; do
	[ -f "$tree/$f" ] || continue
	install -D -m644 "$tree/$f" "$repo/$f"
done < <(touched "${series[@]/#/$pdir/}")
for ((i = ${#series[@]} - 1; i >= 0; i--)); do
	if ! patch -d "$repo" -p1 -R -s -f -E < "$pdir/${series[$i]}" >/dev/null; then
		echo "mkpatches: cannot revert ${series[$i]} in a copy of $tree" >&2
		exit 1
	fi
done
version=$(cat "$(dirname "$tree")/kernel-version" 2>/dev/null || echo unknown)
export GIT_AUTHOR_NAME=base GIT_AUTHOR_EMAIL=base@localhost
export GIT_COMMITTER_NAME="pgfault_history developers"
export GIT_COMMITTER_EMAIL=pgfault@localhost
export GIT_AUTHOR_DATE="2026-01-01 00:00:00 +0000"
export GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
git -C "$repo" add -A
git -C "$repo" commit -q -m "Linux $version: the files the series touches"
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE

# The documentation, added with the patch that links it.
add_docs() {
	(cd "$top/Documentation" && find . -type f -name '*.rst') |
	while read -r f; do
		install -D -m644 "$top/Documentation/$f" "$repo/Documentation/${f#./}"
	done
}
# The MAINTAINERS-only patches: the entry, then what joins it. Each goes
# in with the next commit that adds files of the subsystem (checkpatch
# asks for MAINTAINERS there): the entry with the Kconfig, the rest with
# the next.
maint=()
for p in "${series[@]}"; do
	[ "$(touched "$pdir/$p")" = MAINTAINERS ] && maint+=("$p")
done
maint_next=0
add_maintainers() {
	[ $maint_next -lt ${#maint[@]} ] || return 0
	git -C "$repo" mailinfo -k "$work/m2" "$work/d2" < "$pdir/${maint[$maint_next]}" >/dev/null
	patch -d "$repo" -p1 -s -f -E < "$work/d2"
	maint_next=$((maint_next + 1))
}
is_maint() {
	local m
	for m in "${maint[@]}"; do [ "$m" = "$1" ] && return 0; done
	return 1
}

# The project's new files at a stage (scripts/stage.sh), at their path in
# the kernel, which is their path in the project.
mapfile -t overlay < <(cd "$top" && find mm include -type f \
	\( -name '*.[ch]' -o -name Makefile -o -name Kconfig \) | sort)
mapfile -t stages < <("$top/scripts/stage.sh" --list)
stage=${stages[0]} last_stage=${stages[-1]}
added=() pending=() local_msg= local_files=()
put() {		# put FILE: install the project's FILE at $stage
	(cd "$top" && scripts/stage.sh "$stage" "$1" "$repo/$1")
}
is_added() {
	local f
	for f in "${added[@]}"; do [ "$f" = "$1" ] && return 0; done
	return 1
}
# The #@ lines before the next commit: restage (and a commit of its own).
restage=
take_pending() {	# the files of #@add lines, and a stage change
	local f
	if [ -n "$restage" ]; then
		for f in "${added[@]}"; do put "$f"; done
		restage=
	fi
	[ ${#pending[@]} -gt 0 ] || return 0
	for f in "${pending[@]}"; do
		[ -f "$top/$f" ] || { echo "mkpatches: series: #@add $f: no such file" >&2; exit 1; }
		is_added "$f" && { echo "mkpatches: series: #@add $f twice" >&2; exit 1; }
		put "$f"
		added+=("$f")
	done
	pending=()
	add_maintainers
}

# covered: does the subsystem's MAINTAINERS entry name every file the
# commit being made adds? checkpatch asks "does MAINTAINERS need
# updating?" of any patch that adds a file; where the entry already
# covers them all, the answer is no, and that one warning is off for it.
covered() {
	local f pat ok
	mapfile -t pats < <(sed -n '/^PAGE FAULT HISTORY$/,/^$/s/^F:\t//p' "$repo/MAINTAINERS")
	while read -r f; do
		[ -n "$f" ] || continue
		ok=
		for pat in "${pats[@]}"; do
			case $pat in
			*/) [[ $f == "$pat"* ]] && ok=1 ;;
			*) [ "$f" = "$pat" ] && ok=1 ;;
			esac
		done
		[ -n "$ok" ] || return 1
	done < <(git -C "$repo" diff --cached --name-only --diff-filter=A)
}

# The commits: the base, the UML fixes (up to um_tip), then the feature.
base=$(git -C "$repo" rev-parse HEAD)
um_tip=$base
: > "$work/covered"
n_um=0 n_feature=0
# commit ID AUTHOR EMAIL DATE SUBJECT MSGFILE: what is in the repo now
commit() {
	git -C "$repo" add -A
	if [ -n "$(git -C "$repo" diff --cached --name-only --diff-filter=A)" ] && covered; then
		echo "$1" >> "$work/covered"
	fi
	GIT_AUTHOR_DATE=$4 GIT_COMMITTER_DATE=$4 \
	git -C "$repo" commit -q --author="$2 <$3>" \
		-F <(printf '%s\n\n' "$5"; cat "$6")
}
# apply P: a patch of the series, as a commit
apply() {
	local p=$1 files subject author email date id
	files=$(touched "$pdir/$p")
	git -C "$repo" mailinfo -k "$work/msg" "$work/diff" < "$pdir/$p" > "$work/info"
	if ! patch -d "$repo" -p1 -s -f -E < "$work/diff" > "$work/err"; then
		echo "mkpatches: $p does not apply:" >&2
		cat "$work/err" >&2
		exit 1
	fi
	if grep -q '^Documentation/' <<<"$files" && [ -d "$top/Documentation" ]; then
		add_docs
	fi
	subject=$(sed -n 's/^Subject: //p' "$work/info")
	author=$(sed -n 's/^Author: //p' "$work/info")
	email=$(sed -n 's/^Email: //p' "$work/info")
	date=$(sed -n 's/^Date: //p' "$work/info")
	subject=$(sed 's/^\[[^]]*\] *//' <<<"$subject")
	if is_um "$p"; then
		n_um=$((n_um + 1)); id=um/$(printf %04d $n_um)
	else
		n_feature=$((n_feature + 1)); id=pgfault_history/$(printf %04d $n_feature)
	fi
	commit "$id" "$author" "$email" "$date" "$subject" "$work/msg"
}

for p in "${um[@]}"; do
	apply "$p"
	um_tip=$(git -C "$repo" rev-parse HEAD)
done
for e in "${entries[@]}"; do
	case $e in
	@add\ *)
		read -ra f <<<"${e#@add }"
		pending+=("${f[@]}")
		;;
	@stage\ *)
		read -r _ stage msg <<<"$e"
		[[ " ${stages[*]} " == *" $stage "* ]] ||
			{ echo "mkpatches: series: no stage $stage" >&2; exit 1; }
		restage=1
		if [ -n "$msg" ]; then
			[ -f "$top/$msg" ] || { echo "mkpatches: series: no $msg" >&2; exit 1; }
			take_pending
			n_feature=$((n_feature + 1))
			sed 1,2d "$top/$msg" > "$work/msg"
			commit "pgfault_history/$(printf %04d $n_feature)" \
				"pgfault_history developers" pgfault@localhost \
				"2026-01-01 00:00:00 +0000" "$(head -1 "$top/$msg")" "$work/msg"
		fi
		;;
	@local\ *)
		read -ra f <<<"${e#@local }"
		if [ -z "$local_msg" ]; then
			local_msg=${f[0]} f=("${f[@]:1}")
			[ -f "$top/$local_msg" ] || { echo "mkpatches: series: no $local_msg" >&2; exit 1; }
		fi
		local_files+=("${f[@]}")
		;;
	@*)
		echo "mkpatches: series: what is '#$e'?" >&2
		exit 1
		;;
	*)
		is_um "$e" && continue
		is_maint "$e" && continue
		take_pending
		apply "$e"
		;;
	esac
done
# Every file of the project, at its last stage.
if [ ${#pending[@]} -gt 0 ] || [ -n "$restage" ]; then
	echo "mkpatches: series: #@ lines after the last patch" >&2
	exit 1
fi
if [ "$stage" != "$last_stage" ]; then
	echo "mkpatches: series: the stages end at $stage, not $last_stage" >&2
	exit 1
fi
is_local() {
	local f
	for f in "${local_files[@]}"; do [ "$f" = "$1" ] && return 0; done
	return 1
}
for f in "${overlay[@]}"; do
	is_added "$f" || is_local "$f" ||
		{ echo "mkpatches: series: no #@add or #@local brings $f" >&2; exit 1; }
done

rm -rf "$out"
mkdir -p "$out"
# mail DIR PREFIX FROM TO COVER: format-patch FROM..TO into OUT/DIR
mail() {
	local dir=$out/$1 cover
	git -C "$repo" format-patch -q --cover-letter --subject-prefix="$2" \
		--no-signature -o "$dir" "$3..$4"
	cover=$(ls "$dir"/0000-*.patch)
	python3 - "$cover" "$5" "$version" <<'EOF'
import sys
path, src, version = sys.argv[1:]
text = open(path).read()
lines = open(src).read().split('\n')
subject, body = lines[0], '\n'.join(lines[1:]).strip('\n')
body = body.replace('@VERSION@', version)
text = text.replace('*** SUBJECT HERE ***', subject)
text = text.replace('*** BLURB HERE ***', body)
open(path, 'w').write(text)
EOF
	echo "mkpatches: $(ls "$dir" | wc -l) files in $dir ($(head -1 "$5"))"
}
mail um PATCH "$base" "$um_tip" "$pdir/mail/cover-letter-um"
mail pgfault_history 'RFC PATCH' "$um_tip" HEAD "$pdir/mail/cover-letter"
# The local part: every file as the tree has it, and the local files.
if [ -n "$local_msg" ]; then
	for f in "${added[@]}" "${local_files[@]}"; do
		[ -f "$top/$f" ] || { echo "mkpatches: series: #@local $f: no such file" >&2; exit 1; }
		(cd "$top" && scripts/stage.sh all "$f" "$repo/$f")
	done
	sed 1,2d "$top/$local_msg" > "$work/msg"
	commit local/0001 "pgfault_history developers" pgfault@localhost \
		"2026-01-01 00:00:00 +0000" "$(head -1 "$top/$local_msg")" "$work/msg"
	git -C "$repo" format-patch -q --no-signature -o "$out/local" HEAD~1..HEAD
	echo "mkpatches: $(ls "$out/local" | wc -l) file in $out/local ($(head -1 "$top/$local_msg"))"
fi

# checkpatch, as a maintainer would run it on the mail; but the tree has
# no git history to look up the upstream commits a Fixes: tag names.
status=0
for f in "$out"/*/0*.patch; do
	case $f in */0000-*) continue ;; esac
	ignore=UNKNOWN_COMMIT_ID
	id=$(basename "$(dirname "$f")")/$(basename "$f" | cut -c1-4)
	grep -qx "$id" "$work/covered" && ignore=$ignore,FILE_PATH_CHANGES
	# The local patch is never mailed: MAINTAINERS does not name its files.
	case $id in local/*) ignore=$ignore,FILE_PATH_CHANGES ;; esac
	if ! perl "$tree/scripts/checkpatch.pl" --strict --no-tree \
		--ignore "$ignore" -q "$f"; then
		echo "mkpatches: checkpatch complains about $(basename "$f")" >&2
		status=1
	fi
done
[ $status = 0 ] && echo "mkpatches: checkpatch --strict is clean on every patch"
exit $status
