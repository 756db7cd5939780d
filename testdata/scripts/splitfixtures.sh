#!/usr/bin/env bash
# splitfixtures.sh OUTDIR - build the split DWARF variants of the app fixture
# (testdata/fixtures/app_*.c) into OUTDIR:
#   split-CC-dwarfN/app  with its .dwo files (-gsplit-dwarf), built in that
#                        directory so DW_AT_comp_dir names it
#   dwp-CC-dwarfN/app    with app.dwp from llvm-dwp, the .dwo files removed
#   dwp-gnu-gcc-dwarf4/  the same packaged by binutils' dwp (index v2; it
#                        cannot package DWARF 5)
#   ref-CC-dwarfN/app    the same program with its debuginfo built in
#   split-types-CC-dwarf5, ref-types-CC-dwarf5: with -fdebug-types-section
#   sepdbg-gcc-dwarf5/   skeletons in app.debug (.gnu_debuglink), .dwo files
#                        beside
#   nodwo-gcc-dwarf5/    app_util's .dwo removed
#   baddwo-gcc-dwarf5/   app_util's .dwo replaced by app_main's (DWO id
#                        mismatch)
# for CC in gcc, clang and N in 4, 5.
#
# Idempotent (a stamp newer than the sources and this script). Exit status:
# 0 built; 3 a tool (clang, llvm-dwp, dwp) is missing; other: a build failed.
# Environment: CC_GCC (default gcc), CC_CLANG (default clang).
set -euo pipefail

if [ $# -ne 1 ]; then
	echo "usage: $0 OUTDIR" >&2
	exit 2
fi
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SELF=$HERE/$(basename "${BASH_SOURCE[0]}")
SRC=$(cd "$HERE/../fixtures" && pwd)
CC_GCC=${CC_GCC:-gcc}
CC_CLANG=${CC_CLANG:-clang}
mkdir -p "$1"
OUT=$(cd "$1" && pwd)

exec 9>"$OUT/.lock"
flock 9

for tool in "$CC_GCC" "$CC_CLANG" llvm-dwp dwp objcopy strip; do
	if ! command -v "$tool" >/dev/null; then
		echo "splitfixtures: $tool is missing" >&2
		exit 3
	fi
done

STAMP=$OUT/.stamp
fresh=1
[ -e "$STAMP" ] || fresh=0
for dep in "$SELF" "$SRC"/app_main.c "$SRC"/app_util.c "$SRC"/app_util2.c "$SRC"/app.h; do
	if [ $fresh = 1 ] && [ "$dep" -nt "$STAMP" ]; then fresh=0; fi
done
[ $fresh = 1 ] && exit 0

SRCS=("$SRC/app_main.c" "$SRC/app_util.c" "$SRC/app_util2.c")

# build DIR CC FLAGS...: compile the app in DIR (its .dwo files land there).
build() {
	local dir=$1 cc=$2
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$dir" && "$cc" -Wall -Wextra -g -O2 -fno-omit-frame-pointer "$@" -I"$SRC" "${SRCS[@]}" -o app)
}

for cc in "$CC_GCC" "$CC_CLANG"; do
	tag=gcc
	case $cc in *clang*) tag=clang ;; esac
	for dw in 4 5; do
		build "$OUT/split-$tag-dwarf$dw" "$cc" -gdwarf-"$dw" -gsplit-dwarf
		build "$OUT/ref-$tag-dwarf$dw" "$cc" -gdwarf-"$dw"
		build "$OUT/dwp-$tag-dwarf$dw" "$cc" -gdwarf-"$dw" -gsplit-dwarf
		(cd "$OUT/dwp-$tag-dwarf$dw" && llvm-dwp -e app -o app.dwp && rm -f ./*.dwo)
	done
	# Type units (one .debug_info.dwo section each with gcc).
	build "$OUT/split-types-$tag-dwarf5" "$cc" -gdwarf-5 -gsplit-dwarf -fdebug-types-section
	build "$OUT/ref-types-$tag-dwarf5" "$cc" -gdwarf-5 -fdebug-types-section
done
build "$OUT/dwp-gnu-gcc-dwarf4" "$CC_GCC" -gdwarf-4 -gsplit-dwarf
(cd "$OUT/dwp-gnu-gcc-dwarf4" && dwp -e app -o app.dwp && rm -f ./*.dwo)
build "$OUT/sepdbg-gcc-dwarf5" "$CC_GCC" -gdwarf-5 -gsplit-dwarf
(cd "$OUT/sepdbg-gcc-dwarf5" && objcopy --only-keep-debug app app.debug && strip -g app &&
	objcopy --add-gnu-debuglink=app.debug app)
build "$OUT/nodwo-gcc-dwarf5" "$CC_GCC" -gdwarf-5 -gsplit-dwarf
rm "$OUT/nodwo-gcc-dwarf5/app-app_util.dwo"
build "$OUT/baddwo-gcc-dwarf5" "$CC_GCC" -gdwarf-5 -gsplit-dwarf
cp "$OUT/baddwo-gcc-dwarf5/app-app_main.dwo" "$OUT/baddwo-gcc-dwarf5/app-app_util.dwo"
touch "$STAMP"
