package arch

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"regexp"
)

// riscvRegs are the integer registers x0-x31 by their ABI names, in DWARF
// number order: the RISC-V ELF psABI, "DWARF Register Numbers" (0-31 are
// x0-x31) and "Integer Register Convention" (the names). x0 (zero) is
// not in the kernel's regoffset_table: no fetcharg reads it.
var riscvRegs = [32]string{
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2",
	"s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
	"a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7",
	"s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
}

func riscv64() *Arch {
	a := &Arch{
		Name:    "riscv64",
		Machine: elf.EM_RISCV,
		GOARCH:  "riscv64",
		// Names from the kernel's arch/riscv/kernel/ptrace.c
		// regoffset_table (the same in 6.12 and 7.3): epc, the integer
		// registers but zero, status, badaddr, cause, orig_a0, at their
		// offsets in struct pt_regs (arch/riscv/include/asm/ptrace.h),
		// which starts with epc where zero would be.
		dwarfRegs: map[uint64]string{},
		ptRegs: map[string]int{
			"epc": 0, "status": 256, "badaddr": 264, "cause": 272, "orig_a0": 280,
		},
		hint:        riscvHint,
		asmRegister: riscvAsmRegister,
		// RISC-V psABI, "Integer Calling Convention": a0-a7, then the
		// stack from sp; results in a0 (and a1). The return address is
		// in ra.
		IntArgRegs:     []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"},
		StackArgOffset: 0,
		IntResultReg:   "a0",
		StackPointer:   "sp",
		// Go's src/cmd/compile/abi-internal.md, "riscv64 architecture":
		// X10-X17, X8, X9, X18-X23.
		GoIntResultRegs: []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"},
		// Compressed (C extension) instructions are 2 bytes, the rest
		// 4: sizes vary, InsnLen reads them from the low bits.
		InsnSize: 0,
		// The kernel's -fpatchable-function-entry=4 (arch/riscv/Makefile,
		// with DYNAMIC_FTRACE and the C extension; 2 4-byte NOPs
		// without it): four c.nop at the symbol, which ftrace patches
		// into auipc+jalr to its trampoline; DWARF's entry
		// (DW_AT_low_pc) is past them, and perf probes there
		// (vfs_read+8 on the 6.12 riscv64 vmlinux).
		EntryNOPs: 4,
		insnLen:   riscvInsnLen,
		nop:       []byte{0x01, 0x00}, // c.nop
	}
	for n, r := range riscvRegs {
		if n == 0 {
			continue
		}
		a.dwarfRegs[uint64(n)] = r
		a.ptRegs[r] = 8 * n
	}
	return a
}

// riscvXReg is a register by its number, as a user or gas may write one:
// x0-x31; fp is s0's other ABI name.
var riscvXReg = regexp.MustCompile(`^x([0-9]|[12][0-9]|3[01])$`)

// riscvHint reads "x10" as the kernel's "a0" and "fp" as "s0".
func riscvHint(a *Arch, n string) string {
	if r, _, ok := riscvAsmRegister(n); ok && r != n && a.HasRegister(r) {
		return "%" + r
	}
	return ""
}

// riscvAsmRegister names the kernel's register for an ABI name, xN or fp.
func riscvAsmRegister(s string) (string, bool, bool) {
	if s == "fp" {
		return "s0", false, true
	}
	if m := riscvXReg.FindStringSubmatch(s); m != nil {
		n := 0
		for _, c := range m[1] {
			n = 10*n + int(c-'0')
		}
		return riscvRegs[n], false, true
	}
	for _, r := range riscvRegs {
		if r == s {
			return s, false, true
		}
	}
	return "", false, false
}

// errRISCVLong is an instruction longer than 32 bits (the psABI's 48- and
// 64-bit encodings, which no ratified extension uses).
var errRISCVLong = errors.New("riscv64: instruction longer than 4 bytes")

// riscvInsnLen is an instruction's length by the base ISA's rule (The
// RISC-V Instruction Set Manual, volume I, "Base Instruction-Length
// Encoding"): low bits other than 11 are a 16-bit compressed
// instruction, low bits 11 with bits 4:2 other than 111 a 32-bit one.
// The rule holds for every instruction, known to a decoder or not (the
// kernel's own riscv_insn_length). ret: "ret" (jalr zero, 0(ra)) or its
// compressed form "c.jr ra".
func riscvInsnLen(code []byte) (int, bool, error) {
	if len(code) < 2 {
		return 0, false, errShortInsn
	}
	lo := binary.LittleEndian.Uint16(code)
	switch {
	case lo&3 != 3:
		return 2, lo == 0x8082, nil
	case lo&0x1c != 0x1c:
		if len(code) < 4 {
			return 0, false, errShortInsn
		}
		return 4, binary.LittleEndian.Uint32(code) == 0x00008067, nil
	}
	return 0, false, errRISCVLong
}
