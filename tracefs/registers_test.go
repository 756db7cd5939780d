package tracefs

import (
	"debug/elf"
	"testing"
)

func TestHasRegister(t *testing.T) {
	for _, c := range []struct {
		m    elf.Machine
		name string
		want bool
	}{
		{elf.EM_X86_64, "ax", true}, {elf.EM_X86_64, "rax", false}, {elf.EM_X86_64, "r15", true},
		{elf.EM_X86_64, "x0", false}, {elf.EM_AARCH64, "x0", true}, {elf.EM_AARCH64, "x31", false},
		{elf.EM_AARCH64, "sp", true}, {elf.EM_AARCH64, "ax", false},
	} {
		if got := HasRegister(c.m, c.name); got != c.want {
			t.Errorf("HasRegister(%v, %q) = %v", c.m, c.name, got)
		}
	}
}

func TestRegisterHint(t *testing.T) {
	for _, c := range []struct {
		m         elf.Machine
		reg, want string
	}{
		{elf.EM_X86_64, "%rax", "%ax"}, {elf.EM_X86_64, "%eax", "%ax"}, {elf.EM_X86_64, "%ax", ""},
		{elf.EM_X86_64, "%rxx", ""}, {elf.EM_AARCH64, "%w3", "%x3"}, {elf.EM_AARCH64, "%w31", ""},
	} {
		if got := RegisterHint(c.m, c.reg); got != c.want {
			t.Errorf("RegisterHint(%v, %q) = %q, want %q", c.m, c.reg, got, c.want)
		}
	}
}
