package arch

import (
	"debug/elf"
	"encoding/binary"
	"regexp"
	"strconv"
)

func s390x() *Arch {
	a := &Arch{
		Name:    "s390x",
		Machine: elf.EM_S390,
		GOARCH:  "s390x",
		// DWARF numbers from the s390x ELF ABI supplement, "DWARF
		// Definition" (0-15 are r0-r15). The kernel's
		// regs_query_register_offset (arch/s390/kernel/ptrace.c, the
		// same in 6.12 and 7.3) takes "r" and a decimal number below
		// NUM_GPRS (16) and answers the register's index, not a byte
		// offset: regs_get_register reads gprs[index].
		dwarfRegs: map[uint64]string{},
		// The byte offsets are those of struct pt_regs
		// (arch/s390/include/asm/ptrace.h): args[1] and psw (mask,
		// addr) before gprs[16], so r0 is at 24. A BPF program reads
		// them there.
		ptRegs:      map[string]int{},
		hint:        s390Hint,
		asmRegister: s390AsmRegister,
		// s390x ELF ABI supplement, "Parameter Passing": r2-r6, then the
		// stack past the 160-byte register save area at the caller's
		// r15; results in r2; the return address in r14.
		IntArgRegs:     []string{"r2", "r3", "r4", "r5", "r6"},
		StackArgOffset: 160,
		IntResultReg:   "r2",
		// kernel_stack_pointer is gprs[15].
		StackPointer: "r15",
		// Go's src/cmd/compile/abi-internal.md has no s390x register
		// ABI: Go passes s390x results on the stack (ABI0).
		GoIntResultRegs: nil,
		BigEndian:       true,
		// Instructions are 2, 4 or 6 bytes, by the first two bits of
		// the opcode.
		InsnSize: 0,
		insnLen:  s390InsnLen,
		nop:      []byte{0x07, 0x00}, // bcr 0,%r0 (nopr)
	}
	for i := 0; i < 16; i++ {
		r := "r" + strconv.Itoa(i)
		a.dwarfRegs[uint64(i)] = r
		a.ptRegs[r] = 24 + 8*i
	}
	return a
}

// s390Hint reads "%gpr3" or "%R3" as the kernel's "%r3".
func s390Hint(a *Arch, n string) string {
	if r, _, ok := s390AsmRegister(n); ok && r != n && a.HasRegister(r) {
		return "%" + r
	}
	return ""
}

// s390AsmReg is a general register as gas or a user writes one.
var s390AsmReg = regexp.MustCompile(`^(?:r|R|gpr)([0-9]|1[0-5])$`)

// s390AsmRegister names the kernel's register rN.
func s390AsmRegister(s string) (string, bool, bool) {
	m := s390AsmReg.FindStringSubmatch(s)
	if m == nil {
		return "", false, false
	}
	return "r" + m[1], false, true
}

// s390InsnLen is an instruction's length from the first two bits of its
// opcode (z/Architecture Principles of Operation, "Instruction Formats":
// 00 is 2 bytes, 01 and 10 are 4, 11 is 6), which holds for every
// instruction. ret: "br %r14" (bcr 15,%r14).
func s390InsnLen(code []byte) (int, bool, error) {
	if len(code) < 2 {
		return 0, false, errShortInsn
	}
	n := [4]int{2, 4, 4, 6}[code[0]>>6]
	if len(code) < n {
		return 0, false, errShortInsn
	}
	return n, binary.BigEndian.Uint16(code) == 0x07fe, nil
}
