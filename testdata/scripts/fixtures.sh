#!/usr/bin/env bash
# fixtures.sh OUTDIR - build every variant of the DWARF test fixtures in
# testdata/fixtures/ into OUTDIR (see testdata/fixtures/README.md).
#
# Idempotent: a target newer than its sources (and than this script) is
# skipped. Each target is built under a temporary name and renamed into place,
# so an interrupted run never leaves a half-built target that looks fresh.
#
# Exit status: 0 all built; 3 clang is missing (every gcc variant has been
# built, no clang variant has; the caller decides whether to skip); other
# non-zero: a build failed.
#
# Environment: CC_GCC (default gcc), CC_CLANG (default clang).
set -euo pipefail

if [ $# -ne 1 ]; then
	echo "usage: $0 OUTDIR" >&2
	exit 2
fi

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SELF=$HERE/$(basename "${BASH_SOURCE[0]}")
SRC=$(cd "$HERE/../fixtures" && pwd)
mkdir -p "$1"
OUT=$(cd "$1" && pwd)

# Test binaries run in parallel and may build at once: one at a time.
exec 9>"$OUT/.lock"
flock 9

# Binaries record their source directory (DW_AT_comp_dir), which tests use
# to find the sources: built from another checkout, they are rebuilt.
if [ "$(cat "$OUT/.srcdir" 2>/dev/null)" != "$SRC" ]; then
	find "$OUT" -mindepth 1 -maxdepth 1 ! -name .lock -exec rm -rf {} +
	echo "$SRC" >"$OUT/.srcdir"
fi

CC_GCC=${CC_GCC:-gcc}
CC_CLANG=${CC_CLANG:-clang}

APP_SRCS=(app_main.c app_util.c app_util2.c)
APP_DEPS=("$SRC/app_main.c" "$SRC/app_util.c" "$SRC/app_util2.c" "$SRC/app.h" "$SELF")
LIB_DEPS=("$SRC/lib.c" "$SRC/lib.h" "$SELF")
USER_DEPS=("$SRC/libuser.c" "$SRC/lib.h" "$SELF")

log() { printf 'fixtures: %s\n' "$*" >&2; }

# fresh TARGET DEP...: true when TARGET exists and is newer than every DEP.
fresh() {
	local t=$1 d
	shift
	[ -e "$t" ] || return 1
	for d in "$@"; do
		[ "$t" -nt "$d" ] || return 1
	done
}

# build_id_for NAME: a fixed 20-byte build-id derived from the variant name:
# sha1("dwprobe-fixture:NAME").
# Every target gets its own, so byte-identical builds (the full binary behind
# -stripped and -splitdbg is the same as app-gcc-O2-dwarf5) never share an id
# and cannot be resolved through each other by a build-id lookup (perf's
# ~/.debug cache does exactly that). The ids are stable across machines.
build_id_for() {
	printf 'dwprobe-fixture:%s' "$1" | sha1sum | cut -c1-40
}

# compile NAME CC ARGS...: compile and link OUTDIR/.NAME.tmp from $SRC, so the
# DWARF has relative DW_AT_name with DW_AT_comp_dir=$SRC like a typical build.
compile() {
	local name=$1 cc=$2 idname
	shift 2
	idname=${name#.}          # .X.full (an intermediate of X) gets X's id
	idname=${idname%.full}
	(cd "$SRC" && "$cc" -Wall -Wextra "$@" \
		-Wl,--build-id=0x"$(build_id_for "$idname")" -o "$OUT/.$name.tmp")
}

# app NAME CC FLAGS...: build OUTDIR/NAME from the app sources.
app() {
	local name=$1 cc=$2
	shift 2
	if fresh "$OUT/$name" "${APP_DEPS[@]}"; then return 0; fi
	log "building $name"
	compile "$name" "$cc" "$@" "${APP_SRCS[@]}"
	mv -f "$OUT/.$name.tmp" "$OUT/$name"
}

# build_id FILE: the hex GNU build-id of FILE.
build_id() {
	readelf -n "$1" | awk '/Build ID:/ { print $3; exit }'
}

# gz_ok KIND: true when the toolchain can compile and link with -gz=KIND and
# the result really has compressed debug sections.
gz_ok() {
	local kind=$1 tmp rc=1
	tmp=$(mktemp -d)
	printf 'int main(void) { return 0; }\n' >"$tmp/t.c"
	if "$CC_GCC" -g -gz="$kind" -o "$tmp/t" "$tmp/t.c" >/dev/null 2>&1 &&
		readelf -t "$tmp/t" 2>/dev/null | grep -qi "$kind"; then
		rc=0
	fi
	rm -rf "$tmp"
	return $rc
}

have_clang=1
if ! "$CC_CLANG" --version >/dev/null 2>&1; then
	have_clang=0
fi

COMPILERS=("$CC_GCC")
[ "$have_clang" = 1 ] && COMPILERS+=("$CC_CLANG")

# app-$CC-$OPT-dwarf$DW
for cc in "${COMPILERS[@]}"; do
	tag=$cc
	case $cc in *clang*) tag=clang ;; *gcc*) tag=gcc ;; esac
	for opt in O0 O2; do
		for dw in 4 5; do
			app "app-$tag-$opt-dwarf$dw" "$cc" -g -gdwarf-"$dw" -"$opt" -fno-omit-frame-pointer
		done
	done
done

G2=(-g -gdwarf-5 -O2 -fno-omit-frame-pointer)

# Compressed debug sections.
app app-gcc-O2-zlib "$CC_GCC" "${G2[@]}" -gz=zlib
if fresh "$OUT/app-gcc-O2-zstd" "${APP_DEPS[@]}"; then
	:
elif gz_ok zstd; then
	app app-gcc-O2-zstd "$CC_GCC" "${G2[@]}" -gz=zstd
else
	log "skipping app-gcc-O2-zstd: $CC_GCC/binutils cannot produce -gz=zstd here"
fi

# PIE explicitly and non-PIE.
app app-gcc-O2-pie "$CC_GCC" "${G2[@]}" -fPIE -pie
app app-gcc-O2-nopie "$CC_GCC" "${G2[@]}" -fno-PIE -no-pie

# Stripped of everything (no .symtab, no DWARF).
if ! fresh "$OUT/app-gcc-O2-stripped" "${APP_DEPS[@]}"; then
	app .app-gcc-O2-stripped.full "$CC_GCC" "${G2[@]}"
	log "building app-gcc-O2-stripped"
	strip --strip-all -o "$OUT/.app-gcc-O2-stripped.tmp" "$OUT/.app-gcc-O2-stripped.full"
	mv -f "$OUT/.app-gcc-O2-stripped.tmp" "$OUT/app-gcc-O2-stripped"
	rm -f "$OUT/.app-gcc-O2-stripped.full"
fi

# Split debuginfo: the binary keeps .symtab but no DWARF; the DWARF lives in
# OUTDIR/debug/.build-id/xx/yyyy.debug. OUTDIR/app-gcc-O2-splitdbg.build-id
# records the id so the freshness check can find the debug file.
split_fresh() {
	local id
	fresh "$OUT/app-gcc-O2-splitdbg" "${APP_DEPS[@]}" || return 1
	[ -f "$OUT/app-gcc-O2-splitdbg.build-id" ] || return 1
	id=$(cat "$OUT/app-gcc-O2-splitdbg.build-id")
	[ -f "$OUT/debug/.build-id/${id:0:2}/${id:2}.debug" ]
}
if ! split_fresh; then
	app .app-gcc-O2-splitdbg.full "$CC_GCC" "${G2[@]}"
	log "building app-gcc-O2-splitdbg"
	full=$OUT/.app-gcc-O2-splitdbg.full
	id=$(build_id "$full")
	if [ -z "$id" ]; then
		echo "fixtures: no build-id in $full" >&2
		exit 1
	fi
	if [ -f "$OUT/app-gcc-O2-splitdbg.build-id" ]; then # drop the stale one
		old=$(cat "$OUT/app-gcc-O2-splitdbg.build-id")
		[ -z "$old" ] || rm -f "$OUT/debug/.build-id/${old:0:2}/${old:2}.debug"
	fi
	dbg=$OUT/debug/.build-id/${id:0:2}/${id:2}.debug
	mkdir -p "$(dirname "$dbg")"
	objcopy --only-keep-debug "$full" "$dbg.tmp"
	mv -f "$dbg.tmp" "$dbg"
	strip --strip-debug -o "$OUT/.app-gcc-O2-splitdbg.tmp" "$full"
	echo "$id" >"$OUT/app-gcc-O2-splitdbg.build-id"
	mv -f "$OUT/.app-gcc-O2-splitdbg.tmp" "$OUT/app-gcc-O2-splitdbg"
	rm -f "$full"
fi

# Separate debuginfo named by .gnu_debuglink: the binary keeps .symtab and
# a .gnu_debuglink naming app-gcc-O2-debuglink.debug (and its CRC-32),
# which sits in OUTDIR/debuglink/; tests lay it out where gdb looks.
if ! fresh "$OUT/app-gcc-O2-debuglink" "${APP_DEPS[@]}" ||
	! fresh "$OUT/debuglink/app-gcc-O2-debuglink.debug" "${APP_DEPS[@]}"; then
	app .app-gcc-O2-debuglink.full "$CC_GCC" "${G2[@]}"
	log "building app-gcc-O2-debuglink"
	full=$OUT/.app-gcc-O2-debuglink.full
	mkdir -p "$OUT/debuglink"
	dbg=$OUT/debuglink/app-gcc-O2-debuglink.debug
	objcopy --only-keep-debug "$full" "$dbg"
	strip --strip-debug -o "$OUT/.app-gcc-O2-debuglink.tmp" "$full"
	(cd "$OUT/debuglink" && objcopy --add-gnu-debuglink=app-gcc-O2-debuglink.debug "$OUT/.app-gcc-O2-debuglink.tmp")
	mv -f "$OUT/.app-gcc-O2-debuglink.tmp" "$OUT/app-gcc-O2-debuglink"
	rm -f "$full"
fi

# No debuginfo anywhere: .symtab only (strip --strip-debug), as perf
# probes from the symbol table.
if ! fresh "$OUT/app_nodbg" "${APP_DEPS[@]}"; then
	app .app_nodbg.full "$CC_GCC" "${G2[@]}"
	log "building app_nodbg"
	strip --strip-debug -o "$OUT/.app_nodbg.tmp" "$OUT/.app_nodbg.full"
	mv -f "$OUT/.app_nodbg.tmp" "$OUT/app_nodbg"
	rm -f "$OUT/.app_nodbg.full"
fi

# Shared library and its user; libuser finds the library through $ORIGIN.
for cc in "${COMPILERS[@]}"; do
	tag=$cc
	case $cc in *clang*) tag=clang ;; *gcc*) tag=gcc ;; esac
	lib=libfix-$tag-O2.so
	if ! fresh "$OUT/$lib" "${LIB_DEPS[@]}"; then
		log "building $lib"
		compile "$lib" "$cc" -g -gdwarf-5 -O2 -fno-omit-frame-pointer \
			-fPIC -shared -Wl,-soname,"$lib" lib.c
		mv -f "$OUT/.$lib.tmp" "$OUT/$lib"
	fi
	user=libuser-$tag-O2
	if ! fresh "$OUT/$user" "${USER_DEPS[@]}" "$OUT/$lib"; then
		log "building $user"
		# shellcheck disable=SC2016 # $ORIGIN is for the dynamic linker
		compile "$user" "$cc" -g -gdwarf-5 -O2 -fno-omit-frame-pointer \
			libuser.c -L"$OUT" -l:"$lib" -Wl,-rpath,'$ORIGIN'
		mv -f "$OUT/.$user.tmp" "$OUT/$user"
	fi
done

# Location views (gcc only): views.c's inlined vw_fixup has parameters
# described only at its entry, by views; DW_AT_GNU_locviews in DWARF 5 and
# 4 (gcc's default), DW_LLE_GNU_view_pair with =incompat5.
VIEWS_DEPS=("$SRC/views.c" "$SELF")
views() {
	local name=$1
	shift
	if fresh "$OUT/$name" "${VIEWS_DEPS[@]}"; then return 0; fi
	log "building $name"
	compile "$name" "$CC_GCC" -g -O2 -fno-omit-frame-pointer "$@" views.c
	mv -f "$OUT/.$name.tmp" "$OUT/$name"
}
views views-gcc-O2-dwarf5 -gdwarf-5 -gvariable-location-views
views views-gcc-O2-dwarf4 -gdwarf-4 -gvariable-location-views
views views-gcc-O2-incompat5 -gdwarf-5 -gvariable-location-views=incompat5

# Relocatable objects standing in for kernel modules (kmod.c, compiled
# with -c only as kbuild leaves a .ko): x86_64 with gcc, arm64 with clang's
# cross target (kmod.c includes no header, so no sysroot is needed).
KMOD_DEPS=("$SRC/kmod.c" "$SELF")
KMOD_FLAGS=(-c -g -gdwarf-5 -O2 -fno-omit-frame-pointer -fno-asynchronous-unwind-tables)
kmod() {
	local name=$1 cc=$2
	shift 2
	if fresh "$OUT/$name" "${KMOD_DEPS[@]}"; then return 0; fi
	log "building $name"
	(cd "$SRC" && "$cc" -Wall -Wextra "$@" "${KMOD_FLAGS[@]}" -o "$OUT/.$name.tmp" kmod.c)
	mv -f "$OUT/.$name.tmp" "$OUT/$name"
}
kmod kmod-gcc.ko "$CC_GCC"
kmod kmod-gcc-zlib.ko "$CC_GCC" -gz=zlib
[ "$have_clang" = 1 ] && kmod kmod-clang-arm64.ko "$CC_CLANG" --target=aarch64-linux-gnu

# SDT markers (gcc only): sdt-gcc-O0 reads them from the stack, sdt-gcc-O2
# from registers, a global (rip-relative) and a constant. They need
# <sys/sdt.h> (Debian's systemtap-sdt-dev); without it they are not built
# and the tests that use them skip (fail under make test).
SDT_DEPS=("$SRC/sdt_main.c" "$SRC/sdt_guarded.c" "$SELF")
for opt in O0 O2; do
	name=sdt-gcc-$opt
	if fresh "$OUT/$name" "${SDT_DEPS[@]}"; then continue; fi
	if ! echo '#include <sys/sdt.h>' | "$CC_GCC" -E -x c - >/dev/null 2>&1; then
		log "skipping $name: no <sys/sdt.h> (apt-get install systemtap-sdt-dev)"
		break
	fi
	log "building $name"
	compile "$name" "$CC_GCC" -g -gdwarf-5 -"$opt" -fno-omit-frame-pointer sdt_main.c sdt_guarded.c
	mv -f "$OUT/.$name.tmp" "$OUT/$name"
done

# Old-style .zdebug_* sections (gcc -gz=zlib-gnu); zstd through objcopy
# when the compiler cannot (gcc 12 here): both SHF_COMPRESSED forms and the
# GNU one are then covered.
app app-gcc-O2-zlib-gnu "$CC_GCC" "${G2[@]}" -gz=zlib-gnu
if [ ! -e "$OUT/app-gcc-O2-zstd" ] && ! fresh "$OUT/app-gcc-O2-zstd-objcopy" "${APP_DEPS[@]}"; then
	app .app-gcc-O2-zstd-objcopy.full "$CC_GCC" "${G2[@]}"
	log "building app-gcc-O2-zstd-objcopy"
	if objcopy --compress-debug-sections=zstd "$OUT/.app-gcc-O2-zstd-objcopy.full" "$OUT/.app-gcc-O2-zstd-objcopy.tmp" 2>/dev/null; then
		mv -f "$OUT/.app-gcc-O2-zstd-objcopy.tmp" "$OUT/app-gcc-O2-zstd-objcopy"
	else
		log "skipping app-gcc-O2-zstd-objcopy: objcopy cannot compress with zstd here"
		rm -f "$OUT/.app-gcc-O2-zstd-objcopy.tmp"
	fi
	rm -f "$OUT/.app-gcc-O2-zstd-objcopy.full"
fi

# dwz (Debian's dwz 0.15), see dwz.h. NAME-dwz is NAME built alike (its own
# build-id) and processed by dwz alone: partial units, DW_FORM_ref_addr.
# dwz-m/ and dwz-m5/ hold programs processed together with dwz -m into
# common.debug, linked relatively (-r): DW_FORM_GNU_ref_alt and
# DW_FORM_GNU_strp_alt through .gnu_debugaltlink, and with -5
# DW_FORM_ref_sup4 and DW_FORM_strp_sup through .debug_sup. dwz 0.15 does
# not read clang's DWARF 5 (.debug_addr): clang variants are DWARF 4.
DWZ_DEPS=("$SRC/dwz.h" "$SRC/dwz_a.c" "$SRC/dwz_b.c" "$SELF")
# dwz_src NAME: the sources NAME is built from.
dwz_src() {
	case $1 in
	*dwzapp-*) echo dwz_a.c dwz_b.c ;;
	*) echo "${APP_SRCS[@]}" ;;
	esac
}
# dwz_build NAME CC DW OUT: build NAME (gcc/clang -O2, DWARF DW) as OUT.
dwz_build() {
	local name=$1 cc=$2 dw=$3 out=$4
	# shellcheck disable=SC2046 # one word per source
	compile "$name" "$cc" -g -gdwarf-"$dw" -O2 -fno-omit-frame-pointer $(dwz_src "$name")
	mv -f "$OUT/.$name.tmp" "$out"
}
if command -v dwz >/dev/null 2>&1; then
	for v in gcc:5 gcc:4 clang:4; do
		tag=${v%:*} dw=${v#*:} cc=$CC_GCC
		if [ "$tag" = clang ]; then
			[ "$have_clang" = 1 ] || continue
			cc=$CC_CLANG
		fi
		base=dwzapp-$tag-O2-dwarf$dw
		fresh "$OUT/$base" "${DWZ_DEPS[@]}" || { log "building $base"; dwz_build "$base" "$cc" "$dw" "$OUT/$base"; }
		for name in "app-$tag-O2-dwarf$dw-dwz" "$base-dwz"; do
			deps=("${APP_DEPS[@]}")
			case $name in dwzapp-*) deps=("${DWZ_DEPS[@]}") ;; esac
			if fresh "$OUT/$name" "${deps[@]}"; then continue; fi
			log "building $name"
			dwz_build "$name" "$cc" "$dw" "$OUT/.$name.dwz"
			dwz -q "$OUT/.$name.dwz"
			mv -f "$OUT/.$name.dwz" "$OUT/$name"
		done
	done
	for set in dwz-m:"" dwz-m5:-5; do
		dir=${set%%:*} flag=${set#*:}
		members=(app-gcc-O2-dwarf5 app-gcc-O2-dwarf4 dwzapp-gcc-O2-dwarf5)
		[ -z "$flag" ] && [ "$have_clang" = 1 ] && members+=(app-clang-O2-dwarf4 dwzapp-clang-O2-dwarf4)
		ok=1
		for m in "${members[@]}" common.debug; do
			fresh "$OUT/$dir/$m" "${APP_DEPS[@]}" "${DWZ_DEPS[@]}" || ok=0
		done
		[ "$ok" = 1 ] && continue
		log "building $dir/ (dwz -m $flag)"
		rm -rf "$OUT/.$dir.tmp" && mkdir -p "$OUT/.$dir.tmp"
		for m in "${members[@]}"; do
			cc=$CC_GCC
			case $m in *clang*) cc=$CC_CLANG ;; esac
			dw=${m##*dwarf}
			dwz_build "$dir-$m" "$cc" "$dw" "$OUT/.$dir.tmp/$m"
		done
		(cd "$OUT/.$dir.tmp" && dwz -q $flag -r -m common.debug "${members[@]}")
		rm -rf "${OUT:?}/$dir" && mv -f "$OUT/.$dir.tmp" "$OUT/$dir"
	done
else
	log "skipping the dwz variants: dwz is not installed (apt-get install dwz)"
fi

# The app for the other machines dwprobe knows (issue 36), with Debian's
# cross compilers (gcc-powerpc64le-linux-gnu, gcc-s390x-linux-gnu,
# gcc-riscv64-linux-gnu): static, so that the QEMU guests' busybox
# initramfs runs them as they are. Built only where the compiler is
# installed; the tests that use them skip (fail under make test) naming
# the missing one (dwarftest.CrossFixture).
for m in ppc64el:powerpc64le s390x:s390x riscv64:riscv64; do
	machine=${m%%:*}
	cross=${m#*:}-linux-gnu-gcc
	command -v "$cross" >/dev/null 2>&1 || { log "skipping the $machine apps: $cross is not installed"; continue; }
	for opt in O0 O2; do
		app "app-$machine-gcc-$opt-static" "$cross" -g -gdwarf-5 -"$opt" -fno-omit-frame-pointer -static
	done
done

if [ "$have_clang" = 0 ]; then
	echo "fixtures: clang not found ('$CC_CLANG --version' failed): gcc variants built in $OUT, clang variants missing; install clang (apt-get install -y clang)" >&2
	exit 3
fi
log "all variants up to date in $OUT"
