// Package qemutest boots the corpus's Debian kernels (6.1 as "amd64",
// "arm64"; 6.12 as "6.12/amd64", "6.12/arm64") under QEMU's TCG with a
// busybox initramfs that writes probe definitions to kprobe_events (f:
// and t: lines to dynamic_events), runs a workload with the probes enabled and prints the
// trace, and parses what the guest printed: the definitions the kernel
// refused (with its error_log), the workload's output and the trace
// records, with their arguments split by name. Tests of definitions that
// only a booted kernel can judge (modules, BTF, debuginfo lookups) import
// it; testdata/scripts/qemu.sh and guest-init.sh are its guest side.
// Modules stages the image's kernel modules (with their dependencies,
// 6.12's .ko.xz decompressed, a modules.dep and chosen module debuginfo)
// for a guest, whose setup script (SetupPath) can load them before the
// definitions are written; GuestFiles (files.go) stages files a test writes for the guest.
// fprobe_test.go boots 6.12 with f:, t: and a kretprobe reading $argN.
//
// Its place in dwprobe's import order (probegen/layers_test.go): a test
// helper of layer 10, importing tracefs and dwarftest.
package qemutest
