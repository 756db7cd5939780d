package probegen

import (
	"debug/elf"
	"errors"
	"testing"

	"github.com/dwprobe/dwprobe/probegen/grammar"
)

func TestDWARFRegister(t *testing.T) {
	for _, c := range []struct {
		m    elf.Machine
		n    uint64
		want string
	}{
		{elf.EM_X86_64, 0, "%ax"}, {elf.EM_X86_64, 1, "%dx"}, {elf.EM_X86_64, 5, "%di"},
		{elf.EM_X86_64, 4, "%si"}, {elf.EM_X86_64, 6, "%bp"}, {elf.EM_X86_64, 7, "%sp"},
		{elf.EM_X86_64, 12, "%r12"}, {elf.EM_X86_64, 16, "%ip"},
		{elf.EM_AARCH64, 0, "%x0"}, {elf.EM_AARCH64, 29, "%x29"}, {elf.EM_AARCH64, 30, "%x30"}, {elf.EM_AARCH64, 31, "%sp"},
		{elf.EM_PPC64, 3, "%gpr3"}, {elf.EM_S390, 15, "%r15"}, {elf.EM_RISCV, 10, "%a0"},
	} {
		got, err := dwarfRegister(c.m, c.n)
		if err != nil || got != c.want {
			t.Errorf("dwarfRegister(%v, %d) = %q, %v; want %q", c.m, c.n, got, err, c.want)
		}
	}
	for _, c := range []struct {
		m elf.Machine
		n uint64
	}{{elf.EM_X86_64, 17}, {elf.EM_AARCH64, 64}, {elf.EM_PPC64, 32}, {elf.EM_RISCV, 0}, {elf.EM_MIPS, 0}} {
		if _, err := dwarfRegister(c.m, c.n); !errors.Is(err, grammar.ErrNotSupported) {
			t.Errorf("dwarfRegister(%v, %d): want ErrNotSupported, got %v", c.m, c.n, err)
		}
	}
}
