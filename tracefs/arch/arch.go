package arch

import (
	"debug/elf"
	"errors"
	"runtime"
	"strings"
)

// Arch is what dwprobe knows of one architecture: its registers as DWARF
// numbers them and as the kernel names them, its calling conventions, its
// instructions. Register names are the kernel's, without the '%' of a
// fetcharg ("di", "x0").
type Arch struct {
	// Name is the kernel's name of the architecture (arch/NAME in its
	// tree; uname -m's on x86_64): "x86_64", "arm64".
	Name    string
	Machine elf.Machine
	// GOARCH is Go's name of the architecture, which only Host uses.
	GOARCH string

	// dwarfRegs maps DWARF register numbers to kernel register names.
	dwarfRegs map[uint64]string
	// ptRegs holds the byte offset in struct pt_regs of every register
	// name the kernel's regs_query_register_offset accepts.
	ptRegs map[string]int
	// hint is RegisterHint's rule, on a name without '%'.
	hint func(a *Arch, name string) string
	// asmRegister is AsmRegister's rule.
	asmRegister func(name string) (reg string, highByte, ok bool)

	// IntArgRegs are the registers of a C function's integer-class
	// arguments at its first instruction, in order.
	IntArgRegs []string
	// StackArgOffset is the first stack argument's offset from sp at a
	// function's first instruction.
	StackArgOffset int64
	// IntResultReg is the register of a C function's integer-class
	// result at its return address (what the kernel's $retval reads:
	// regs_return_value).
	IntResultReg string
	// StackPointer is the kernel's name of the stack pointer ($stack,
	// and the base of $stackN: kernel_stack_pointer).
	StackPointer string
	// GoIntResultRegs are the registers of Go's internal ABI
	// (ABIInternal) that carry integer, pointer and boolean results, in
	// order.
	GoIntResultRegs []string

	// BigEndian says the machine stores the most significant byte first
	// (s390x): a value narrower than its 8-byte stack slot or register
	// save slot sits at the slot's end.
	BigEndian bool

	// MappingSymbols says whether the ELF ABI has mapping symbols ($x,
	// $d) that mark code and data runs rather than name anything.
	MappingSymbols bool
	// InsnSize is the size of every instruction, or 0 where sizes vary
	// and only decoding from a known boundary finds the next (InsnLen).
	InsnSize int
	// EntryNOPs is how many NOPs (IsNOP) the kernel's
	// -fpatchable-function-entry puts at a function's symbol before the
	// entry DWARF names; 0 where there are none.
	EntryNOPs int

	// insnLen decodes the instruction at code[0]; n is 0 if it does not
	// decode, with or without an error.
	insnLen func(code []byte) (n int, ret bool, err error)
	// nop is the NOP instruction's encoding.
	nop []byte
}

// X86_64, ARM64, PPC64LE, S390X and RISCV64 are the architectures dwprobe
// writes probes for: every one Debian ships kernel debuginfo for but
// 32-bit ARM.
var (
	X86_64  = x86_64()
	ARM64   = arm64()
	PPC64LE = ppc64le()
	S390X   = s390x()
	RISCV64 = riscv64()
)

var all = []*Arch{X86_64, ARM64, PPC64LE, S390X, RISCV64}

// errShortInsn is code that ends inside an instruction's first bytes.
var errShortInsn = errors.New("instruction cut short")

// For returns the architecture of ELF machine m: that of the file probed,
// never the host's (an x86_64 machine writes arm64 definitions for an
// arm64 vmlinux). ok is false for a machine dwprobe has no model of.
func For(m elf.Machine) (a *Arch, ok bool) {
	for _, a := range all {
		if a.Machine == m {
			return a, true
		}
	}
	return nil, false
}

// Host returns the architecture of the running kernel, the one thing the
// host's architecture is the right answer for.
func Host() (a *Arch, ok bool) {
	for _, a := range all {
		if a.GOARCH == runtime.GOARCH {
			return a, true
		}
	}
	return nil, false
}

// MachineName is the kernel's name of machine m ("x86_64", "arm64"), or
// debug/elf's ("EM_PPC64") for a machine without an Arch.
func MachineName(m elf.Machine) string {
	if a, ok := For(m); ok {
		return a.Name
	}
	return m.String()
}

// DWARFRegister returns the kernel's name of DWARF register n, or false if
// the kernel has none for it.
func (a *Arch) DWARFRegister(n uint64) (string, bool) {
	name, ok := a.dwarfRegs[n]
	return name, ok
}

// RegisterNumber returns the DWARF number of the kernel's register name,
// or false if DWARF numbers none (x86_64's flags, orig_ax).
func (a *Arch) RegisterNumber(name string) (uint64, bool) {
	for n, r := range a.dwarfRegs {
		if r == name {
			return n, true
		}
	}
	return 0, false
}

// HasRegister reports whether the kernel accepts %name in a fetcharg
// (regs_query_register_offset), so that "%rax" on x86_64 (the kernel says
// "%ax") is refused before writing.
func (a *Arch) HasRegister(name string) bool {
	_, ok := a.ptRegs[name]
	return ok
}

// PtRegsOffset returns the byte offset of register name in the kernel's
// struct pt_regs, where a kprobe's handler reads it; false if the kernel
// has no register of that name.
func (a *Arch) PtRegsOffset(name string) (int, bool) {
	off, ok := a.ptRegs[name]
	return off, ok
}

// RegisterHint suggests the kernel's name for a register written as an
// assembler would ("%rax" and "%eax" on x86_64 are "%ax", "%w3" on arm64
// reads "%x3"), or "" if there is none.
func (a *Arch) RegisterHint(reg string) string {
	return a.hint(a, strings.TrimPrefix(reg, "%"))
}

// AsmRegister names the kernel's register for a register operand as gas
// prints one in an SDT note (without '%': "eax", "r8d", "w3"). highByte
// says the operand is bits 8-15 of the register (x86_64's %ah). ok is
// false for a name the architecture's operands cannot hold; a name that
// passes may still not be a kernel register (HasRegister).
func (a *Arch) AsmRegister(name string) (reg string, highByte, ok bool) {
	return a.asmRegister(name)
}

// InsnLen returns the length of the instruction at code[0], or 0 and the
// decoder's error (which may be nil) if it does not decode.
func (a *Arch) InsnLen(code []byte) (int, error) {
	n, _, err := a.insnLen(code)
	return n, err
}

// Rets lists the addresses of the return instructions of code, which
// starts at an instruction at addr. Where instruction sizes vary, a byte
// that does not decode is stepped over: it cannot start a return.
func (a *Arch) Rets(code []byte, addr uint64) []uint64 {
	var out []uint64
	for i := 0; i < len(code) && i+a.InsnSize <= len(code); {
		n, ret, err := a.insnLen(code[i:])
		if ret && err == nil {
			out = append(out, addr+uint64(i))
		}
		switch {
		case a.InsnSize != 0:
			i += a.InsnSize
		case err != nil || n == 0:
			i++
		default:
			i += n
		}
	}
	return out
}

// EntryNOPBytes is how many bytes the EntryNOPs take: EntryNOPs NOPs of
// the NOP's size (arm64's 4-byte nop, riscv64's 2-byte c.nop).
func (a *Arch) EntryNOPBytes() int {
	return a.EntryNOPs * len(a.nop)
}

// NOPSize is the size of the NOP IsNOP recognises (0 if none).
func (a *Arch) NOPSize() int {
	return len(a.nop)
}

// IsNOP reports whether code starts with the NOP instruction.
func (a *Arch) IsNOP(code []byte) bool {
	return len(a.nop) > 0 && len(code) >= len(a.nop) && string(code[:len(a.nop)]) == string(a.nop)
}

// IsMappingSymbol is perf's test for the ARM ELF mapping symbols ($a, $d,
// $t, $x, optionally followed by ".suffix") of ELF machine m. 32-bit ARM
// has no Arch (dwprobe writes no probes for it) but its ELF ABI (AAELF32)
// has the same symbols.
func IsMappingSymbol(m elf.Machine, name string) bool {
	a, ok := For(m)
	if m != elf.EM_ARM && !(ok && a.MappingSymbols) {
		return false
	}
	if len(name) < 2 || name[0] != '$' || !strings.ContainsRune("adtx", rune(name[1])) {
		return false
	}
	return len(name) == 2 || name[2] == '.'
}
