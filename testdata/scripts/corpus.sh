#!/usr/bin/env bash
# Fetch the real-kernel corpus into $DWPROBE_CORPUS (default ~/.cache/dwprobe-corpus):
# the Debian cloud kernel's debug vmlinux, bootable image and busybox-static for
# amd64 and arm64, plus the matching linux-source-6.1 unpacked. Versions are
# resolved from the metapackages at run time, never hard-coded. Idempotent: a
# finished step leaves a stamp and is skipped next time.
set -euo pipefail

CORPUS=${DWPROBE_CORPUS:-$HOME/.cache/dwprobe-corpus}

log() { printf 'corpus: %s\n' "$*" >&2; }

# The corpus used to live in ~/.cache/dwprobe, which is now dwprobe's own
# cache (its indexes): move an old corpus rather than download it again. Its
# symlinks are absolute and are remade below. Built fixtures are dropped,
# not moved: their debuginfo names the directory they were built in.
old=$HOME/.cache/dwprobe
if [ -z "${DWPROBE_CORPUS:-}" ] && [ ! -e "$CORPUS" ] && [ -d "$old/amd64" ] && [ ! -L "$old/amd64" ]; then
	log "moving the corpus from $old to $CORPUS"
	mkdir -p "$CORPUS"
	for d in amd64 arm64 debs src; do
		if [ -e "$old/$d" ]; then mv "$old/$d" "$CORPUS/"; fi
	done
	rm -rf "$old/linux" "$old/fixtures"
fi
mkdir -p "$CORPUS/debs"
cd "$CORPUS"

need_update=0
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
	need_update=1
fi
# apt's lists are needed to resolve the metapackages; refresh them when absent
# or when arm64 was just added.
if [ "$need_update" = 1 ] || ! apt-cache show linux-image-cloud-arm64-dbg:arm64 >/dev/null 2>&1; then
	log "apt-get update"
	apt-get update -qq
fi

# dep_of META: the concrete package a kernel metapackage depends on.
dep_of() {
	apt-cache depends "$1" 2>/dev/null | awk '/Depends:/ {print $2; exit}'
}

fetch() { # fetch PKG DIR: download PKG's .deb and unpack it into DIR once.
	local pkg=$1 dir=$2
	# The stamp names the package: a newer kernel from the metapackage
	# replaces the cached one.
	if [ "$(cat "$dir/.done" 2>/dev/null)" = "$pkg" ]; then return 0; fi
	log "downloading $pkg"
	rm -rf "$dir" && mkdir -p "$dir"
	(cd debs && apt-get -o APT::Sandbox::User=root download -q "$pkg" >/dev/null)
	local deb
	deb=$(ls -t debs/"${pkg%%:*}"_*.deb | head -n1)
	dpkg-deb -x "$deb" "$dir"
	rm -f "$deb"
	echo "$pkg" > "$dir/.done"
}

# image_for ABI ARCH: the image package of that kernel build, signed or not.
image_for() {
	local p
	for p in "linux-image-$1:$2" "linux-image-$1-unsigned:$2"; do
		if apt-cache policy "$p" 2>/dev/null | awk '/Candidate:/ && $2 != "(none)" {f=1} END {exit !f}'; then
			echo "$p"
			return
		fi
	done
}

for arch in amd64 arm64; do
	dbg=$(dep_of "linux-image-cloud-$arch-dbg:$arch")
	[ -n "$dbg" ] || { echo "corpus: cannot resolve the $arch cloud kernel" >&2; exit 1; }
	ver=${dbg#linux-image-}; ver=${ver%%:*}; ver=${ver%-dbg}
	# The image must be the build the debuginfo describes. The image
	# metapackage can lag the -dbg one (the archive publishes the signed
	# image later), so the image is named from the debuginfo's ABI: the
	# signed package where the archive has it, else its -unsigned twin.
	img=$(image_for "$ver" "$arch")
	[ -n "$img" ] || { echo "corpus: no image for $ver ($arch) beside its debuginfo" >&2; exit 1; }
	fetch "$dbg" "$arch/dbg"
	fetch "$img" "$arch/image"
	fetch "busybox-static:$arch" "$arch/busybox"
	# depmod writes modules.dep at install time; the package does not ship
	# it. Made once per unpacked image, for -m NAME and loading modules with
	# their dependencies.
	rel=$(ls "$arch/image/lib/modules" | head -n1)
	if [ ! -s "$arch/image/lib/modules/$rel/modules.dep" ]; then
		log "depmod $arch $rel"
		depmod -b "$CORPUS/$arch/image" "$rel"
	fi
	vml=$(ls "$arch"/dbg/usr/lib/debug/boot/vmlinux-* | head -n1)
	ln -sfn "$CORPUS/$vml" "$arch/vmlinux"
	krn=$(ls "$arch"/image/boot/vmlinuz-* | head -n1)
	ln -sfn "$CORPUS/$krn" "$arch/vmlinuz"
	ln -sfn "$CORPUS/$arch/busybox/bin/busybox" "$arch/busybox-bin"
	echo "$ver" > "$arch/version"
done

# The source that matches: linux-source-6.1 at the kernel's Debian version.
srcver=$(apt-cache policy linux-image-cloud-amd64-dbg | awk '/Candidate:/ {print $2}')
if [ "$(cat src/.done 2>/dev/null)" != "$srcver" ]; then
	log "downloading linux-source-6.1"
	rm -rf src srcdeb && mkdir -p src srcdeb
	(cd debs && apt-get -o APT::Sandbox::User=root download -q "linux-source-6.1=$srcver" >/dev/null 2>&1 || apt-get -o APT::Sandbox::User=root download -q linux-source-6.1 >/dev/null)
	dpkg-deb -x debs/linux-source-6.1_*.deb srcdeb
	tar -xf srcdeb/usr/src/linux-source-6.1.tar.xz -C src
	rm -rf srcdeb debs/linux-source-6.1_*.deb
	echo "$srcver" > src/.done
fi
ln -sfn "$(ls -d "$CORPUS"/src/linux-source-* | head -n1)" linux
log "ready in $CORPUS"
