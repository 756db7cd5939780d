#!/usr/bin/env bash
# bench-trace.sh DWPROBE: the cost of dwprobe trace against the tracefs
# event of the same definition, on this host's uprobes (it has no
# kprobes), in one run:
#   per hit   a program calls hit(i, name) N times; its wall time with no
#             probe, with `dwprobe trace 'hit i name:string'` attached, and
#             with the same definition added by `dwprobe -a` and enabled:
#             (probed - bare) / N for each, and the ratio trace/tracefs
#   attach    1,000 points (f0..f999): from `dwprobe trace` starting to its
#             "tracing" line, against `dwprobe --apply` of the 1,000
#             definitions -D prints (and their deletion, not timed)
# Each figure is the median of RUNS (default 3); N defaults to 20,000:
# a uprobe hit costs tens of microseconds on a virtual machine. Needs root.
set -euo pipefail
export LC_ALL=C
DW=${1:?dwprobe binary}
RUNS=${RUNS:-3}
N=${N:-20000}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"; "$DW" -q -d "bench_trace:*" >/dev/null 2>&1 || true' EXIT
prog=$work/hits
gcc -g -O2 -o "$prog" "$here/../bench/hits.c"
TRACEFS=${TRACEFS:-/sys/kernel/tracing}

now() { echo "$EPOCHREALTIME"; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# wall CMD...: seconds CMD takes.
wall() { local t0 t1; t0=$(now); "$@" >/dev/null; t1=$(now); echo "$t1 - $t0" | bc -l; }
# traced CMD...: wall time of the program while `dwprobe trace` runs
# with the spec of CMD's arguments.
start_trace() { # start_trace SPEC...: starts dwprobe trace, waits for it to attach
	coproc TR { exec "$DW" trace -x "$prog" "$@" 2>&1 >/dev/null; }
	local l
	while read -r l <&"${TR[0]}"; do case $l in tracing*) return 0 ;; esac; done
	echo "bench-trace: dwprobe trace did not attach" >&2
	exit 1
}
stop_trace() { kill -INT "$TR_PID" 2>/dev/null || true; wait "$TR_PID" 2>/dev/null || true; }

bare=(); traced=(); events=()
for ((r = 0; r < RUNS; r++)); do
	bare+=("$(wall "$prog" "$N")")
	start_trace 'hit i name:string'
	traced+=("$(wall "$prog" "$N")")
	stop_trace
	"$DW" -q -x "$prog" -a 'bench_trace:hit=hit i name:string' >/dev/null
	echo 1 >"$TRACEFS/events/bench_trace/hit/enable"
	events+=("$(wall "$prog" "$N")")
	echo 0 >"$TRACEFS/events/bench_trace/hit/enable"
	"$DW" -q -d 'bench_trace:*' >/dev/null
done
b=$(printf '%s\n' "${bare[@]}" | median)
t=$(printf '%s\n' "${traced[@]}" | median)
e=$(printf '%s\n' "${events[@]}" | median)
printf 'per hit (%d hits, median of %d): bare %.3f s; dwprobe trace %.3f s = %.0f ns/hit; tracefs event %.3f s = %.0f ns/hit; ratio %.2f\n' \
	"$N" "$RUNS" "$b" "$t" "$(echo "($t - $b) * 1000000000 / $N" | bc -l)" "$e" "$(echo "($e - $b) * 1000000000 / $N" | bc -l)" \
	"$(echo "($t - $b) / ($e - $b)" | bc -l)"

# 1,000 points: one spec per function, the same for both.
tspecs=(); for ((i = 0; i < 1000; i++)); do tspecs+=("f$i x"); done
for ((i = 0; i < 1000; i++)); do printf 'bench_trace:f%d=f%d x\n' "$i" "$i"; done >"$work/specs"
"$DW" -q -x "$prog" -D "@$work/specs" >"$work/defs"
attach=(); apply=()
for ((r = 0; r < RUNS; r++)); do
	t0=$(now)
	start_trace "${tspecs[@]}"
	attach+=("$(echo "$(now) - $t0" | bc -l)")
	stop_trace
	apply+=("$(wall "$DW" -q --apply "$work/defs")")
	"$DW" -q -d 'bench_trace:*' >/dev/null
done
printf 'attach 1000 points (median of %d): dwprobe trace %.3f s; --apply of the same definitions %.3f s; ratio %.2f\n' \
	"$RUNS" "$(printf '%s\n' "${attach[@]}" | median)" "$(printf '%s\n' "${apply[@]}" | median)" \
	"$(echo "$(printf '%s\n' "${attach[@]}" | median) / $(printf '%s\n' "${apply[@]}" | median)" | bc -l)"
