package arch

// File names avoid the _amd64/_arm64 suffixes: those would be build
// constraints, and every architecture must be known on every host.

import (
	"debug/elf"
	"strings"

	"github.com/go-delve/delve/pkg/dwarf/regnum"
)

func x86_64() *Arch {
	return &Arch{
		Name:    "x86_64",
		Machine: elf.EM_X86_64,
		GOARCH:  "amd64",
		// DWARF numbers from the System V AMD64 psABI 1.0, figure 3.36
		// "DWARF Register Number Mapping"; names from the kernel's
		// arch/x86/kernel/ptrace.c regoffset_table, which perf's
		// arch/x86/util/dwarf-regs.c mirrors.
		dwarfRegs: map[uint64]string{
			regnum.AMD64_Rax: "ax", regnum.AMD64_Rdx: "dx", regnum.AMD64_Rcx: "cx", regnum.AMD64_Rbx: "bx",
			regnum.AMD64_Rsi: "si", regnum.AMD64_Rdi: "di", regnum.AMD64_Rbp: "bp", regnum.AMD64_Rsp: "sp",
			regnum.AMD64_R8: "r8", regnum.AMD64_R9: "r9", regnum.AMD64_R10: "r10", regnum.AMD64_R11: "r11",
			regnum.AMD64_R12: "r12", regnum.AMD64_R13: "r13", regnum.AMD64_R14: "r14", regnum.AMD64_R15: "r15",
			regnum.AMD64_Rip: "ip",
		},
		// struct pt_regs of arch/x86/include/asm/ptrace.h (64-bit): the
		// registers of regoffset_table, at their offsets.
		ptRegs: map[string]int{
			"r15": 0, "r14": 8, "r13": 16, "r12": 24, "bp": 32, "bx": 40,
			"r11": 48, "r10": 56, "r9": 64, "r8": 72, "ax": 80, "cx": 88,
			"dx": 96, "si": 104, "di": 112, "orig_ax": 120, "ip": 128,
			"cs": 136, "flags": 144, "sp": 152, "ss": 160,
		},
		hint:        x86Hint,
		asmRegister: x86AsmRegister,
		// System V AMD64 psABI 1.0, 3.2.3 "Parameter Passing"; the stack
		// arguments start past the return address.
		IntArgRegs:     []string{"di", "si", "dx", "cx", "r8", "r9"},
		StackArgOffset: 8,
		IntResultReg:   "ax",
		StackPointer:   "sp",
		// Go's src/cmd/compile/abi-internal.md, "amd64 architecture".
		GoIntResultRegs: []string{"ax", "bx", "cx", "di", "si", "r8", "r9", "r10", "r11"},
		insnLen:         x86InsnLen,
		nop:             []byte{0x90},
	}
}

// x86Hint reads "rax" and "eax" as the kernel's "ax".
func x86Hint(a *Arch, n string) string {
	if len(n) == 3 && (n[0] == 'r' || n[0] == 'e') && a.HasRegister(n[1:]) {
		return "%" + n[1:]
	}
	return ""
}

// x86AsmRegs is perf's sdt_reg_tbl (arch/x86/util/perf_regs.c): gas names
// of the parts of a register and the kernel's name of the whole ("%eax"
// and "%al" read "%ax"). Names that are the kernel's already ("%ax",
// "%r8") are not listed.
var x86AsmRegs = map[string]string{
	"eax": "ax", "rax": "ax", "al": "ax",
	"ebx": "bx", "rbx": "bx", "bl": "bx",
	"ecx": "cx", "rcx": "cx", "cl": "cx",
	"edx": "dx", "rdx": "dx", "dl": "dx",
	"esi": "si", "rsi": "si", "sil": "si",
	"edi": "di", "rdi": "di", "dil": "di",
	"ebp": "bp", "rbp": "bp", "bpl": "bp",
	"esp": "sp", "rsp": "sp", "spl": "sp",
	"rip": "ip", "eip": "ip",
}

// x86AsmHigh are the high-byte registers: bits 8-15 of their register
// (perf 6.1 reads %ah as %ax, the wrong byte).
var x86AsmHigh = map[string]string{"ah": "ax", "bh": "bx", "ch": "cx", "dh": "dx"}

// x86AsmRegister names the kernel's register of a gas register name; any
// name passes (the kernel's own, or none the kernel knows).
func x86AsmRegister(gas string) (string, bool, bool) {
	if r, ok := x86AsmHigh[gas]; ok {
		return r, true, true
	}
	if r, ok := x86AsmRegs[gas]; ok {
		return r, false, true
	}
	// %r8d, %r8w, %r8b are parts of %r8.
	if len(gas) > 2 && gas[0] == 'r' && strings.ContainsAny(gas[len(gas)-1:], "dwb") {
		return gas[:len(gas)-1], false, true
	}
	return gas, false, true
}
