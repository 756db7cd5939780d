#!/usr/bin/env bash
# Fetch the second reference kernel into $DWPROBE_CORPUS/6.12: Debian trixie's
# 6.12 cloud kernel (GCC 14, IBT) for amd64 and arm64 — its debug vmlinux and
# module debuginfo, the bootable image with its modules — the matching
# linux-source-6.12 unpacked as $CORPUS/linux-6.12, and perf 6.12 from
# bookworm-backports unpacked as $CORPUS/perf-6.12 (run as
# $CORPUS/perf-6.12/perf), beside perf 6.1 and not installed over it.
#
# apt reads a configuration of the corpus's own ($CORPUS/apt: its sources,
# lists and cache), so the machine's sources stay as they are. Versions are
# resolved from the metapackages, as corpus.sh does for 6.1. Idempotent: a
# finished step leaves a stamp naming what it unpacked.
set -euo pipefail

CORPUS=${DWPROBE_CORPUS:-$HOME/.cache/dwprobe-corpus}
K=$CORPUS/6.12
APTDIR=$CORPUS/apt

log() { printf 'corpus 6.12: %s\n' "$*" >&2; }

mkdir -p "$K" "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$APTDIR/preferences.d" "$CORPUS/debs"
cat > "$APTDIR/sources.list" <<'EOF'
deb [arch=amd64,arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
deb [arch=amd64,arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security trixie-security main
deb [arch=amd64,arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm-backports main
EOF
APT_OPTS=(
	-o "Dir::Etc::sourcelist=$APTDIR/sources.list" -o Dir::Etc::sourceparts=-
	-o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache=$APTDIR/cache"
	-o "Dir::Etc::preferencesparts=$APTDIR/preferences.d"
	-o APT::Architectures::=amd64 -o APT::Architectures::=arm64
	-o APT::Sandbox::User=root
)
aptc() { apt-cache "${APT_OPTS[@]}" "$@"; }

# The lists are refreshed once a day at most: the metapackages move with
# Debian's security updates, and a stale list names .debs the archive has
# dropped.
if [ -z "$(find "$APTDIR/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -n1)" ]; then
	log "apt-get update (the corpus's own sources)"
	apt-get "${APT_OPTS[@]}" update -qq
fi

dep_of() { aptc depends "$1" 2>/dev/null | awk '/Depends:/ {print $2; exit}'; }
candidate() { aptc policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2; exit}'; }

fetch() { # fetch PKG[=VER] DIR: download the .deb and unpack it into DIR once.
	local pkg=$1 dir=$2
	if [ "$(cat "$dir/.done" 2>/dev/null)" = "$pkg" ]; then return 0; fi
	log "downloading $pkg"
	rm -rf "$dir" && mkdir -p "$dir"
	local name=${pkg%%=*}; name=${name%%:*}
	rm -f "$CORPUS/debs/${name}"_*.deb
	(cd "$CORPUS/debs" && apt-get "${APT_OPTS[@]}" download -q "$pkg" >/dev/null)
	dpkg-deb -x "$(ls -t "$CORPUS/debs/${name}"_*.deb | head -n1)" "$dir"
	rm -f "$CORPUS/debs/${name}"_*.deb
	echo "$pkg" > "$dir/.done"
}

for arch in amd64 arm64; do
	dbg=$(dep_of "linux-image-cloud-$arch-dbg:$arch")
	img=$(dep_of "linux-image-cloud-$arch:$arch")
	[ -n "$dbg" ] && [ -n "$img" ] || { echo "corpus 6.12: cannot resolve the $arch cloud kernel" >&2; exit 1; }
	case $dbg in linux-image-6.12.*) ;; *) echo "corpus 6.12: trixie's cloud kernel is $dbg, not 6.12" >&2; exit 1 ;; esac
	fetch "$dbg" "$K/$arch/dbg"
	fetch "$img" "$K/$arch/image"
	# trixie is usrmerged: the image ships usr/lib/modules only. The link
	# gives it 6.1's layout, which depmod -b and the tests read.
	[ -e "$K/$arch/image/lib" ] || ln -s usr/lib "$K/$arch/image/lib"
	rel=$(ls "$K/$arch/image/lib/modules" | head -n1)
	if [ ! -s "$K/$arch/image/lib/modules/$rel/modules.dep" ]; then
		log "depmod $arch $rel"
		depmod -b "$K/$arch/image" "$rel"
	fi
	ln -sfn "$(ls "$K/$arch"/dbg/usr/lib/debug/boot/vmlinux-* | head -n1)" "$K/$arch/vmlinux"
	ln -sfn "$(ls "$K/$arch"/image/boot/vmlinuz-* | head -n1)" "$K/$arch/vmlinuz"
	# busybox is the same program for both kernels: 6.1's corpus has it.
	ln -sfn "$CORPUS/$arch/busybox/bin/busybox" "$K/$arch/busybox-bin"
	ver=${dbg#linux-image-}; ver=${ver%%:*}; echo "${ver%-dbg}" > "$K/$arch/version"
done

# The source that matches: linux-source-6.12 at the kernel's Debian version.
srcver=$(candidate "linux-image-cloud-amd64-dbg:amd64")
if [ "$(cat "$K/src/.done" 2>/dev/null)" != "$srcver" ]; then
	fetch "linux-source-6.12=$srcver" "$K/srcdeb"
	log "unpacking linux-source-6.12"
	rm -rf "$K/src" && mkdir -p "$K/src"
	tar -xf "$K"/srcdeb/usr/src/linux-source-6.12.tar.xz -C "$K/src"
	rm -rf "$K/srcdeb"
	echo "$srcver" > "$K/src/.done"
fi
ln -sfn "$(ls -d "$K"/src/linux-source-* | head -n1)" "$CORPUS/linux-6.12"

# perf 6.12 from bookworm-backports: built for bookworm's libraries, so it
# runs here; unpacked, never installed over perf 6.1.
perfver=$(aptc policy linux-perf:amd64 | awk '$1 ~ /^6\.12\./ && /bpo12/ {print $1; exit}')
[ -n "$perfver" ] || { echo "corpus 6.12: no linux-perf 6.12 in bookworm-backports" >&2; exit 1; }
fetch "linux-perf:amd64=$perfver" "$CORPUS/perf-6.12/pkg"
ln -sfn "$CORPUS/perf-6.12/pkg/usr/bin/perf" "$CORPUS/perf-6.12/perf"
"$CORPUS/perf-6.12/perf" --version >/dev/null || { echo "corpus 6.12: perf 6.12 does not run here" >&2; exit 1; }
log "ready in $K"
