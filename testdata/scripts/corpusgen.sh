#!/usr/bin/env bash
# corpusgen.sh GEN...: fetch a later Debian kernel generation into the corpus
# ($DWPROBE_CORPUS, default ~/.cache/dwprobe-corpus), beside 6.1 (corpus.sh):
#
#   $CORPUS/GEN/{amd64,arm64}/dbg      the -dbg package (vmlinux, module debuginfo)
#   $CORPUS/GEN/{amd64,arm64}/image    the bootable image and its modules
#   $CORPUS/GEN/{amd64,arm64}/{vmlinux,vmlinuz,busybox-bin}  links into them
#   $CORPUS/GEN/{amd64,arm64}/version  the kernel release (6.12.118+deb13-cloud-amd64)
#   $CORPUS/linux-GEN                  linux-source-GEN unpacked
#   $CORPUS/perf-GEN/perf              perf GEN, unpacked, never installed
#
# Each generation is one row of the table below: the suites its kernel comes
# from, the suite of its perf, and, when that perf needs a newer C library
# than the machine's, the suite whose loader and libraries run it
# ($CORPUS/perf-GEN/perf is then a wrapper that execs that ld.so with
# --library-path). The next generation is a new row.
#
# apt reads a configuration of the corpus's own ($CORPUS/apt: its sources,
# lists and cache), so the machine's sources stay as they are; the archive's
# address is the machine's (its apt sources: the one that serves its own
# release, and its -security suite), never written here. Versions are resolved
# from the metapackages of the generation's suites. Idempotent: a finished
# step leaves a stamp naming what it unpacked.
set -euo pipefail

# GEN   KERNEL-SUITES                 PERF-SUITE          PERF-LIBS-SUITE
GENERATIONS='
6.12    trixie,trixie-security        bookworm-backports  -
7.3     trixie-backports              trixie-backports    trixie
'

# The other machines Debian ships kernel debuginfo for, each one row: the
# generation, Debian's architecture, the kernel flavour (no cloud flavour
# exists for them) and the versions the row takes (a prefix: riscv64's
# backports build lags amd64's, so its 7.x row takes the newest 7.x, which
# was 7.2.11 when 7.3.4 was amd64's). Their -dbg packages carry the
# debuginfo of every module (gigabytes); the vmlinux and the modules of
# MODULES (comma-separated) are kept. They land in $CORPUS/GEN/ARCH as
# amd64's do, busybox-static of the architecture with them (for the
# initramfs of a QEMU boot). SUITES are tried newest version first: an
# archive's pool can lag its lists for one architecture (trixie's ppc64el
# 6.12.117 .debs were gone while its lists still named them), and the first
# version whose packages download wins.
# GEN   ARCH     FLAVOUR       SUITES                                       VERSIONS  MODULES
MACHINES='
6.12    ppc64el  powerpc64le   trixie,trixie-security,bookworm-backports    6.12.     overlay,cuse,ext4,xfs,nf_tables,configfs
6.12    s390x    s390x         trixie,trixie-security,bookworm-backports    6.12.     overlay,cuse,ext4,xfs,nf_tables,configfs
6.12    riscv64  riscv64       trixie,trixie-security                       6.12.     overlay,cuse,ext4,xfs,nf_tables,configfs
7.3     riscv64  riscv64       trixie-backports                             7.        overlay,cuse,ext4,xfs,nf_tables,configfs
'
DEBARCHES=amd64,arm64$(awk 'NF {printf ",%s", $2}' <<<"$MACHINES")

CORPUS=${DWPROBE_CORPUS:-$HOME/.cache/dwprobe-corpus}
APTDIR=$CORPUS/apt
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

log() { printf 'corpus %s: %s\n' "${GEN:-}" "$*" >&2; }
die() { log "$*"; exit 1; }

[ $# -ge 1 ] || { echo "usage: corpusgen.sh GEN... (one of:$(awk 'NF {printf " %s", $1}' <<<"$GENERATIONS"))" >&2; exit 2; }

# --- the archive: the machine's apt sources -----------------------------------
# apt_entries: "URI SUITE" for every enabled deb entry of the machine's
# sources, one-line (sources.list, sources.list.d/*.list) and deb822
# (sources.list.d/*.sources) alike. APT_ETC (default /etc/apt) is where.
apt_entries() {
	local etc=${APT_ETC:-/etc/apt} f
	for f in "$etc/sources.list" "$etc"/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		# deb [OPTIONS] URI SUITE COMPONENT...
		sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" | awk '$1 == "deb" && NF >= 3 {print $2, $3}'
	done
	for f in "$etc"/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk '
			function flush(   i, j, nu, ns, u, s) {
				if (types ~ /(^| )deb( |$)/ && tolower(enabled) != "no") {
					nu = split(uris, u, " "); ns = split(suites, s, " ")
					for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++) print u[i], s[j]
				}
				types = uris = suites = enabled = ""; field = ""
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			/^[ \t]/ { if (field == "uris") uris = uris " " $0; else if (field == "suites") suites = suites " " $0; next }
			{
				field = tolower($0); sub(/:.*/, "", field)
				val = $0; sub(/^[^:]*:[ \t]*/, "", val)
				if (field == "types") types = val
				else if (field == "uris") uris = val
				else if (field == "suites") suites = val
				else if (field == "enabled") enabled = val
			}
			END { flush() }' "$f"
	done
}
# apt_archive_uri main|security: the URI that serves the machine's own
# release (VERSION_CODENAME in /etc/os-release), or its -security suite.
apt_archive_uri() {
	local codename want
	codename=$(. "${OS_RELEASE:-/etc/os-release}" 2>/dev/null && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || return 0
	want=$codename
	if [ "$1" = security ]; then want=$codename-security; fi
	apt_entries | awk -v w="$want" '$2 == w {print $1; exit}'
}
# DWPROBE_APT_ARCHIVE / DWPROBE_APT_SECURITY override what the machine's
# sources say (URIs, e.g. http://mirror.example/debian).
archive=${DWPROBE_APT_ARCHIVE:-$(apt_archive_uri main)}
security=${DWPROBE_APT_SECURITY:-$(apt_archive_uri security)}
[ -n "$archive" ] || { echo "corpusgen.sh: no Debian archive in the machine's apt sources (/etc/apt/sources.list, /etc/apt/sources.list.d); set DWPROBE_APT_ARCHIVE" >&2; exit 1; }
if [ -z "$security" ]; then
	# Debian's own layout: debian-security beside debian.
	security=${archive%/}-security
fi

# Every suite of every row: one configuration serves all generations.
suites=$(awk 'NF && $1 !~ /^#/ {gsub(",", " ", $2); print $2, $3, $4}' <<<"$GENERATIONS" | tr ' ' '\n' | grep -v '^-$' | sort -u)
mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$APTDIR/preferences.d" "$CORPUS/debs"
{
	for s in $suites; do
		uri=$archive
		case $s in *-security) uri=$security ;; esac
		echo "deb [arch=$DEBARCHES signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $s main"
	done
} >"$APTDIR/sources.list.new"
changed=0
cmp -s "$APTDIR/sources.list.new" "$APTDIR/sources.list" || changed=1
mv -f "$APTDIR/sources.list.new" "$APTDIR/sources.list"

APT_OPTS=(
	-o "Dir::Etc::sourcelist=$APTDIR/sources.list" -o Dir::Etc::sourceparts=-
	-o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache=$APTDIR/cache"
	-o "Dir::Etc::preferencesparts=$APTDIR/preferences.d"
	-o APT::Sandbox::User=root
)
for a in ${DEBARCHES//,/ }; do APT_OPTS+=(-o "APT::Architectures::=$a"); done
aptc() { apt-cache "${APT_OPTS[@]}" "$@"; }

# The lists are refreshed once a day at most (the metapackages move with
# Debian's security updates, and a stale list names .debs the archive has
# dropped), and whenever the sources changed.
if [ "$changed" = 1 ] || [ -z "$(find "$APTDIR/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -n1)" ]; then
	log "apt-get update (the corpus's own sources, from $archive)"
	# A mirror in the middle of a sync serves some indexes torn (sizes
	# that disagree with its Release file): apt keeps the old ones and
	# fails. What is missing then shows below as a row that finds no
	# version, which is an error unless an earlier run fetched the row.
	apt-get "${APT_OPTS[@]}" update -qq || log "apt-get update failed for some lists (above); going on with the lists it has"
fi

# version_in PKG SUITES [PREFIX]: the newest version of PKG (name:arch) that
# one of SUITES (comma-separated) has, starting with PREFIX if given.
version_in() {
	aptc madison "$1" 2>/dev/null | awk -F' [|] ' -v suites=",$2," -v pfx="${3:-}" '
		{ split($3, w, " "); s = w[2]; sub(/\/.*/, "", s); gsub(/ /, "", $2)
		  if (index(suites, "," s ",") && index($2, pfx) == 1) { print $2; exit } }'
}
# versions_in SUITES PKG...: "PKG VERSION" for the newest version of each PKG
# (name:arch) in one of SUITES; a package none of them has is left out.
versions_in() {
	local suites=$1
	shift
	aptc madison "$@" 2>/dev/null | awk -F' [|] ' -v suites=",$suites," '
		{ split($3, w, " "); s = w[2]; sub(/\/.*/, "", s); gsub(/ /, "", $1); gsub(/ /, "", $2)
		  if (index(suites, "," s ",") && !seen[$1]++) print $1, $2 }'
}
# image_dep PKG=VER: the linux-image-* package a metapackage depends on.
image_dep() { aptc depends "$1" 2>/dev/null | awk '$1 == "Depends:" && $2 ~ /^linux-image-/ {print $2; exit}'; }
# deps_like PKG PATTERN: PKG's Depends whose name matches PATTERN.
deps_like() { aptc depends "$1" 2>/dev/null | awk -v p="$2" '$1 == "Depends:" && $2 ~ p {print $2}'; }
# deps_like_all PATTERN PKG...: the union of the PKGs' Depends that match.
deps_like_all() {
	local p=$1
	shift
	aptc depends "$@" 2>/dev/null | awk -v p="$p" '$1 == "Depends:" && $2 ~ p {print $2}' | sort -u
}

fetch() { # fetch DIR PKG[=VER]...: download the .debs and unpack them into DIR once.
	local dir=$1
	shift
	local stamp="$*"
	if [ "$(cat "$dir/.done" 2>/dev/null)" = "$stamp" ]; then return 0; fi
	rm -rf "$dir" && mkdir -p "$dir"
	local debs=$CORPUS/debs/$GEN pkg name
	rm -rf "$debs" && mkdir -p "$debs"
	for pkg; do
		log "downloading $pkg"
		(cd "$debs" && apt-get "${APT_OPTS[@]}" download -q "$pkg" >/dev/null) || { rm -rf "$debs" "$dir"; return 1; }
		name=${pkg%%=*}
		name=${name%%:*}
		dpkg-deb -x "$(ls -t "$debs/${name}"_*.deb | head -n1)" "$dir"
		rm -f "$debs/${name}"_*.deb
	done
	rmdir "$debs"
	echo "$stamp" >"$dir/.done"
}

# fetch_image DIR IMG: the bootable image package IMG unpacked into DIR.
# Up to 6.x linux-image-VER is the image (boot/vmlinuz-VER, lib/modules);
# from 7.x it is a metapackage over linux-binary-VER (the image, in
# usr/lib/modules/VER/vmlinuz), linux-modules-VER and linux-base-VER
# (modules.order, modules.builtin, which depmod reads). There is no
# -unsigned image.
fetch_image() {
	local dir=$1 img=$2 parts
	parts=$(deps_like "$img" '^linux-(binary|modules)-')
	if [ -n "$parts" ]; then
		parts="$parts $(deps_like "$img" '^linux-base-[0-9]')"
		# shellcheck disable=SC2086 # one package name a line
		fetch "$dir" $parts
	else
		fetch "$dir" "$img"
	fi
}

# kernel ARCH SUITES: the -dbg package and the bootable image of one machine.
kernel() {
	local arch=$1 ksuites=$2 K=$CORPUS/$GEN
	local meta=linux-image-cloud-$arch
	local v
	v=$(version_in "$meta-dbg:$arch" "$ksuites" "$GEN.")
	[ -n "$v" ] || die "no $meta-dbg $GEN.* in $ksuites"
	local dbg img
	dbg=$(image_dep "$meta-dbg:$arch=$v")
	img=$(image_dep "$meta:$arch=$(version_in "$meta:$arch" "$ksuites" "$GEN.")")
	[ -n "$dbg" ] && [ -n "$img" ] || die "cannot resolve the $arch cloud kernel"
	fetch "$K/$arch/dbg" "$dbg"
	fetch_image "$K/$arch/image" "$img"
	# trixie is usrmerged: the image ships usr/lib/modules only. The link
	# gives it 6.1's layout, which depmod -b and the tests read.
	[ -e "$K/$arch/image/lib" ] || ln -s usr/lib "$K/$arch/image/lib"
	local rel
	rel=$(ls "$K/$arch/image/lib/modules" | head -n1)
	if [ ! -s "$K/$arch/image/lib/modules/$rel/modules.dep" ]; then
		log "depmod $arch $rel"
		depmod -b "$K/$arch/image" "$rel"
	fi
	ln -sfn "$(ls "$K/$arch"/dbg/usr/lib/debug/boot/vmlinux-* | head -n1)" "$K/$arch/vmlinux"
	local vmlinuz= f
	for f in "$K/$arch"/image/boot/vmlinuz-* "$K/$arch/image/usr/lib/modules/$rel/vmlinuz"; do
		if [ -e "$f" ]; then vmlinuz=$f && break; fi
	done
	[ -n "$vmlinuz" ] || die "no vmlinuz in $img"
	ln -sfn "$vmlinuz" "$K/$arch/vmlinuz"
	# The module debuginfo where 6.1's is (dbg/usr/lib/debug/lib/modules).
	if [ ! -e "$K/$arch/dbg/usr/lib/debug/lib/modules" ] && [ -d "$K/$arch/dbg/usr/lib/debug/usr/lib/modules" ]; then
		ln -s usr/lib/modules "$K/$arch/dbg/usr/lib/debug/lib"
	fi
	# busybox is the same program for every kernel: 6.1's corpus has it.
	ln -sfn "$CORPUS/$arch/busybox/bin/busybox" "$K/$arch/busybox-bin"
	local ver=${dbg#linux-image-}
	ver=${ver%%:*}
	echo "${ver%-dbg}" >"$K/$arch/version"
}

# fetch_some DIR PKG PATTERN...: download PKG's .deb and unpack into DIR
# only the files matching a PATTERN (tar --wildcards), once.
fetch_some() {
	local dir=$1 pkg=$2
	shift 2
	local stamp="$pkg $*"
	if [ "$(cat "$dir/.done" 2>/dev/null)" = "$stamp" ]; then return 0; fi
	rm -rf "$dir" && mkdir -p "$dir"
	local debs=$CORPUS/debs/$GEN-$(basename "$(dirname "$dir")") name
	rm -rf "$debs" && mkdir -p "$debs"
	log "downloading $pkg (keeping $*)"
	if ! (cd "$debs" && apt-get "${APT_OPTS[@]}" download -q "$pkg" >/dev/null); then
		rm -rf "$debs" "$dir"
		return 1
	fi
	name=${pkg%%=*}
	name=${name%%:*}
	dpkg-deb --fsys-tarfile "$(ls -t "$debs/${name}"_*.deb | head -n1)" | tar -x -C "$dir" --wildcards "$@"
	rm -rf "$debs"
	echo "$stamp" >"$dir/.done"
}

# versions_of PKG SUITES PREFIX: every version of PKG (name:arch) in one of
# SUITES that starts with PREFIX, newest first.
versions_of() {
	aptc madison "$1" 2>/dev/null | awk -F' [|] ' -v suites=",$2," -v pfx="$3" '
		{ split($3, w, " "); s = w[2]; sub(/\/.*/, "", s); gsub(/ /, "", $2)
		  if (index(suites, "," s ",") && index($2, pfx) == 1 && !seen[$2]++) print $2 }'
}

# machine ARCH FLAVOUR SUITES VERSIONS MODULES: one row of MACHINES: the
# vmlinux and the MODULES' debuginfo from the flavour's -dbg package, the
# image, busybox.
machine() {
	local arch=$1 flavour=$2 ksuites=$3 vers=$4 mods=$5 K=$CORPUS/$GEN
	local meta=linux-image-$flavour v dbg= img= pats=('*/boot/vmlinux-*') m
	# From 7.x the -dbg package's boot/vmlinux-VER is a link to
	# lib/modules/VER/vmlinux.
	case $vers in 6.*) ;; *) pats+=('*/lib/modules/*/vmlinux') ;; esac
	for m in ${mods//,/ }; do pats+=("*/$m.ko"); done
	for v in $(versions_of "$meta-dbg:$arch" "$ksuites" "$vers"); do
		dbg=$(image_dep "$meta-dbg:$arch=$v")
		img=$(image_dep "$meta:$arch=$v")
		[ -n "$dbg" ] && [ -n "$img" ] || continue
		if fetch_some "$K/$arch/dbg" "$dbg" "${pats[@]}" && fetch_image "$K/$arch/image" "$img"; then
			break
		fi
		log "$dbg or $img did not download; trying an older one"
		dbg=
	done
	if [ -z "$dbg" ] && [ -s "$K/$arch/version" ] && [ -e "$K/$arch/dbg/.done" ] && [ -e "$K/$arch/image/.done" ]; then
		# The lists name none (an index the mirror served torn, see the
		# update above), but an earlier run fetched this row whole.
		log "keeping $arch $(cat "$K/$arch/version"): the lists name no $meta-dbg $vers* in $ksuites"
		return 0
	fi
	[ -n "$dbg" ] || die "no $meta-dbg $vers* in $ksuites that downloads"
	fetch "$K/$arch/busybox" "busybox-static:$arch"
	[ -e "$K/$arch/image/lib" ] || ln -s usr/lib "$K/$arch/image/lib"
	local rel
	rel=$(ls "$K/$arch/image/lib/modules" | head -n1)
	if [ ! -s "$K/$arch/image/lib/modules/$rel/modules.dep" ]; then
		log "depmod $arch $rel"
		depmod -b "$K/$arch/image" "$rel"
	fi
	ln -sfn "$(ls "$K/$arch"/dbg/usr/lib/debug/boot/vmlinux-* | head -n1)" "$K/$arch/vmlinux"
	local vmlinuz= f
	for f in "$K/$arch"/image/boot/vmlinu[xz]-* "$K/$arch/image/usr/lib/modules/$rel"/vmlinu[xz]; do
		if [ -e "$f" ]; then vmlinuz=$f && break; fi
	done
	[ -n "$vmlinuz" ] || die "no bootable image in $img"
	ln -sfn "$vmlinuz" "$K/$arch/vmlinuz"
	if [ ! -e "$K/$arch/dbg/usr/lib/debug/lib/modules" ] && [ -d "$K/$arch/dbg/usr/lib/debug/usr/lib/modules" ]; then
		ln -s usr/lib/modules "$K/$arch/dbg/usr/lib/debug/lib"
	fi
	# busybox-static is usrmerged from trixie on (usr/bin/busybox).
	local bb=$K/$arch/busybox/bin/busybox
	[ -e "$bb" ] || bb=$K/$arch/busybox/usr/bin/busybox
	ln -sfn "$bb" "$K/$arch/busybox-bin"
	local ver=${dbg#linux-image-}
	ver=${ver%%:*}
	echo "${ver%-dbg}" >"$K/$arch/version"
}

# kernel_source SUITES: linux-source-GEN at the amd64 kernel's Debian version.
kernel_source() {
	local srcver K=$CORPUS/$GEN
	srcver=$(version_in "linux-image-cloud-amd64-dbg:amd64" "$1" "$GEN.")
	if [ "$(cat "$K/src/.done" 2>/dev/null)" != "$srcver" ]; then
		fetch "$K/srcdeb" "linux-source-$GEN=$srcver"
		log "unpacking linux-source-$GEN"
		rm -rf "$K/src" && mkdir -p "$K/src"
		tar -xf "$K/srcdeb/usr/src/linux-source-$GEN.tar.xz" -C "$K/src"
		rm -rf "$K/srcdeb"
		echo "$srcver" >"$K/src/.done"
	fi
	ln -sfn "$(ls -d "$K"/src/linux-source-* | head -n1)" "$CORPUS/linux-$GEN"
}

# get_perf SUITE LIBSUITE: perf GEN from SUITE, unpacked as $CORPUS/perf-GEN;
# with LIBSUITE, run through that suite's loader and libraries.
get_perf() {
	local suite=$1 libsuite=$2 P=$CORPUS/perf-$GEN
	local v
	v=$(version_in linux-perf:amd64 "$suite" "$GEN.")
	[ -n "$v" ] || die "no linux-perf $GEN.* in $suite"
	fetch "$P/pkg" "linux-perf:amd64=$v"
	if [ "$libsuite" = - ]; then
		ln -sfn "$P/pkg/usr/bin/perf" "$P/perf"
	else
		# The closure of perf's library dependencies in LIBSUITE, libc6
		# (its loader) first; packages that are not libraries (perl,
		# python3) are left out: perf probe runs neither.
		# Breadth first, one apt-cache call per level; not again while the
		# libraries are newer than the lists.
		local level seen=' ' pkgs=() p pv
		level="libc6 $(deps_like "linux-perf:amd64=$v" '^lib')"
		if [ -e "$P/libs/.done" ] && [ -z "$(find "$APTDIR/lists" -maxdepth 1 -name '*Packages*' -newer "$P/libs/.done" | head -n1)" ]; then
			level=
			read -r -a pkgs <"$P/libs/.done"
		fi
		while [ -n "$level" ]; do
			local next=() names=()
			for p in $level; do
				p=${p%%:*}
				case $seen in *" $p "*) continue ;; esac
				seen="$seen$p "
				names+=("$p:amd64")
			done
			[ ${#names[@]} -gt 0 ] || break
			while read -r p pv; do
				pkgs+=("$p=$pv")
				next+=("$p=$pv")
			done < <(versions_in "$libsuite" "${names[@]}")
			level=
			if [ ${#next[@]} -gt 0 ]; then level=$(deps_like_all '^lib' "${next[@]}"); fi
		done
		fetch "$P/libs" "${pkgs[@]}"
		local ld=
		for p in usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 lib/x86_64-linux-gnu/ld-linux-x86-64.so.2; do
			if [ -e "$P/libs/$p" ]; then ld=$p && break; fi
		done
		[ -n "$ld" ] || die "no ld-linux-x86-64.so.2 in $libsuite's libc6"
		rm -f "$P/perf"
		cat >"$P/perf" <<EOF
#!/bin/sh
# perf $v ($suite) needs $libsuite's C library: run it through $libsuite's
# loader and libraries (corpusgen.sh).
d=\$(dirname "\$(readlink -f "\$0")")
exec "\$d/libs/$ld" --argv0 perf --library-path "\$d/libs/usr/lib/x86_64-linux-gnu:\$d/libs/lib/x86_64-linux-gnu" "\$d/pkg/usr/bin/perf" "\$@"
EOF
		chmod 755 "$P/perf"
	fi
	"$P/perf" --version >/dev/null || die "perf $GEN does not run here"
}

for GEN; do
	row=$(awk -v g="$GEN" '$1 == g' <<<"$GENERATIONS")
	machines=$(awk -v g="$GEN" '$1 == g' <<<"$MACHINES")
	[ -n "$row" ] || die "unknown generation (the table in corpusgen.sh has:$(awk 'NF {printf " %s", $1}' <<<"$GENERATIONS"))"
	read -r _ ksuites psuite libsuite <<<"$row"
	mkdir -p "$CORPUS/$GEN"
	# Resolved and fetched since the lists last changed: nothing to ask apt
	# (each apt-cache call reads every list, seconds on a busy machine).
	done=$CORPUS/$GEN/.complete
	if [ "$changed" = 0 ] && [ "$(cat "$done" 2>/dev/null)" = "$row$machines" ] &&
		[ -z "$(find "$APTDIR/lists" -maxdepth 1 -name '*Packages*' -newer "$done" | head -n1)" ] &&
		"$CORPUS/perf-$GEN/perf" --version >/dev/null 2>&1; then
		log "ready in $CORPUS/$GEN (up to date with the lists)"
		continue
	fi
	rm -f "$done"
	for arch in amd64 arm64; do
		kernel "$arch" "$ksuites"
	done
	while read -r _ arch flavour msuites mvers mods; do
		[ -n "${arch:-}" ] || continue
		machine "$arch" "$flavour" "$msuites" "$mvers" "$mods"
	done <<<"$machines"
	kernel_source "$ksuites"
	get_perf "$psuite" "$libsuite"
	echo "$row$machines" >"$done"
	log "ready in $CORPUS/$GEN"
done
