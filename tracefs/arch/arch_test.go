package arch

import (
	"debug/elf"
	"fmt"
	"reflect"
	"testing"
)

func TestFor(t *testing.T) {
	for _, c := range []struct {
		m    elf.Machine
		want *Arch
	}{{elf.EM_X86_64, X86_64}, {elf.EM_AARCH64, ARM64}, {elf.EM_ARM, nil}, {elf.EM_PPC64, PPC64LE},
		{elf.EM_S390, S390X}, {elf.EM_RISCV, RISCV64}, {elf.EM_PPC, nil}, {elf.EM_MIPS, nil}} {
		a, ok := For(c.m)
		if a != c.want || ok != (c.want != nil) {
			t.Errorf("For(%v) = %v, %v", c.m, a, ok)
		}
	}
	for m, want := range map[elf.Machine]string{elf.EM_X86_64: "x86_64", elf.EM_AARCH64: "arm64", elf.EM_PPC64: "ppc64le",
		elf.EM_S390: "s390x", elf.EM_RISCV: "riscv64", elf.EM_MIPS: "EM_MIPS"} {
		if got := MachineName(m); got != want {
			t.Errorf("MachineName(%v) = %q, want %q", m, got, want)
		}
	}
}

func TestDWARFRegister(t *testing.T) {
	for _, c := range []struct {
		a    *Arch
		n    uint64
		want string // "" for none
	}{
		{X86_64, 0, "ax"}, {X86_64, 1, "dx"}, {X86_64, 2, "cx"}, {X86_64, 3, "bx"},
		{X86_64, 4, "si"}, {X86_64, 5, "di"}, {X86_64, 6, "bp"}, {X86_64, 7, "sp"},
		{X86_64, 8, "r8"}, {X86_64, 12, "r12"}, {X86_64, 15, "r15"}, {X86_64, 16, "ip"}, {X86_64, 17, ""},
		{ARM64, 0, "x0"}, {ARM64, 29, "x29"}, {ARM64, 30, "x30"}, {ARM64, 31, "sp"}, {ARM64, 32, ""}, {ARM64, 64, ""},
		// perf 7.3's powerpc_regstr_tbl: %gpr0-%gpr31 (the special
		// registers' numbers differ between perf and the ELF V2 ABI).
		{PPC64LE, 0, "gpr0"}, {PPC64LE, 1, "gpr1"}, {PPC64LE, 3, "gpr3"}, {PPC64LE, 31, "gpr31"},
		{PPC64LE, 32, ""}, {PPC64LE, 65, ""}, {PPC64LE, 108, ""},
		// s390_dwarf_regs: %r0-%r15; 16-31 are FPRs.
		{S390X, 0, "r0"}, {S390X, 2, "r2"}, {S390X, 15, "r15"}, {S390X, 16, ""}, {S390X, 64, ""},
		// riscv_regstr_tbl: x1-x31 by ABI name; %zero, which perf
		// names, is no register of the kernel's.
		{RISCV64, 0, ""}, {RISCV64, 1, "ra"}, {RISCV64, 2, "sp"}, {RISCV64, 8, "s0"}, {RISCV64, 10, "a0"},
		{RISCV64, 17, "a7"}, {RISCV64, 18, "s2"}, {RISCV64, 27, "s11"}, {RISCV64, 28, "t3"}, {RISCV64, 31, "t6"},
		{RISCV64, 32, ""},
	} {
		got, ok := c.a.DWARFRegister(c.n)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s.DWARFRegister(%d) = %q, %v; want %q", c.a.Name, c.n, got, ok, c.want)
		}
	}
	// Every DWARF register has a kernel name the kernel accepts.
	for _, a := range all {
		for n, name := range a.dwarfRegs {
			if !a.HasRegister(name) {
				t.Errorf("%s: DWARF register %d is %q, which the kernel does not accept", a.Name, n, name)
			}
		}
	}
}

func TestHasRegister(t *testing.T) {
	for _, c := range []struct {
		a    *Arch
		name string
		want bool
	}{
		{X86_64, "ax", true}, {X86_64, "rax", false}, {X86_64, "r15", true}, {X86_64, "orig_ax", true},
		{X86_64, "x0", false}, {ARM64, "x0", true}, {ARM64, "x31", false},
		{ARM64, "sp", true}, {ARM64, "pstate", true}, {ARM64, "ax", false},
		{PPC64LE, "gpr3", true}, {PPC64LE, "r3", true}, {PPC64LE, "gpr32", false}, {PPC64LE, "nip", true},
		{PPC64LE, "link", true}, {PPC64LE, "lr", false}, {PPC64LE, "softe", true}, {PPC64LE, "orig_gpr3", false},
		{PPC64LE, "mq", false},
		{S390X, "r0", true}, {S390X, "r15", true}, {S390X, "r16", false}, {S390X, "gpr2", false}, {S390X, "sp", false},
		{RISCV64, "a0", true}, {RISCV64, "epc", true}, {RISCV64, "orig_a0", true}, {RISCV64, "zero", false},
		{RISCV64, "x10", false}, {RISCV64, "fp", false}, {RISCV64, "pc", false},
	} {
		if got := c.a.HasRegister(c.name); got != c.want {
			t.Errorf("%s.HasRegister(%q) = %v", c.a.Name, c.name, got)
		}
	}
}

// TestPtRegsOffset pins struct pt_regs: arch/x86/include/asm/ptrace.h and
// arch/arm64/include/asm/ptrace.h.
func TestPtRegsOffset(t *testing.T) {
	x86 := map[string]int{
		"r15": 0, "r14": 8, "r13": 16, "r12": 24, "bp": 32, "bx": 40, "r11": 48, "r10": 56,
		"r9": 64, "r8": 72, "ax": 80, "cx": 88, "dx": 96, "si": 104, "di": 112, "orig_ax": 120,
		"ip": 128, "cs": 136, "flags": 144, "sp": 152, "ss": 160,
	}
	arm := map[string]int{"sp": 248, "pc": 256, "pstate": 264}
	for i, n := range []string{"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
		"x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23",
		"x24", "x25", "x26", "x27", "x28", "x29", "x30"} {
		arm[n] = 8 * i
	}
	ppc := map[string]int{"nip": 256, "msr": 264, "ctr": 280, "link": 288, "xer": 296,
		"ccr": 304, "softe": 312, "trap": 320, "dar": 328, "dsisr": 336}
	s390 := map[string]int{}
	rv := map[string]int{"epc": 0, "status": 256, "badaddr": 264, "cause": 272, "orig_a0": 280}
	for i := 0; i < 32; i++ {
		ppc[fmt.Sprintf("r%d", i)] = 8 * i
		ppc[fmt.Sprintf("gpr%d", i)] = 8 * i
		if i < 16 {
			s390[fmt.Sprintf("r%d", i)] = 24 + 8*i // past args[1] and psw
		}
	}
	for i, n := range []string{"ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2",
		"a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11",
		"t3", "t4", "t5", "t6"} {
		rv[n] = 8 * (i + 1)
	}
	for a, want := range map[*Arch]map[string]int{X86_64: x86, ARM64: arm, PPC64LE: ppc, S390X: s390, RISCV64: rv} {
		if !reflect.DeepEqual(a.ptRegs, want) {
			t.Errorf("%s: pt_regs = %v, want %v", a.Name, a.ptRegs, want)
		}
		for n, off := range want {
			if got, ok := a.PtRegsOffset(n); !ok || got != off {
				t.Errorf("%s.PtRegsOffset(%q) = %d, %v; want %d", a.Name, n, got, ok, off)
			}
		}
	}
	if _, ok := X86_64.PtRegsOffset("rax"); ok {
		t.Error(`x86_64.PtRegsOffset("rax"): want none`)
	}
}

func TestRegisterHint(t *testing.T) {
	for _, c := range []struct {
		a         *Arch
		reg, want string
	}{
		{X86_64, "%rax", "%ax"}, {X86_64, "%eax", "%ax"}, {X86_64, "%ax", ""},
		{X86_64, "%rxx", ""}, {X86_64, "%w3", ""}, {ARM64, "%w3", "%x3"}, {ARM64, "%w31", ""}, {ARM64, "%rax", ""},
		{PPC64LE, "%lr", "%link"}, {PPC64LE, "%pc", "%nip"}, {PPC64LE, "%sp", "%gpr1"}, {PPC64LE, "%r3", ""},
		{PPC64LE, "%gpr3", ""}, {PPC64LE, "%3", "%gpr3"}, {PPC64LE, "%r32", ""},
		{S390X, "%gpr2", "%r2"}, {S390X, "%R15", "%r15"}, {S390X, "%r2", ""}, {S390X, "%r16", ""},
		{RISCV64, "%x10", "%a0"}, {RISCV64, "%fp", "%s0"}, {RISCV64, "%x0", ""}, {RISCV64, "%a0", ""}, {RISCV64, "%x32", ""},
	} {
		if got := c.a.RegisterHint(c.reg); got != c.want {
			t.Errorf("%s.RegisterHint(%q) = %q, want %q", c.a.Name, c.reg, got, c.want)
		}
	}
}

func TestAsmRegister(t *testing.T) {
	for _, c := range []struct {
		a            *Arch
		in, want     string
		high, wantOK bool
	}{
		{X86_64, "eax", "ax", false, true}, {X86_64, "al", "ax", false, true}, {X86_64, "ah", "ax", true, true},
		{X86_64, "r8d", "r8", false, true}, {X86_64, "r8", "r8", false, true}, {X86_64, "rip", "ip", false, true},
		{X86_64, "xmm0", "xmm0", false, true},
		{ARM64, "x3", "x3", false, true}, {ARM64, "w30", "x30", false, true}, {ARM64, "wsp", "sp", false, true},
		{ARM64, "x31", "", false, false}, {ARM64, "v0", "", false, false},
		{PPC64LE, "3", "gpr3", false, true}, {PPC64LE, "r31", "gpr31", false, true}, {PPC64LE, "lr", "link", false, true},
		{PPC64LE, "f1", "", false, false}, {PPC64LE, "32", "", false, false},
		{S390X, "r2", "r2", false, true}, {S390X, "r15", "r15", false, true}, {S390X, "f0", "", false, false},
		{RISCV64, "a0", "a0", false, true}, {RISCV64, "x8", "s0", false, true}, {RISCV64, "fp", "s0", false, true},
		{RISCV64, "ft0", "", false, false},
	} {
		got, high, ok := c.a.AsmRegister(c.in)
		if got != c.want || high != c.high || ok != c.wantOK {
			t.Errorf("%s.AsmRegister(%q) = %q, %v, %v; want %q, %v, %v", c.a.Name, c.in, got, high, ok, c.want, c.high, c.wantOK)
		}
	}
}

// TestABI pins the calling conventions: System V AMD64 psABI 3.2.3,
// AAPCS64 6.8.2, Go's abi-internal.md.
func TestABI(t *testing.T) {
	for _, c := range []struct {
		a        *Arch
		args     []string
		stackOff int64
		goRes    []string
	}{
		{X86_64, []string{"di", "si", "dx", "cx", "r8", "r9"}, 8,
			[]string{"ax", "bx", "cx", "di", "si", "r8", "r9", "r10", "r11"}},
		{ARM64, []string{"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"}, 0,
			[]string{"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15"}},
		// ELF V2 ABI 2.2.3: r3-r10, the 9th in the parameter save area
		// at 32(r1) past 8 doublewords.
		{PPC64LE, []string{"gpr3", "gpr4", "gpr5", "gpr6", "gpr7", "gpr8", "gpr9", "gpr10"}, 96,
			[]string{"gpr3", "gpr4", "gpr5", "gpr6", "gpr7", "gpr8", "gpr9", "gpr10", "gpr14", "gpr15", "gpr16", "gpr17"}},
		// s390x ELF ABI: r2-r6, then past the 160-byte save area.
		{S390X, []string{"r2", "r3", "r4", "r5", "r6"}, 160, nil},
		// RISC-V psABI: a0-a7.
		{RISCV64, []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"}, 0,
			[]string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"}},
	} {
		if !reflect.DeepEqual(c.a.IntArgRegs, c.args) || c.a.StackArgOffset != c.stackOff || !reflect.DeepEqual(c.a.GoIntResultRegs, c.goRes) {
			t.Errorf("%s: args %v +%d, Go results %v", c.a.Name, c.a.IntArgRegs, c.a.StackArgOffset, c.a.GoIntResultRegs)
		}
		for _, r := range append(append([]string(nil), c.a.IntArgRegs...), c.a.GoIntResultRegs...) {
			if !c.a.HasRegister(r) {
				t.Errorf("%s: ABI register %q is not one the kernel accepts", c.a.Name, r)
			}
		}
	}
}

// TestIsMappingSymbol: perf's ARM mapping symbols, on ARM machines only.
func TestIsMappingSymbol(t *testing.T) {
	for _, c := range []struct {
		m    elf.Machine
		name string
		want bool
	}{
		{elf.EM_AARCH64, "$x", true}, {elf.EM_AARCH64, "$d", true}, {elf.EM_AARCH64, "$d.12", true},
		{elf.EM_ARM, "$a", true}, {elf.EM_AARCH64, "$xy", false}, {elf.EM_AARCH64, "$q", false},
		{elf.EM_X86_64, "$x", false}, {elf.EM_AARCH64, "x", false}, {elf.EM_PPC64, "$x", false},
	} {
		if got := IsMappingSymbol(c.m, c.name); got != c.want {
			t.Errorf("IsMappingSymbol(%v, %q) = %v, want %v", c.m, c.name, got, c.want)
		}
	}
}

// TestX86Rets finds the RET instructions of amd64 code, not RET-looking
// bytes inside other instructions.
func TestX86Rets(t *testing.T) {
	code := []byte{
		0x48, 0xc7, 0xc0, 0xc3, 0x00, 0x00, 0x00, // mov rax, 0xc3 (a 0xc3 byte inside)
		0x74, 0x01, // je +1
		0xc3,       // ret           (0x1009)
		0x31, 0xc0, // xor eax, eax
		0xc3, // ret                 (0x100c)
		0xcc, // int3 padding
	}
	if got, want := X86_64.Rets(code, 0x1000), []uint64{0x1009, 0x100c}; !reflect.DeepEqual(got, want) {
		t.Errorf("x86Rets = %#x, want %#x", got, want)
	}
	if n, err := X86_64.InsnLen(code); n != 7 || err != nil {
		t.Errorf("x86_64.InsnLen = %d, %v; want 7", n, err)
	}
}

func TestArm64Rets(t *testing.T) {
	code := []byte{
		0x00, 0x04, 0x00, 0x91, // add x0, x0, #1
		0xc0, 0x03, 0x5f, 0xd6, // ret              (0x2004)
		0x1f, 0x20, 0x03, 0xd5, // nop
		0xc0, 0x03, // a half instruction: not decoded
	}
	if got, want := ARM64.Rets(code, 0x2000), []uint64{0x2004}; !reflect.DeepEqual(got, want) {
		t.Errorf("arm64Rets = %#x, want %#x", got, want)
	}
	if !ARM64.IsNOP(code[8:]) || ARM64.IsNOP(code) || X86_64.IsNOP(code[8:]) {
		t.Error("IsNOP: want only arm64's NOP")
	}
}

// TestResultRegs: $retval (regs_return_value) and $stack's base
// (kernel_stack_pointer) of each architecture.
func TestResultRegs(t *testing.T) {
	for a, want := range map[*Arch][2]string{
		X86_64: {"ax", "sp"}, ARM64: {"x0", "sp"}, PPC64LE: {"gpr3", "gpr1"}, S390X: {"r2", "r15"}, RISCV64: {"a0", "sp"},
	} {
		if a.IntResultReg != want[0] || a.StackPointer != want[1] {
			t.Errorf("%s: result %q, stack %q; want %q", a.Name, a.IntResultReg, a.StackPointer, want)
		}
		for _, r := range want {
			if !a.HasRegister(r) {
				t.Errorf("%s: %q is not a register the kernel accepts", a.Name, r)
			}
		}
	}
}

// TestPPC64InsnLen: 4-byte words, Power ISA 3.1 prefixed instructions
// (primary opcode 1) as 8, blr as the return.
func TestPPC64InsnLen(t *testing.T) {
	code := []byte{
		0x00, 0x00, 0x4c, 0x3c, // addis r2,r12,0      (GEP's TOC set-up)
		0x00, 0x00, 0x42, 0x38, // addi r2,r2,0
		0xa6, 0x02, 0x08, 0x7c, // mflr r0             (LEP)
		0x00, 0x00, 0x10, 0x06, 0x00, 0x00, 0x60, 0x38, // paddi r3,0,0,1 (prefixed, 8 bytes)
		0x20, 0x00, 0x80, 0x4e, // blr                 (0x1014)
		0x00, 0x00, 0x00, 0x60, // nop
		0x00, 0x00, 0x10, 0x06, // a prefix without its suffix
	}
	var got []int
	for pc := 0; pc < len(code); {
		n, err := PPC64LE.InsnLen(code[pc:])
		if err != nil {
			got = append(got, -pc)
			break
		}
		got = append(got, n)
		pc += n
	}
	if want := []int{4, 4, 4, 8, 4, 4, -28}; !reflect.DeepEqual(got, want) {
		t.Errorf("ppc64le lengths = %v, want %v", got, want)
	}
	if r := PPC64LE.Rets(code, 0x1000); !reflect.DeepEqual(r, []uint64{0x1014}) {
		t.Errorf("ppc64le Rets = %#x", r)
	}
	if !PPC64LE.IsNOP(code[24:]) || PPC64LE.IsNOP(code) {
		t.Error("ppc64le IsNOP")
	}
}

// TestS390InsnLen: lengths 2, 4 and 6 from the opcode's first two bits;
// br %r14 as the return.
func TestS390InsnLen(t *testing.T) {
	code := []byte{
		0xc0, 0x04, 0x00, 0x00, 0x00, 0x00, // brcl 0,0 (the ftrace NOP, 6 bytes)
		0xeb, 0xef, 0xf0, 0x88, 0x00, 0x24, // stmg %r14,%r15,136(%r15)
		0xb9, 0x04, 0x00, 0x23, // lgr %r2,%r3
		0x18, 0x23, // lr %r2,%r3
		0x07, 0xfe, // br %r14 (0x2012)
		0x07, 0x07, // nopr %r7
		0xc0, 0x04, // a 6-byte instruction cut short
	}
	var got []int
	for pc := 0; pc < len(code); {
		n, err := S390X.InsnLen(code[pc:])
		if err != nil {
			got = append(got, -pc)
			break
		}
		got = append(got, n)
		pc += n
	}
	if want := []int{6, 6, 4, 2, 2, 2, -22}; !reflect.DeepEqual(got, want) {
		t.Errorf("s390x lengths = %v, want %v", got, want)
	}
	if r := S390X.Rets(code, 0x2000); !reflect.DeepEqual(r, []uint64{0x2012}) {
		t.Errorf("s390x Rets = %#x", r)
	}
}

// TestRISCVInsnLen: compressed (2-byte) and 4-byte instructions from the
// low bits, ret and c.jr ra as returns, longer encodings refused.
func TestRISCVInsnLen(t *testing.T) {
	code := []byte{
		0x01, 0x00, // c.nop
		0x13, 0x00, 0x00, 0x00, // nop (addi zero,zero,0)
		0x41, 0x11, // c.addi sp,sp,-16
		0x67, 0x80, 0x00, 0x00, // ret              (0x3008)
		0x82, 0x80, // c.jr ra (ret)                 (0x300c)
		0x3f, 0x00, // a 48-bit encoding's low bits
	}
	var got []int
	for pc := 0; pc < len(code); {
		n, err := RISCV64.InsnLen(code[pc:])
		if err != nil {
			got = append(got, -pc)
			break
		}
		got = append(got, n)
		pc += n
	}
	if want := []int{2, 4, 2, 4, 2, -14}; !reflect.DeepEqual(got, want) {
		t.Errorf("riscv64 lengths = %v, want %v", got, want)
	}
	if r := RISCV64.Rets(code, 0x3000); !reflect.DeepEqual(r, []uint64{0x3008, 0x300c}) {
		t.Errorf("riscv64 Rets = %#x", r)
	}
	if n, err := RISCV64.InsnLen([]byte{0x13, 0x00}); n != 0 || err == nil {
		t.Errorf("riscv64 InsnLen of half a 4-byte instruction = %d, %v", n, err)
	}
}

// TestLocalEntryOffset pins PPC64_LOCAL_ENTRY_OFFSET of the ELF V2 ABI.
func TestLocalEntryOffset(t *testing.T) {
	for other, want := range map[uint8]uint64{0: 0, 1 << 5: 0, 2 << 5: 4, 3 << 5: 8, 3<<5 | 3: 8, 4 << 5: 16, 5 << 5: 32, 6 << 5: 64, 7 << 5: 0} {
		if got := PPC64LE.LocalEntryOffset(other); got != want {
			t.Errorf("ppc64le LocalEntryOffset(%#x) = %d, want %d", other, got, want)
		}
	}
	if got := X86_64.LocalEntryOffset(3 << 5); got != 0 {
		t.Errorf("x86_64 LocalEntryOffset = %d", got)
	}
}

// TestEntryNOPs: the patchable-function-entry NOPs before DWARF's entry:
// arm64's two 4-byte nop, riscv64's four 2-byte c.nop; none elsewhere.
func TestEntryNOPs(t *testing.T) {
	for a, want := range map[*Arch]int{X86_64: 0, ARM64: 8, PPC64LE: 0, S390X: 0, RISCV64: 8} {
		if got := a.EntryNOPBytes(); got != want {
			t.Errorf("%s.EntryNOPBytes() = %d, want %d", a.Name, got, want)
		}
	}
	if !RISCV64.IsNOP([]byte{0x01, 0x00}) || RISCV64.IsNOP([]byte{0x41, 0x11}) || RISCV64.NOPSize() != 2 {
		t.Error("riscv64: c.nop")
	}
}
