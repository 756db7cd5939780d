#!/usr/bin/env bash
# build.sh: rebuild the tiny-* seeds of probegen's FuzzBinary from tiny.c
# (gcc and clang, -O0 and -O2, DWARF 4 and 5; and one relocatable object). No libc, no build-id, no
# page alignment: each is a few KB, most of it DWARF.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
for cc in gcc clang; do
	for opt in O0 O2; do
		for dw in 4 5; do
			out=tiny-$cc-$opt-dwarf$dw
			"$cc" -g -gdwarf-"$dw" -"$opt" -fno-omit-frame-pointer -fno-asynchronous-unwind-tables \
				-nostdlib -static -Wl,--build-id=none -Wl,-N -Wl,--no-warn-rwx-segments \
				-o "$out" tiny.c
			objcopy --remove-section=.comment "$out"
		done
	done
done
# A relocatable object, as a kernel module is (ET_REL: sections at 0,
# DWARF addresses left to relocations); -D on it writes module kprobes.
gcc -g -gdwarf-5 -O2 -fno-omit-frame-pointer -fno-asynchronous-unwind-tables -c -o tiny-gcc-O2-rel-dwarf5 tiny.c
objcopy --remove-section=.comment tiny-gcc-O2-rel-dwarf5
ls -l tiny-*
