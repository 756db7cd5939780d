#!/usr/bin/env bash
# qemu.sh ARCH WORKDIR: boot the corpus kernel for ARCH (amd64|arm64, or
# VERSION/ARCH such as 6.12/amd64 or 6.12/ppc64el, 6.12/s390x, 6.12/riscv64
# for the corpus's other kernels) under
# TCG with WORKDIR/initramfs.cpio as the root file system and copy the
# serial console to stdout. The guest's /init (guest-init.sh) powers off when
# done; past the hard timeout (DWPROBE_QEMU_TIMEOUT seconds, default 120 for
# amd64, 240 for arm64, 300 for the others) qemu is killed and the script
# exits 124.
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
	# no_timer_check: under TCG on a loaded host the 8254 timer check
	# can miss its ticks and panic ("IO-APIC + timer doesn't work").
	append="console=ttyS0 no_timer_check $append"
	limit=120
	;;
arm64)
	# cortex-a57 rather than max: max turns on pointer authentication,
	# which TCG emulates slowly.
	qemu=(qemu-system-aarch64 -M virt -cpu cortex-a57)
	append="console=ttyAMA0 $append"
	limit=240
	;;
ppc64el)
	# pseries (SLOF, from qemu-system-data) boots the ELF vmlinux the
	# image ships; the console is the hypervisor's (hvc0). The spectre
	# capabilities TCG cannot emulate are turned off rather than warned
	# about.
	qemu=(qemu-system-ppc64 -M pseries,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off -cpu power9)
	append="console=hvc0 $append"
	limit=300
	;;
s390x)
	# The s390-ccw-virtio machine loads the image itself; the console is
	# the SCLP's.
	qemu=(qemu-system-s390x -M s390-ccw-virtio -cpu max)
	append="console=ttysclp0 $append"
	limit=300
	;;
riscv64)
	# virt with OpenSBI (qemu's default firmware), a 16550 UART.
	qemu=(qemu-system-riscv64 -M virt -cpu rv64 -bios default)
	append="console=ttyS0 $append"
	limit=300
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
