// Package btf reads a kernel's BTF, for probes when the kernel has no
// DWARF: the types (a vmlinux's .BTF section, a raw blob, a module's
// split BTF on its kernel's), the symbols that place them, and which
// kernel, module and files answer.
//
//   - btf.go: Types, one BTF decoded whole under recover and its
//     functions indexed (Load, FromFile, Parse; a module's SplitFromFile,
//     ParseSplit), the running kernel's RunningPath and ParseRelease.
//   - syms.go: Symbols, what a probe from BTF asks of the kernel's
//     function symbols: a vmlinux's or module's symbol table (ELFSyms),
//     or the running kernel's kallsyms and ftrace list (Kallsyms).
//   - kernel.go: Open, the choice of types and symbols for a kernel or
//     module (--btf FILE, a vmlinux's .BTF, /sys/kernel/btf/vmlinux and
//     /sys/kernel/btf/MODULE, a raw blob's assumed machine and version),
//     with Source saying where each came from.
//
// It reads ELF files through elfobj and elfsym (an ELF is the two halves
// of a *dwarfres.File; a module is opened by the caller, Options.OpenModule)
// and the kernel's BTF through cilium/ebpf/btf, imported as ebtf here.
// Errors wrap ErrNoBTF or are elfobj's, the caller's or the file
// system's; their wording for the command line is cmd/dwprobe's.
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 4,
// below dwarfres and tracefs. It imports neither: the machine a raw
// blob is taken for is the caller's Options.Machine, and a module's file
// the caller's Options.OpenModule. Answers and Stripped, which read a
// *dwarfres.File, went to probegen (unexported), their one caller.
package btf
