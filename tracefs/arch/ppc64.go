package arch

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"regexp"
	"strconv"
)

func ppc64le() *Arch {
	a := &Arch{
		Name:    "ppc64le",
		Machine: elf.EM_PPC64,
		GOARCH:  "ppc64le",
		// DWARF numbers from the 64-bit ELF V2 ABI, "DWARF Register
		// Number Mapping" (0-31 are r0-r31). The kernel's
		// arch/powerpc/kernel/ptrace/ptrace-view.c regoffset_table
		// (the same in 6.12 and 7.3) names each GPR twice, rN and
		// gprN; DWARF registers are written gprN, as perf's
		// powerpc_regstr_tbl does. The special registers DWARF
		// numbers differently in the ELF V2 ABI (LR 65, CTR 66) and in
		// perf's table (the 32-bit SysV numbering: MSR 66, LR 108, CTR
		// 109), so none is mapped: gcc's location expressions name GPRs.
		dwarfRegs: map[uint64]string{},
		// struct pt_regs (arch/powerpc/include/asm/ptrace.h, 64-bit):
		// gpr[32], nip, msr, orig_gpr3, ctr, link, xer, ccr, softe,
		// trap, dar, dsisr; orig_gpr3 is not in regoffset_table.
		ptRegs: map[string]int{
			"nip": 256, "msr": 264, "ctr": 280, "link": 288, "xer": 296,
			"ccr": 304, "softe": 312, "trap": 320, "dar": 328, "dsisr": 336,
		},
		hint:        ppc64Hint,
		asmRegister: ppc64AsmRegister,
		// 64-bit ELF V2 ABI, "Parameter Passing in Registers": r3-r10;
		// results in r3. A caller that passes more gives the callee a
		// parameter save area at 32(r1) with a doubleword for every
		// parameter, so the 9th is at 32+8*8; the return address is in
		// the link register.
		IntArgRegs:     []string{"gpr3", "gpr4", "gpr5", "gpr6", "gpr7", "gpr8", "gpr9", "gpr10"},
		StackArgOffset: 96,
		IntResultReg:   "gpr3",
		StackPointer:   "gpr1",
		// Go's src/cmd/compile/abi-internal.md, "ppc64 architecture":
		// R3-R10, R14-R17.
		GoIntResultRegs: []string{"gpr3", "gpr4", "gpr5", "gpr6", "gpr7", "gpr8", "gpr9", "gpr10", "gpr14", "gpr15", "gpr16", "gpr17"},
		// Instructions are 4 bytes but for Power ISA 3.1's prefixed
		// instructions (8): InsnLen tells them apart.
		InsnSize: 0,
		insnLen:  ppc64InsnLen,
		nop:      []byte{0x00, 0x00, 0x00, 0x60}, // ori r0,r0,0, little-endian
	}
	for i := 0; i < 32; i++ {
		n := strconv.Itoa(i)
		a.dwarfRegs[uint64(i)] = "gpr" + n
		a.ptRegs["gpr"+n] = 8 * i
		a.ptRegs["r"+n] = 8 * i
	}
	return a
}

// ppc64Hint reads "%lr" as the kernel's "%link", "%pc" as "%nip", "%sp"
// as "%gpr1".
func ppc64Hint(a *Arch, n string) string {
	if a.HasRegister(n) {
		return "" // %r3 is the kernel's as much as %gpr3
	}
	if r, _, ok := ppc64AsmRegister(n); ok && r != n && a.HasRegister(r) {
		return "%" + r
	}
	return ""
}

// ppc64AsmReg is a general register as gas prints one in an SDT note (a
// bare number, or with -mregnames %rN) or a user writes one.
var ppc64AsmReg = regexp.MustCompile(`^(?:r|gpr)?([0-9]|[12][0-9]|3[01])$`)

// ppc64AsmRegister names the kernel's register gprN for rN, gprN or N;
// lr, pc and sp by their kernel names.
func ppc64AsmRegister(s string) (string, bool, bool) {
	switch s {
	case "lr":
		return "link", false, true
	case "pc":
		return "nip", false, true
	case "sp":
		return "gpr1", false, true
	}
	if m := ppc64AsmReg.FindStringSubmatch(s); m != nil {
		return "gpr" + m[1], false, true
	}
	return "", false, false
}

// errPPCPrefixEnd is a prefix word without its suffix.
var errPPCPrefixEnd = errors.New("ppc64: prefixed instruction cut short")

// ppc64InsnLen is an instruction's length (Power ISA 3.1, 1.6 "Instruction
// Formats": primary opcode 1 is a prefix, and the prefix and the word after
// it are one 8-byte instruction; every other word is one), which holds
// for every instruction. The kernel refuses a kprobe on a suffix
// (arch/powerpc/kernel/kprobes.c, arch_prepare_kprobe). ret: "blr".
func ppc64InsnLen(code []byte) (int, bool, error) {
	if len(code) < 4 {
		return 0, false, errShortInsn
	}
	w := binary.LittleEndian.Uint32(code)
	if w>>26 == 1 {
		if len(code) < 8 {
			return 0, false, errPPCPrefixEnd
		}
		return 8, false, nil
	}
	return 4, w == 0x4e800020, nil
}

// LocalEntryOffset is how far past a function's global entry point (its
// symbol) its local entry point is on ppc64le: the ELF V2 ABI's
// st_other bits 5-7 (PPC64_LOCAL_ENTRY_OFFSET in the kernel's and
// binutils' elf/ppc64.h): 0 and 1 mean the entries coincide, 2-6 encode
// 4, 8, 16, 32, 64 bytes (the TOC set-up, "addis r2,r12,...; addi
// r2,r2,..." is the usual 8); 7 is reserved. Other machines have one
// entry point: 0. Calls from the same module enter at the local entry,
// so a uprobe at the symbol misses them (perf adds the offset to a
// uprobe at a symbol, arch/powerpc/util/sym-handling.c); a kprobe at
// symbol+0 is moved there by the kernel (kprobe_lookup_name).
func (a *Arch) LocalEntryOffset(stOther uint8) uint64 {
	if a != PPC64LE {
		return 0
	}
	switch v := stOther >> 5 & 7; v {
	case 0, 1, 7:
		return 0
	default:
		return 1 << v >> 2 << 2
	}
}
