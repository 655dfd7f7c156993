#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Check that every option the fragments ask for made it into the final
# .config with the value asked for; Kconfig silently drops options whose
# dependencies are not met, and that must stop the build.
#   check-config.sh .config fragment...
set -euo pipefail
config=$1; shift
bad=0
for frag in "$@"; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			opt=${line%%=*}
			if ! grep -qxF -- "$line" "$config"; then
				got=$(grep -E "^($opt=|# $opt is not set)" "$config" || echo "absent")
				echo "config: $frag asks for '$line', .config has '$got'" >&2
				bad=1
			fi ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }; opt=${opt%% *}
			if grep -q "^$opt=" "$config"; then
				echo "config: $frag asks for '$line', .config has '$(grep "^$opt=" "$config")'" >&2
				bad=1
			fi ;;
		esac
	done < "$frag"
done
if [ $bad -ne 0 ]; then
	echo "config: the kernel configuration is not what the fragments ask for (see above)" >&2
	exit 1
fi
