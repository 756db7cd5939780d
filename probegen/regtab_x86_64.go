package probegen

// File names avoid the _amd64/_arm64 suffixes: those would be build
// constraints, and every table must be present on every host.

import (
	"debug/elf"

	"github.com/go-delve/delve/pkg/dwarf/regnum"
)

// x86_64: DWARF numbers from the System V AMD64 psABI (figure 3.36); names
// from the kernel's arch/x86/kernel/ptrace.c regoffset_table, which perf's
// arch/x86/util/dwarf-regs.c mirrors.
func init() {
	register(elf.EM_X86_64, &regTable{
		dwarf: map[uint64]string{
			regnum.AMD64_Rax: "ax", regnum.AMD64_Rdx: "dx", regnum.AMD64_Rcx: "cx", regnum.AMD64_Rbx: "bx",
			regnum.AMD64_Rsi: "si", regnum.AMD64_Rdi: "di", regnum.AMD64_Rbp: "bp", regnum.AMD64_Rsp: "sp",
			regnum.AMD64_R8: "r8", regnum.AMD64_R9: "r9", regnum.AMD64_R10: "r10", regnum.AMD64_R11: "r11",
			regnum.AMD64_R12: "r12", regnum.AMD64_R13: "r13", regnum.AMD64_R14: "r14", regnum.AMD64_R15: "r15",
			regnum.AMD64_Rip: "ip",
		},
	})
}
