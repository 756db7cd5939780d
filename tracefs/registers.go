package tracefs

import (
	"debug/elf"
	"strconv"
	"strings"
)

// kernelRegs lists, per ELF machine, the register names (without '%') the
// kernel's regs_query_register_offset accepts in a fetcharg. It is keyed
// by the machine of the kernel or binary probed, never by the host's.
var kernelRegs = map[elf.Machine]map[string]bool{
	// arch/x86/kernel/ptrace.c regoffset_table (perf's
	// arch/x86/util/dwarf-regs.c mirrors it).
	elf.EM_X86_64: set("ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "r8", "r9", "r10", "r11",
		"r12", "r13", "r14", "r15", "ip", "flags", "cs", "ss", "orig_ax"),
	// arch/arm64/kernel/ptrace.c regoffset_table.
	elf.EM_AARCH64: arm64Regs(),
}

func arm64Regs() map[string]bool {
	m := set("sp", "pc", "pstate")
	for i := 0; i <= 30; i++ {
		m["x"+strconv.Itoa(i)] = true
	}
	return m
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// HasRegister reports whether the kernel accepts %name on machine m, so
// that "%rax" on x86_64 (the kernel says "%ax") is refused before writing.
func HasRegister(m elf.Machine, name string) bool {
	return kernelRegs[m][name]
}

// RegisterHint suggests the kernel's name for a register written as an
// assembler would ("%rax" and "%eax" on x86_64 are "%ax", "%w3" on arm64
// reads "%x3"), or "" if there is none.
func RegisterHint(m elf.Machine, reg string) string {
	n := strings.TrimPrefix(reg, "%")
	if m == elf.EM_X86_64 && len(n) == 3 && (n[0] == 'r' || n[0] == 'e') && HasRegister(m, n[1:]) {
		return "%" + n[1:]
	}
	if m == elf.EM_AARCH64 && len(n) >= 2 && n[0] == 'w' && HasRegister(m, "x"+n[1:]) {
		return "%x" + n[1:]
	}
	return ""
}

// MachineName is the kernel's name of machine m: "x86_64", "arm64".
func MachineName(m elf.Machine) string {
	switch m {
	case elf.EM_X86_64:
		return "x86_64"
	case elf.EM_AARCH64:
		return "arm64"
	}
	return m.String()
}
