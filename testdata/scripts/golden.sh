#!/usr/bin/env bash
# Regenerate perf's answers for the dwprobe conformance corpus.
#
# usage: [PERF=perf] golden.sh [--modules] [VMLINUX] [SRCDIR]
#   VMLINUX  default $DWPROBE_CORPUS/amd64/vmlinux
#   SRCDIR   default $DWPROBE_CORPUS/linux   ($DWPROBE_CORPUS: ~/.cache/dwprobe-corpus)
#   --modules  the module list instead: testdata/conformance/modules/specs-ARCH.txt
#              into golden/perf-modules-ARCH.txt (VMLINUX only names the
#              architecture and, through its corpus directory, MODDIR)
#   PERF     the perf binary: perf 6.1 for the 6.1 kernel, perf GEN
#            ($DWPROBE_CORPUS/perf-GEN/perf, corpusgen.sh) for GEN (6.12, 7.3)
#
# The kernel version (VERSION, from the vmlinux's linux_banner) picks the
# lists: 6.1 has the ones named here; any other version has its own
# directory, testdata/conformance/VERSION/{specs-ARCH.txt,modules/specs-ARCH.txt},
# answered into golden/VERSION-ARCH/{perf.txt,perf-modules.txt} (and the
# .stderr.txt beside each).
#
# For every `KIND<TAB>SPEC[<TAB>OPTIONS]` line of testdata/conformance/specs.txt
# it runs
#   D: perf probe -k VMLINUX OPTIONS -D SPEC
#   S: perf probe -k VMLINUX -s SRCDIR OPTIONS -D SPEC   (definitions that need the source: ;PTN)
#   L: perf probe -k VMLINUX -s SRCDIR OPTIONS -L SPEC
#   V: perf probe -k VMLINUX OPTIONS -V SPEC
#   F: perf probe -k VMLINUX OPTIONS --funcs=SPEC
# OPTIONS is an optional space-separated list of extra perf options (one word
# each, e.g. `--externs --filter=f*`; no quoting, no globbing), except
# `-m MODULE`: MODULE is a path under MODDIR (`fs/overlayfs/overlay.ko`), and
# such a line runs `perf probe -m MODDIR/MODULE ...` without `-k VMLINUX`. The
# header then gives each module's build-id (`# build-id: ID MODULE`) after the
# vmlinux's. MODDIR defaults to the one
# VMLINUX_DIR/dbg/usr/lib/debug/lib/modules/*/kernel (the -dbg package
# unpacked by corpus.sh).
# with stdin from /dev/null, and writes, in spec-file order,
#   testdata/conformance/golden/perf-ARCH.txt         (perf's stdout)
#   testdata/conformance/golden/perf-ARCH.stderr.txt  (perf's stderr, for humans)
# ARCH is taken from the vmlinux ELF header (amd64, arm64). Spec list:
# specs.txt for amd64, specs-ARCH.txt otherwise; $SPECS overrides.
#
# Environment: PERF (perf binary, default perf), JOBS (parallel perf runs,
# default 2), GOLDEN_FORCE=1 (write even if the host checks below fail),
# GOLDEN_DIR (where to write; default testdata/conformance/golden).
#
# perf looks at the *running* kernel even with -k: /proc/kallsyms decides the
# ".text" range for absolute addresses and the `_text+N` fallback, and the
# tracefs README decides whether several probe points may share one event
# name ("Create/append"), whether unsigned arguments get x8..x64 types,
# whether @user is accepted ("[u]<offset>") and whether immediates are
# ("\imm-value"). The golden files are only reproducible on a root,
# non-KASLR host whose tracefs README advertises all four; the script refuses
# otherwise.
#
# A vmlinux of another architecture (arm64 on an x86_64 host) needs only a
# readable kallsyms: perf's relocation (host _text minus vmlinux _text) is
# then never 0, and perf takes _text+N offsets and the ".text" range from the
# vmlinux itself, as on the arm64 kernel. Still host-dependent there:
# absolute addresses (perf compares them, unrelocated, with the relocated
# .text range: refused as "out of .text"), and debugfs's kprobes/blacklist,
# whose host addresses perf compares with the relocated points; the script
# refuses to run while debugfs is mounted.
set -euo pipefail

die() { printf 'golden.sh: %s\n' "$*" >&2; exit 1; }
warn() { printf 'golden.sh: %s\n' "$*" >&2; }
trap 'warn "unexpected failure at line $LINENO"' ERR

MODULES=0
if [ "${1:-}" = --modules ]; then MODULES=1; shift; fi
[ $# -le 2 ] || die "usage: golden.sh [--modules] [VMLINUX] [SRCDIR]"

CORPUS=${DWPROBE_CORPUS:-$HOME/.cache/dwprobe-corpus}
VMLINUX=${1:-$CORPUS/amd64/vmlinux}
SRCDIR=${2:-$CORPUS/linux}
PERF=${PERF:-perf}
JOBS=${JOBS:-2}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CONF=$(cd "$here/../conformance" && pwd)

# --- inputs -----------------------------------------------------------------
command -v "$PERF" >/dev/null 2>&1 || die "perf not found ('$PERF'); install linux-perf (perf 6.1), or PERF=\$DWPROBE_CORPUS/perf-6.12/perf for 6.12"
PERF=$(command -v "$PERF")
command -v readelf >/dev/null 2>&1 || die "readelf not found (binutils)"
[ -e "$VMLINUX" ] || die "vmlinux not found: $VMLINUX (run testdata/scripts/corpus.sh)"
[ -f "$VMLINUX" ] && [ -r "$VMLINUX" ] || die "vmlinux is not a readable file: $VMLINUX"
[ -d "$SRCDIR" ] || die "kernel source dir not found: $SRCDIR (run testdata/scripts/corpus.sh)"
case $JOBS in '' | *[!0-9]* | 0) die "JOBS must be a positive integer" ;; esac

# Absolute, but keep symlinks as given: perf prints SRCDIR verbatim in the
# headers of -L listings, so it must not depend on the caller's cwd or on a
# trailing slash.
absdir() { (cd "$1" && pwd -L); }
VMLINUX=$(cd "$(dirname "$VMLINUX")" && pwd -L)/$(basename "$VMLINUX")
SRCDIR=$(absdir "$SRCDIR")

machine=$(LC_ALL=C readelf -h "$VMLINUX" 2>/dev/null | sed -n 's/^ *Machine: *//p') || machine=
case $machine in
*X86-64*) ARCH=amd64 ;;
*AArch64*) ARCH=arm64 ;;
*PowerPC64*) ARCH=ppc64el ;;
*S/390*) ARCH=s390x ;;
*RISC-V*) ARCH=riscv64 ;;
'') die "not an ELF file: $VMLINUX" ;;
*) die "unsupported vmlinux machine: $machine" ;;
esac
# linux_banner: "Linux version 6.12.118+deb13-cloud-amd64 ..."
KVER=$(LC_ALL=C grep -a -o -m1 'Linux version [0-9]*\.[0-9]*' "$VMLINUX" | head -n1 | sed 's/^Linux version //') || KVER=
[ -n "$KVER" ] || die "no linux_banner in $VMLINUX"
# Where the lists and the answers of this kernel live: 6.1's keep their
# original names, later kernels have a directory each.
if [ "$KVER" = 6.1 ]; then
	listdir=$CONF
	name=perf-$ARCH
	if [ "$MODULES" = 1 ]; then name=perf-modules-$ARCH; fi
	if [ "$MODULES" = 0 ] && [ "$ARCH" = amd64 ]; then list=specs.txt; else list=specs-$ARCH.txt; fi
else
	listdir=$CONF/$KVER
	name=$KVER-$ARCH/perf
	if [ "$MODULES" = 1 ]; then name=$KVER-$ARCH/perf-modules; fi
	list=specs-$ARCH.txt
fi
if [ "$MODULES" = 1 ]; then listdir=$listdir/modules; fi
SPECS=${SPECS:-$listdir/$list}
[ -f "$SPECS" ] || die "spec list not found: $SPECS"

notes=$(LC_ALL=C readelf -n "$VMLINUX") || die "readelf -n failed on $VMLINUX"
buildid=$(printf '%s\n' "$notes" | awk '/Build ID:/ && !b {b = $3} END {print b}')
[ -n "$buildid" ] || die "no GNU build-id note in $VMLINUX"
perfver=$("$PERF" --version 2>/dev/null) || die "'$PERF --version' failed"

# --- host checks (see header) -------------------------------------------------
hostok=1
case $(uname -m) in
x86_64) host_arch=amd64 ;;
aarch64) host_arch=arm64 ;;
*) host_arch=$(uname -m) ;;
esac
vm_text=$(LC_ALL=C readelf -sW "$VMLINUX" | awk '$8 == "_text" && !v {v = $2} END {print v}')
host_text=$(awk '$3 == "_text" && !v {v = $1} END {print v}' /proc/kallsyms 2>/dev/null || true)
if [ -z "$host_text" ] || [ "$host_text" = 0000000000000000 ]; then
	warn "/proc/kallsyms is unreadable or hides addresses (need root and kptr_restrict=0)"
	hostok=0
elif [ "$ARCH" != "$host_arch" ]; then
	# A vmlinux of another architecture: perf relocates by host _text minus
	# the vmlinux's _text, which is never 0 here, so its _text+N offsets and
	# .text range come out relative to the vmlinux (see the header).
	:
elif [ "$((16#$host_text))" != "$((16#${vm_text:-0}))" ]; then
	warn "running kernel _text ($host_text) differs from vmlinux _text ($vm_text): KASLR on?"
	hostok=0
fi
if [ -r /sys/kernel/debug/kprobes/blacklist ]; then
	# perf checks every address against the host's blacklist, relocated
	# to the host: for a vmlinux of another kernel that skips points at
	# random ("X is blacklisted function, skip it.").
	warn "debugfs is mounted (kprobes/blacklist readable): perf would skip points the host kernel blacklists (umount /sys/kernel/debug)"
	hostok=0
fi
readme=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	if [ -r "$d/README" ]; then readme=$d/README; break; fi
done
if [ -z "$readme" ] || ! grep -q 'Create/append/' "$readme"; then
	warn "tracefs README missing or without 'Create/append/': perf would add _N suffixes to event names (mount -t tracefs nodev /sys/kernel/tracing)"
	hostok=0
elif ! grep -q 'type: .* x8/16/32/64,' "$readme"; then
	# perf 6.1 only uses x8..x64 for unsigned/pointer args when the README lists them
	warn "tracefs README lacks 'x8/16/32/64': perf would type unsigned arguments u32/u64 instead of x32/x64"
	hostok=0
elif ! grep -qF 'u]<offset>' "$readme"; then
	warn "tracefs README lacks '[u]<offset>': perf would reject @user arguments"
	hostok=0
elif ! grep -qF '\imm-value,' "$readme"; then
	# immediates: DW_AT_const_value args (\-100) and the \deade12d filler for
	# an argument that only some probe points have
	warn "tracefs README lacks '\\imm-value': perf would fail const_value arguments and partly-missing ones"
	hostok=0
fi
if [ "$hostok" = 0 ]; then
	[ "${GOLDEN_FORCE:-0}" = 1 ] || die "host checks failed; output would differ from the committed golden (GOLDEN_FORCE=1 to write anyway)"
	warn "GOLDEN_FORCE=1: writing anyway"
fi

# --- run ------------------------------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dwprobe-golden.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/home" "$tmp/run"

# module_of LINE: the MODULE of a `-m MODULE` in LINE's OPTIONS, if any.
module_of() {
	local rest opts=() i
	rest=${1#*$'\t'}
	[ "${rest#*$'\t'}" != "$rest" ] || return 0
	read -r -a opts <<<"${rest#*$'\t'}" || true
	for ((i = 0; i < ${#opts[@]}; i++)); do
		if [ "${opts[i]}" = -m ]; then
			[ $((i + 1)) -lt ${#opts[@]} ] || die "$SPECS: -m without a module: $1"
			printf '%s\n' "${opts[i + 1]}"
			return 0
		fi
	done
}
if [ -z "${MODDIR:-}" ]; then
	MODDIR=$(printf '%s\n' "$(dirname "$VMLINUX")"/dbg/usr/lib/debug/lib/modules/*/kernel)
fi
modules=()

# Split the spec list into one file per entry, numbered in file order.
n=0
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	line=${line%$'\r'}
	case $line in '' | '#'*) continue ;; esac
	case $line in
	[DSLVF]$'\t'?*) ;;
	*) die "$SPECS:$lineno: expected 'KIND<TAB>SPEC[<TAB>OPTIONS]' with KIND D, S, L, V or F: $line" ;;
	esac
	case $line in
	*$'\t'*$'\t'*$'\t'*) die "$SPECS:$lineno: too many tabs: $line" ;;
	?$'\t'$'\t'*) die "$SPECS:$lineno: empty spec: $line" ;;
	esac
	mod=$(module_of "$line")
	if [ -n "$mod" ]; then
		[ -f "$MODDIR/$mod" ] || die "$SPECS:$lineno: module not found: $MODDIR/$mod"
		modules+=("$mod")
	fi
	printf '%s\n' "$line" >"$tmp/run/$n.spec"
	n=$((n + 1))
done <"$SPECS"
[ "$n" -gt 0 ] || die "no entries in $SPECS"

run_one() {
	local i=$1 line kind rest spec optstr rc=0
	local -a opts=() cmd=()
	line=$(cat "$tmp/run/$i.spec")
	kind=${line%%$'\t'*}
	rest=${line#*$'\t'}
	spec=${rest%%$'\t'*}
	optstr=
	if [ "$spec" != "$rest" ]; then optstr=${rest#*$'\t'}; fi
	# word-split OPTIONS without pathname expansion
	read -r -a opts <<<"$optstr" || true
	# `-m MODULE` names a module under MODDIR and replaces -k VMLINUX
	local -a target=(-k "$VMLINUX")
	local j
	for ((j = 0; j + 1 < ${#opts[@]}; j++)); do
		if [ "${opts[j]}" = -m ]; then
			opts[j + 1]=$MODDIR/${opts[j + 1]}
			target=()
		fi
	done
	case $kind in
	D) cmd=(${target[@]+"${target[@]}"} ${opts[@]+"${opts[@]}"} -D "$spec") ;;
	S) cmd=(${target[@]+"${target[@]}"} -s "$SRCDIR" ${opts[@]+"${opts[@]}"} -D "$spec") ;;
	L) cmd=(${target[@]+"${target[@]}"} -s "$SRCDIR" ${opts[@]+"${opts[@]}"} -L "$spec") ;;
	V) cmd=(${target[@]+"${target[@]}"} ${opts[@]+"${opts[@]}"} -V "$spec") ;;
	F) cmd=(${target[@]+"${target[@]}"} ${opts[@]+"${opts[@]}"} "--funcs=$spec") ;;
	esac
	(cd / && HOME=$tmp/home LC_ALL=C timeout 300 "$PERF" probe "${cmd[@]}") \
		</dev/null >"$tmp/run/$i.out" 2>"$tmp/run/$i.err" || rc=$?
	echo "$rc" >"$tmp/run/$i.rc"
}
export -f run_one
export tmp PERF VMLINUX SRCDIR MODDIR

printf 'golden.sh: %d specs, %s %s, vmlinux %s (%s), %s, %d jobs\n' "$n" "$KVER" "$ARCH" "$VMLINUX" "$buildid" "$perfver" "$JOBS" >&2
seq 0 $((n - 1)) | xargs -P "$JOBS" -n 1 bash -c 'run_one "$1"' _

# --- assemble in spec order -----------------------------------------------------------
GOLDEN_DIR=${GOLDEN_DIR:-$CONF/golden}
out=$GOLDEN_DIR/$name.txt
mkdir -p "$(dirname "$out")"
errout=$GOLDEN_DIR/$name.stderr.txt

header() {
	printf '# perf-golden v1\n'
	printf '# perf: %s\n' "$perfver"
	printf '# build-id: %s\n' "$buildid"
	printf '# srcdir: %s\n' "$SRCDIR"
	local m id
	if [ ${#modules[@]} -gt 0 ]; then
		printf '%s\n' "${modules[@]}" | sort -u | while IFS= read -r m; do
			id=$(LC_ALL=C readelf -n "$MODDIR/$m" | awk '/Build ID:/ && !b {b = $3} END {print b}')
			[ -n "$id" ] || die "no GNU build-id note in $MODDIR/$m"
			printf '# build-id: %s %s\n' "$id" "$m"
		done
	fi
}
# body FILE-SUFFIX: every block with the named per-spec capture.
body() {
	local i rc
	for ((i = 0; i < n; i++)); do
		[ -f "$tmp/run/$i.rc" ] || die "perf did not run for: $(cat "$tmp/run/$i.spec")"
		rc=$(cat "$tmp/run/$i.rc")
		[ "$rc" != 124 ] || die "perf timed out on: $(cat "$tmp/run/$i.spec")"
		printf '=== %s\n' "$(cat "$tmp/run/$i.spec")"
		printf 'exit %s\n' "$rc"
		cat "$tmp/run/$i.$1"
		# keep the next header on its own line if perf's text lacks a final newline
		if [ -s "$tmp/run/$i.$1" ] && [ -n "$(tail -c1 "$tmp/run/$i.$1")" ]; then
			echo
		fi
	done
}
{ header; body out; } >"$tmp/golden.txt"
{ header; body err; } >"$tmp/golden.stderr.txt"
mv -f "$tmp/golden.txt" "$out"
mv -f "$tmp/golden.stderr.txt" "$errout"

fails=$(grep -c '^exit [^0]' "$out" || true)
printf 'golden.sh: wrote %s (%d blocks, %d non-zero exits) and %s\n' "$out" "$n" "$fails" "$errout" >&2
