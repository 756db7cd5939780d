#!/usr/bin/env bash
# qemu.sh ARCH WORKDIR: boot the corpus kernel for ARCH (amd64|arm64, or
# VERSION/ARCH such as 6.12/amd64 for the corpus's other kernels) under
# TCG with WORKDIR/initramfs.cpio as the root file system and copy the
# serial console to stdout. The guest's /init (guest-init.sh) powers off when
# done; past the hard timeout (DWPROBE_QEMU_TIMEOUT seconds, default 120 for
# amd64 and 240 for arm64) qemu is killed and the script exits 124.
set -euo pipefail

[ $# = 2 ] || { echo "usage: qemu.sh amd64|arm64 WORKDIR" >&2; exit 2; }
arch=$1 work=$2
CORPUS=${DWPROBE_CORPUS:-$HOME/.cache/dwprobe-corpus}
kernel=$CORPUS/$arch/vmlinuz
initrd=$work/initramfs.cpio
for f in "$kernel" "$initrd"; do
	[ -r "$f" ] || { echo "qemu.sh: $f missing" >&2; exit 2; }
done

# nokaslr keeps addresses stable between boots; DWPROBE_QEMU_KASLR=1
# boots with KASLR on, as Debian's kernels run (for what must hold at any
# load address: BPF reads of globals). panic=-1 with -no-reboot turns a
# guest panic into a qemu exit instead of a hang.
kaslr=nokaslr
[ "${DWPROBE_QEMU_KASLR:-0}" = 1 ] && kaslr=kaslr
append="panic=-1 quiet $kaslr rdinit=/init"
case ${arch##*/} in
amd64)
	qemu=(qemu-system-x86_64)
	append="console=ttyS0 $append"
	limit=120
	;;
arm64)
	# cortex-a57 rather than max: max turns on pointer authentication,
	# which TCG emulates slowly.
	qemu=(qemu-system-aarch64 -M virt -cpu cortex-a57)
	append="console=ttyAMA0 $append"
	limit=240
	;;
*)
	echo "qemu.sh: unknown arch $arch" >&2
	exit 2
	;;
esac
limit=${DWPROBE_QEMU_TIMEOUT:-$limit}

# /dev/kvm may exist, but nested KVM fails here: always TCG.
exec timeout -k 5 "$limit" "${qemu[@]}" -accel tcg -m 512M -nodefaults \
	-display none -monitor none -serial stdio -no-reboot \
	-kernel "$kernel" -initrd "$initrd" -append "$append" </dev/null
