package arch

import (
	"debug/elf"
	"regexp"
	"strconv"

	"golang.org/x/arch/arm64/arm64asm"
)

func arm64() *Arch {
	a := &Arch{
		Name:    "arm64",
		Machine: elf.EM_AARCH64,
		GOARCH:  "arm64",
		// DWARF numbers from the AArch64 DWARF ABI (aadwarf64, "DWARF
		// register names": x0-x30 are 0-30, sp is 31); names from
		// the kernel's arch/arm64/kernel/ptrace.c regoffset_table.
		dwarfRegs: map[uint64]string{31: "sp"},
		// struct user_pt_regs, the head of struct pt_regs, in
		// arch/arm64/include/uapi/asm/ptrace.h (pt_regs in
		// arch/arm64/include/asm/ptrace.h): x0-x30, sp, pc, pstate.
		ptRegs:      map[string]int{"sp": 248, "pc": 256, "pstate": 264},
		hint:        arm64Hint,
		asmRegister: arm64AsmRegister,
		// Arm AAPCS64, 6.8.2 "Parameter passing rules": x0-x7, then the
		// stack from sp in 8-byte slots (the return address is in x30).
		IntArgRegs:     []string{"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"},
		StackArgOffset: 0,
		IntResultReg:   "x0",
		StackPointer:   "sp",
		// Go's src/cmd/compile/abi-internal.md, "arm64 architecture".
		GoIntResultRegs: []string{"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15"},
		// AAELF64 (the Arm ELF ABI for AArch64), "Mapping symbols".
		MappingSymbols: true,
		InsnSize:       4,
		// The kernel's -fpatchable-function-entry=2 (arch/arm64/Makefile,
		// with DYNAMIC_FTRACE_WITH_REGS): two NOPs, the second ftrace's
		// call site.
		EntryNOPs: 2,
		insnLen:   arm64InsnLen,
		nop:       []byte{0x1f, 0x20, 0x03, 0xd5}, // 0xd503201f, little-endian
	}
	for i := 0; i <= 30; i++ {
		a.dwarfRegs[uint64(i)] = "x" + strconv.Itoa(i)
		a.ptRegs["x"+strconv.Itoa(i)] = 8 * i
	}
	return a
}

// arm64Hint reads "w3", the low half of x3, as the kernel's "x3".
func arm64Hint(a *Arch, n string) string {
	if len(n) >= 2 && n[0] == 'w' && a.HasRegister("x"+n[1:]) {
		return "%x" + n[1:]
	}
	return ""
}

// arm64AsmReg is a general register as gcc prints one: xN, wN (its low
// half), sp or wsp.
var arm64AsmReg = regexp.MustCompile(`^(?:([xw])([0-9]|[12][0-9]|30)|(sp|wsp))$`)

// arm64AsmRegister names the kernel's register: xN for xN and wN, sp.
func arm64AsmRegister(s string) (string, bool, bool) {
	m := arm64AsmReg.FindStringSubmatch(s)
	switch {
	case m == nil:
		return "", false, false
	case m[3] != "":
		return "sp", false, true
	}
	return "x" + m[2], false, true
}

// arm64InsnLen decodes one A64 instruction.
func arm64InsnLen(code []byte) (int, bool, error) {
	if len(code) > 4 {
		code = code[:4]
	}
	in, err := arm64asm.Decode(code)
	if err != nil {
		return 0, false, err
	}
	return 4, in.Op == arm64asm.RET, nil
}
