#!/usr/bin/env bash
# snapshot.sh BIN OUTDIR: every answer dwprobe BIN gives on the corpus, one
# file per list, to compare before and after a refactor (issue 30): -D
# --json of every conformance list (6.1, 6.12, 7.3, amd64 and arm64, the
# module lists), -V, -L --detail and -F of each, --diff (text and JSON) of
# 6.1 against 6.12, --bootconfig and the BTF fallback. Compare two
# snapshots with `diff -r`.
set -uo pipefail
BIN=$(realpath "$1"); OUT=$2
C=${DWPROBE_CORPUS:-$HOME/.cache/dwprobe-corpus}
CONF=$(dirname "$0")/../conformance
mkdir -p "$OUT"
export DWPROBE_INDEX_DIR=${DWPROBE_INDEX_DIR:-$OUT/.index}

# run NAME VML SRC LIST MODDIR: answers of one conformance list.
run() {
	local name=$1 vml=$2 src=$3 list=$4 moddir=$5 o=$OUT/$1
	mkdir -p "$o"
	: > "$o/V.txt"; : > "$o/L.txt"; : > "$o/F.txt"
	declare -A dspecs=()
	while IFS=$'\t' read -r kind spec opts; do
		[[ -z $kind || $kind == \#* ]] && continue
		target=(-k "$vml")
		if [[ $opts == "-m "* ]]; then target=(-m "$moddir/${opts#-m }"); fi
		case $kind in
		D|S) key=${opts:-none}; dspecs[$key]="${dspecs[$key]:-}$spec"$'\n' ;;
		V) { echo "== -V $spec $opts"; "$BIN" "${target[@]}" -s "$src" -V "$spec" 2>&1; echo "rc=$?"; } >> "$o/V.txt" ;;
		L) { echo "== -L $spec $opts"; "$BIN" "${target[@]}" -s "$src" -L "$spec" --detail 2>&1; echo "rc=$?"; } >> "$o/L.txt" ;;
		F) { echo "== -F $spec $opts"; "$BIN" "${target[@]}" --funcs="$spec" 2>&1; echo "rc=$?"; } >> "$o/F.txt" ;;
		esac
	done < "$list"
	local IFS=$'\n' key opt
	for key in $(printf '%s\n' "${!dspecs[@]}" | sort); do
		target=(-k "$vml"); opt=()
		case $key in
		none) ;;
		"-m "*) target=(-m "$moddir/${key#-m }") ;;
		*) opt=("$key") ;;
		esac
		f=$o/D-$(echo "$key" | tr -c 'A-Za-z0-9.\n' '_').specs
		printf '%s' "${dspecs[$key]}" > "$f"
		{ echo "== -D @ $key"; "$BIN" "${target[@]}" -s "$src" "${opt[@]}" -D @"$f" --json 2>&1 | sed "s#$o/##g"; echo "rc=${PIPESTATUS[0]}"; } >> "$o/D.json"
	done
	rm -f "$o"/*.specs
}

mod() { echo "$(ls -d "$1"/dbg/usr/lib/debug/lib/modules/*/kernel | head -1)"; }
run 6.1-amd64 "$C/amd64/vmlinux" "$C/linux" "$CONF/specs.txt" ""
run 6.1-arm64 "$C/arm64/vmlinux" "$C/linux" "$CONF/specs-arm64.txt" ""
run 6.1-modules-amd64 "$C/amd64/vmlinux" "$C/linux" "$CONF/modules/specs-amd64.txt" "$(mod "$C/amd64")"
run 6.1-modules-arm64 "$C/arm64/vmlinux" "$C/linux" "$CONF/modules/specs-arm64.txt" "$(mod "$C/arm64")"
for g in 6.12 7.3; do for a in amd64 arm64; do
	run "$g-$a" "$C/$g/$a/vmlinux" "$C/linux-$g" "$CONF/$g/specs-$a.txt" ""
done; done

# --diff, --bootconfig and BTF on the 6.1 amd64 D list.
grep -P '^D\t[^\t]*$' "$CONF/specs.txt" | cut -f2 > "$OUT/diff.specs"
{ "$BIN" -k "$C/amd64/vmlinux" -s "$C/linux" --diff "$C/6.12/amd64/vmlinux" --diff-source "$C/linux-6.12" -D @"$OUT/diff.specs" 2>&1; echo "rc=$?"; } | sed "s#$OUT/##g" > "$OUT/diff.txt"
{ "$BIN" -k "$C/amd64/vmlinux" -s "$C/linux" --diff "$C/6.12/amd64/vmlinux" --diff-source "$C/linux-6.12" -D @"$OUT/diff.specs" --json 2>&1; echo "rc=$?"; } | sed "s#$OUT/##g" > "$OUT/diff.json"
{ "$BIN" -k "$C/amd64/vmlinux" --bootconfig -D @"$OUT/diff.specs" 2>&1; echo "rc=$?"; } | sed "s#$OUT/##g" > "$OUT/bootconfig.txt"
{ "$BIN" --btf "$C/amd64/vmlinux" -D @"$OUT/diff.specs" --json 2>&1; echo "rc=$?"; } | sed "s#$OUT/##g" > "$OUT/btf.json"
rm -rf "$OUT/.index"
