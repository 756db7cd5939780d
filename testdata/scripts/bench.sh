#!/usr/bin/env bash
# bench.sh DWPROBE VMLINUX SRC [VMLINUX...]: dwprobe and perf probe side by
# side on the same vmlinux (each one given: amd64, then arm64, which perf
# reads offline too), all of one kernel (KERNEL names it in the rows; PERF
# is that kernel's perf). Each case runs RUNS times per tool as a fresh process;
# prints medians of wall time and peak RSS, and the ratios dwprobe/perf.
#
# Modes: "first" is a first query on a machine that never saw the binary:
# dwprobe's cache empty before every run (no index, no marker; the page
# cache warm); "cold" drops the page cache before every run (when we may),
# "warm" does not; both run with dwprobe's index present (built first into a
# temporary DWPROBE_INDEX_DIR), "scan" is warm with --no-index (perf's
# figures are the warm ones). Besides the single queries:
#   index build   dwprobe --build-index into an empty directory, cold,
#                 against perf's one -D query, cold; the index's size is
#                 printed as a share of the vmlinux
#   N D specs     the conformance suite's -D specs that perf accepts (less
#                 the allow/beyond lists' deliberate differences), in one
#                 process from a spec file (-D @FILE), warm, against perf's
#                 ONE -D query: perf 6.1 stops at its first failure and
#                 needs about a second per spec; in mode "first" the
#                 cache is empty, so the run builds the index first
#                 (dwarfres.ManySpecs), the batch's cold case
#   -m MODULE     queries on modules of the vmlinux's -dbg package
# With BASE (a dwprobe binary, e.g. an earlier commit's), the second
# columns are BASE run exactly as DWPROBE is (its own index, the same modes
# and options) instead of perf: a before/after comparison of two builds on
# the same machine, the two measured one after the other per case (make
# bench-base BASE=REV).
# Environment: RUNS (default 3), MODES (default "first cold warm scan"),
# CASES (an extended regex: only the cases whose words match it), PERF
# (perf), KERNEL (a label, e.g. 6.12), MANY (the many-points function:
# kmalloc; on 6.10 and later, where kmalloc is a macro, kmalloc_noprof,
# the inline function it calls: __kmalloc_noprof has one point),
# DROP=0 (never drop the page cache: cold runs skipped, the index build
# timed on a warm one).
set -euo pipefail
export LC_ALL=C # EPOCHREALTIME's decimal point
DW=${1:?dwprobe binary}; VML=${2:?vmlinux}; SRC=${3:?source tree}
shift 3
VMLS=("$VML" "$@")
RUNS=${RUNS:-3}
MODES=${MODES:-first cold warm scan}
CASES=${CASES:-.}
PERF=${PERF:-perf}
BASE=${BASE:-}
KERNEL=${KERNEL:-}
MANY=${MANY:-kmalloc}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CONF=$(cd "$here/../conformance" && pwd)
DW=$(cd "$(dirname "$DW")" && pwd)/$(basename "$DW")
[ -z "$BASE" ] || BASE=$(cd "$(dirname "$BASE")" && pwd)/$(basename "$BASE")

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
	"-D|$MANY|--max-probes|100000"
)
# Module cases: MODULE (under the vmlinux's -dbg tree) and the query.
mod_cases=(
	"fs/overlayfs/overlay.ko|-D|ovl_lookup:8 dentry->d_name.name:string"
	"fs/btrfs/btrfs.ko|-D|btrfs_search_slot:6 key->objectid"
	"fs/xfs/xfs.ko|-V|xfs_file_read_iter"
)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
tmp=$work/time
can_drop=0
# DROP=0: never drop the page cache (a machine shared with others).
if [ "${DROP:-1}" = 1 ] && [ -w /proc/sys/vm/drop_caches ]; then can_drop=1; fi

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

drop_cache() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# measure MODE TOOL ARGS... -> "seconds kb" medians. With BEFORE set, it
# is run (quietly) before each run, after the cache drop.
measure() {
	local mode=$1; shift
	local t=() m=() failed=
	for _ in $(seq "$RUNS"); do
		[ -n "${BEFORE:-}" ] && eval "$BEFORE"
		if [ "$mode" = cold ] && [ $can_drop = 1 ]; then drop_cache; fi
		# Wall time from bash's clock (microseconds; /usr/bin/time's %e
		# counts 10 ms ticks, dwprobe's warm queries one or two), which
		# includes /usr/bin/time's own start (under a millisecond, on
		# both tools' side); peak RSS from /usr/bin/time.
		local t0=$EPOCHREALTIME
		/usr/bin/time -o "$tmp" -f '%M' "$@" >/dev/null 2>"$work/stderr" || failed=$(tail -n1 "$work/stderr")
		local t1=$EPOCHREALTIME
		t+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')"); m+=("$(tail -n1 "$tmp")")
	done
	# A failure is timed too (the batch's 6.1 specs fail in part on
	# another kernel): say so once, on stderr.
	[ -z "$failed" ] || echo "(exit status not 0: $(basename "$1") ${*:2}: $failed)" >&2
	printf '%s %s\n' "$(printf '%s\n' "${t[@]}" | median)" "$(printf '%s\n' "${m[@]}" | median)"
}

row() { # row ARCH MODE CASE DW_S DW_KB PERF_S PERF_KB
	awk -v arch="$1" -v mode="$2" -v c="$3" -v dt="$4" -v dm="$5" -v pt="$6" -v pm="$7" 'BEGIN {
		printf "%-11s %-6s %-44s %8.3f %8.3f %6.3f %8.1f %8.1f %6.2f\n", arch, mode, c, dt, pt, (pt>0?dt/pt:0), dm/1024, pm/1024, (pm>0?dm/pm:0) }'
}

# specfile GOLDEN ALLOW BEYOND OUT: the D specs perf accepted (exit 0),
# less the deliberate differences and those run with extra options.
specfile() {
	awk -F'\t' 'FILENAME != ARGV[3] { if ($1 == "D") skip[$2] = 1; next }
		/^=== D\t/ { s = substr($0, 7); getline; if ($0 == "exit 0" && !(s in skip) && index(s, "\t") == 0) print s }' "$2" "$3" "$1" > "$4"
}

arch_of() { # from e_machine: 183 is EM_AARCH64
	[ "$(od -An -tu2 -j18 -N2 "$1" | tr -d ' ')" = 183 ] && echo arm64 || echo amd64
}

# moddir VMLINUX: the -dbg package's module tree of that vmlinux.
moddir() {
	local real rel
	real=$(readlink -f "$1"); rel=${real##*/vmlinux-}
	echo "${real%/boot/*}/lib/modules/$rel/kernel"
}

declare -A perf_seen=()
has_index=0
# (Not "| grep -q": dwprobe, cut off, would fail the pipe.)
[[ $("$DW" --help 2>&1) == *--build-index* ]] && has_index=1

other=perf; [ -z "$BASE" ] || other=base
printf '%-11s %-6s %-44s %8s %8s %6s %8s %8s %6s\n' arch mode case dw_s "${other}_s" ratio dw_MB "${other}_MB" ratio
for vml in "${VMLS[@]}"; do
	arch=$(arch_of "$vml")
	sfx=; [ "$arch" = amd64 ] || sfx=-$arch
	golden_arch=$arch
	[ -z "$KERNEL" ] || arch=$KERNEL/$arch
	export DWPROBE_INDEX_DIR=$work/index-${arch//\//-}
	mkdir -p "$DWPROBE_INDEX_DIR"
	noidx=()
	if [ $has_index = 1 ]; then
		noidx=(--no-index)
		if [[ "index build" =~ $CASES ]]; then
			read -r dt dm < <(BEFORE="rm -rf '$work/fresh'; mkdir -p '$work/fresh'" \
				DWPROBE_INDEX_DIR=$work/fresh measure cold "$DW" -k "$vml" --build-index)
			if [ -n "$BASE" ]; then
				read -r pt pm < <(BEFORE="rm -rf '$work/fresh-base'; mkdir -p '$work/fresh-base'" \
					DWPROBE_INDEX_DIR=$work/fresh-base measure cold "$BASE" -k "$vml" --build-index)
			else
				read -r pt pm < <(measure cold "$PERF" probe -k "$vml" -D vfs_read)
			fi
			size=$(du -sb "$work/fresh" | cut -f1)
			bmode=cold; [ $can_drop = 1 ] || bmode=warm
			row "$arch" $bmode "index build ($(awk -v s="$size" -v v="$(stat -L -c %s "$vml")" 'BEGIN { printf "%.2f%% of vmlinux", 100*s/v }'))" "$dt" "$dm" "$pt" "$pm"
		fi
		"$DW" -k "$vml" --build-index >/dev/null 2>&1 || echo "($arch: --build-index failed)"
		[ -z "$BASE" ] || DWPROBE_INDEX_DIR=$DWPROBE_INDEX_DIR-base "$BASE" -k "$vml" --build-index >/dev/null 2>&1 ||
			echo "($arch: the base's --build-index failed)"
	fi
	# The 6.1 conformance specs, on any kernel (on another, some fail).
	specs=$work/specs-$golden_arch.txt
	specfile "$CONF/golden/perf-$golden_arch.txt" "$CONF/allow$sfx.txt" "$CONF/beyond$sfx.txt" "$specs"
	nspecs=$(wc -l < "$specs")
	for mode in $MODES; do
		[ "$mode" = cold ] && [ $can_drop = 0 ] && { echo "(cannot drop the page cache here: cold runs skipped)"; continue; }
		[ "$mode" = scan ] && [ $has_index = 0 ] && continue
		extra_dw=(); [ "$mode" = scan ] && extra_dw=("${noidx[@]}")
		pmode=$mode; [ "$mode" = scan ] || [ "$mode" = first ] && pmode=warm
		# first: every dwprobe run starts from an empty cache.
		unset BEFORE; idir=$DWPROBE_INDEX_DIR; bidir=$DWPROBE_INDEX_DIR-base; bbefore=
		[ "$mode" = first ] && { export BEFORE="rm -rf '$work/fresh'; mkdir -p '$work/fresh'"; idir=$work/fresh
			bbefore="rm -rf '$work/fresh-base'; mkdir -p '$work/fresh-base'"; bidir=$work/fresh-base; }
		for c in "${cases[@]}"; do
			[[ "${c//|/ }" =~ $CASES ]] || continue
			IFS='|' read -r -a a <<<"$c"
			extra=()
			[ "${a[0]}" = -L ] && extra=(-s "$SRC")
			read -r dt dm < <(DWPROBE_INDEX_DIR=$idir measure "$mode" "$DW" -k "$vml" "${extra_dw[@]}" "${extra[@]}" "${a[@]}")
			if [ -n "$BASE" ]; then
				read -r pt pm < <(BEFORE=$bbefore DWPROBE_INDEX_DIR=$bidir measure "$mode" "$BASE" -k "$vml" "${extra_dw[@]}" "${extra[@]}" "${a[@]}")
				row "$arch" "$mode" "${c//|/ }" "$dt" "$dm" "$pt" "$pm"
				continue
			fi
			# perf's figures do not depend on dwprobe's index: scan reuses warm's.
			key="$arch|$pmode|$c"
			if [ -z "${perf_seen[$key]:-}" ]; then
				perf_seen[$key]=$(measure "$pmode" "$PERF" probe -k "$vml" "${extra[@]}" "${a[@]}")
			fi
			read -r pt pm <<<"${perf_seen[$key]}"
			row "$arch" "$mode" "${c//|/ }" "$dt" "$dm" "$pt" "$pm"
		done
		for c in "${mod_cases[@]}"; do
			[[ "-m ${c//|/ }" =~ $CASES ]] || continue
			IFS='|' read -r -a a <<<"$c"
			mod=$(moddir "$vml")/${a[0]}
			[ -f "$mod" ] || { echo "($arch: no $mod)"; continue; }
			read -r dt dm < <(DWPROBE_INDEX_DIR=$idir measure "$mode" "$DW" "${extra_dw[@]}" -m "$mod" "${a[@]:1}")
			key="$arch|$pmode|-m|$c"
			if [ -n "$BASE" ]; then
				read -r pt pm < <(BEFORE=$bbefore DWPROBE_INDEX_DIR=$bidir measure "$mode" "$BASE" "${extra_dw[@]}" -m "$mod" "${a[@]:1}")
			else
				[ -n "${perf_seen[$key]:-}" ] || perf_seen[$key]=$(measure "$pmode" "$PERF" probe -m "$mod" "${a[@]:1}")
				read -r pt pm <<<"${perf_seen[$key]}"
			fi
			row "$arch" "$mode" "-m $(basename "${a[0]}") ${a[1]} ${a[2]}" "$dt" "$dm" "$pt" "$pm"
		done
		[ "$mode" = cold ] && continue
		[[ "$nspecs D specs" =~ $CASES ]] || continue
		read -r dt dm < <(DWPROBE_INDEX_DIR=$idir measure "$mode" "$DW" -k "$vml" "${extra_dw[@]}" -D "@$specs")
		key="$arch|warm|-D|vfs_read"
		if [ -n "$BASE" ]; then
			read -r pt pm < <(BEFORE=$bbefore DWPROBE_INDEX_DIR=$bidir measure "$mode" "$BASE" -k "$vml" "${extra_dw[@]}" -D "@$specs")
		else
			[ -n "${perf_seen[$key]:-}" ] || perf_seen[$key]=$(measure warm "$PERF" probe -k "$vml" -D vfs_read)
			read -r pt pm <<<"${perf_seen[$key]}"
		fi
		label="perf: one -D"; [ -z "$BASE" ] || label="base: the same"
		row "$arch" "$mode" "$nspecs D specs (-D @FILE; $label)" "$dt" "$dm" "$pt" "$pm"
		[ "$mode" = first ] && continue
		"$DW" -k "$vml" "${extra_dw[@]}" -D "@$specs" >/dev/null 2>"$work/err" ||
			echo "($arch $mode: $(tail -n1 "$work/err"))"
	done
done
