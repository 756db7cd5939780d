package arch

import (
	"debug/elf"
	"reflect"
	"testing"
)

func TestFor(t *testing.T) {
	for _, c := range []struct {
		m    elf.Machine
		want *Arch
	}{{elf.EM_X86_64, X86_64}, {elf.EM_AARCH64, ARM64}, {elf.EM_ARM, nil}, {elf.EM_PPC64, nil}} {
		a, ok := For(c.m)
		if a != c.want || ok != (c.want != nil) {
			t.Errorf("For(%v) = %v, %v", c.m, a, ok)
		}
	}
	for m, want := range map[elf.Machine]string{elf.EM_X86_64: "x86_64", elf.EM_AARCH64: "arm64", elf.EM_PPC64: "EM_PPC64"} {
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
	for a, want := range map[*Arch]map[string]int{X86_64: x86, ARM64: arm} {
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
