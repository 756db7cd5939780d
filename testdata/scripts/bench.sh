#!/usr/bin/env bash
# bench.sh DWPROBE VMLINUX SRC: dwprobe and perf probe side by side on the same
# vmlinux. Each case runs RUNS times per tool as a fresh process; "cold" runs
# drop the page cache first (when we may), "warm" runs do not. Prints medians
# of wall time and peak RSS, and the ratio dwprobe/perf.
set -euo pipefail
DW=${1:?dwprobe binary}; VML=${2:?vmlinux}; SRC=${3:?source tree}
RUNS=${RUNS:-5}
# One case per line, its words separated by '|' (specs hold spaces).
cases=(
	"-D|vfs_read"
	"-D|vfs_read:12"
	"-D|getname_flags"
	"-L|vfs_read"
	"-D|fs/read_write.c:470"
	"-F|vfs_*"
	"-D|vfs_read:12 file->f_mode buf count \$comm"
	"-D|getname_flags filename:ustring"
	"-V|vfs_read:12"
	"-V|getname_flags"
)
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
can_drop=0
if [ -w /proc/sys/vm/drop_caches ]; then can_drop=1; fi

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

measure() { # measure MODE TOOL ARGS... -> "seconds kb" medians
	local mode=$1; shift
	local t=() m=()
	for _ in $(seq "$RUNS"); do
		if [ "$mode" = cold ] && [ $can_drop = 1 ]; then sync; echo 3 > /proc/sys/vm/drop_caches; fi
		local out
		/usr/bin/time -o "$tmp" -f '%e %M' "$@" >/dev/null 2>&1 || true
		out=$(tail -n1 "$tmp")
		t+=("${out% *}"); m+=("${out#* }")
	done
	printf '%s %s\n' "$(printf '%s\n' "${t[@]}" | median)" "$(printf '%s\n' "${m[@]}" | median)"
}

printf '%-6s %-40s %10s %10s %7s %10s %10s %7s\n' mode case dw_s perf_s ratio dw_MB perf_MB ratio
for mode in cold warm; do
	[ "$mode" = cold ] && [ $can_drop = 0 ] && { echo "(cannot drop the page cache here: cold runs skipped)"; continue; }
	for c in "${cases[@]}"; do
		IFS='|' read -r -a a <<<"$c"
		extra=()
		[ "${a[0]}" = -L ] && extra=(-s "$SRC")
		read -r dt dm < <(measure "$mode" "$DW" -k "$VML" "${extra[@]}" "${a[@]}")
		read -r pt pm < <(measure "$mode" perf probe -k "$VML" "${extra[@]}" "${a[@]}")
		awk -v mode="$mode" -v c="${c//|/ }" -v dt="$dt" -v pt="$pt" -v dm="$dm" -v pm="$pm" 'BEGIN {
			printf "%-6s %-40s %10.3f %10.3f %7.2f %10.1f %10.1f %7.2f\n", mode, c, dt, pt, (pt>0?dt/pt:0), dm/1024, pm/1024, (pm>0?dm/pm:0) }'
	done
done
