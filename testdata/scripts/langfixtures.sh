#!/usr/bin/env bash
# langfixtures.sh OUTDIR KIND - build the C++, Rust or Go fixtures of
# testdata/fixtures/lang (issue 15) into OUTDIR:
#   cxx:  cxx-gcc-O0 cxx-gcc-O2 cxx-clang-O0 cxx-clang-O2   (from cxx.cpp)
#   rust: rs-O0 rs-O2 rs-v0                                  (from rs.rs)
#         rs-kernel                   (from rustkernel/rust/kernel/lib.rs)
#   go:   gof gof-arm64                                      (from gofix/)
#
# Idempotent like fixtures.sh: a target newer than its sources and this
# script is kept; each is built under a temporary name and renamed.
#
# Exit status: 0 built; 3 the kind's compiler is missing (the caller skips
# or fails); other non-zero: a build failed.
#
# Environment: CXX_GCC (g++), CXX_CLANG (clang++), RUSTC (rustc on PATH,
# else ~/.cargo/bin/rustc), GO (go).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 OUTDIR cxx|rust|go" >&2; exit 2; }
KIND=$2
SELF=$(realpath "${BASH_SOURCE[0]}")
SRC=$(realpath "$(dirname "$SELF")/../fixtures/lang")
mkdir -p "$1" && OUT=$(realpath "$1")
exec 9>"$OUT/.langlock" && flock 9 # test binaries may build at once

log() { printf 'langfixtures: %s\n' "$*" >&2; }

# fresh TARGET DEP...: TARGET exists and no DEP is newer.
fresh() { [ -e "$1" ] && [ -z "$(find "${@:2}" -newer "$1")" ]; }

need() {
	command -v "$1" >/dev/null 2>&1 && return
	log "$1 is missing: cannot build the $KIND fixtures"
	exit 3
}

case $KIND in
cxx)
	for cc in "${CXX_GCC:-g++}:gcc" "${CXX_CLANG:-clang++}:clang"; do
		bin=${cc%%:*} tag=${cc##*:}
		need "$bin"
		for opt in O0 O2; do
			t=$OUT/cxx-$tag-$opt
			fresh "$t" "$SRC/cxx.cpp" "$SELF" && continue
			log "building cxx-$tag-$opt"
			(cd "$SRC" && "$bin" -g -"$opt" -fno-omit-frame-pointer -o "$t.tmp" cxx.cpp)
			mv -f "$t.tmp" "$t"
		done
	done
	;;
rust)
	RUSTC=${RUSTC:-$(command -v rustc || echo "$HOME/.cargo/bin/rustc")}
	need "$RUSTC"
	for v in "O0:-C opt-level=0" "O2:-C opt-level=2" "v0:-C opt-level=0 -C symbol-mangling-version=v0"; do
		name=rs-${v%%:*} flags=${v#*:}
		t=$OUT/$name
		fresh "$t" "$SRC/rs.rs" "$SELF" && continue
		log "building $name"
		# shellcheck disable=SC2086 # flags are words
		(cd "$SRC" && "$RUSTC" -g $flags --crate-name r -o "$t.tmp" rs.rs)
		mv -f "$t.tmp" "$t"
	done
	t=$OUT/rs-kernel
	if ! fresh "$t" "$SRC/rustkernel/rust/kernel/lib.rs" "$SELF"; then
		log "building rs-kernel"
		# Built from rustkernel/, as the kernel builds rust/kernel/lib.rs
		# from its tree: the line table's directory is rust/kernel.
		(cd "$SRC/rustkernel" && "$RUSTC" -g -C opt-level=0 --crate-name kernel -o "$t.tmp" rust/kernel/lib.rs)
		mv -f "$t.tmp" "$t"
	fi
	;;
go)
	GO=${GO:-go}
	need "$GO"
	for arch in amd64 arm64; do # the Go toolchain cross-compiles alone
		t=$OUT/gof
		[ "$arch" = amd64 ] || t=$OUT/gof-$arch
		fresh "$t" "$SRC/gofix/main.go" "$SRC/gofix/shapes/shapes.go" "$SRC/gofix/go.mod" "$SELF" && continue
		log "building ${t##*/}"
		(cd "$SRC/gofix" && GOARCH=$arch GOFLAGS=-mod=mod GOWORK=off "$GO" build -o "$t.tmp" .)
		mv -f "$t.tmp" "$t"
	done
	;;
*)
	echo "langfixtures: unknown kind $KIND" >&2
	exit 2
	;;
esac
