package probegen

import (
	"debug/elf"
	"testing"
)

// TestIsMappingSymbol: perf's ARM mapping symbols, on ARM machines only.
func TestIsMappingSymbol(t *testing.T) {
	for _, c := range []struct {
		m    elf.Machine
		name string
		want bool
	}{
		{elf.EM_AARCH64, "$x", true}, {elf.EM_AARCH64, "$d", true}, {elf.EM_AARCH64, "$d.12", true},
		{elf.EM_ARM, "$a", true}, {elf.EM_AARCH64, "$xy", false}, {elf.EM_AARCH64, "$q", false},
		{elf.EM_X86_64, "$x", false}, {elf.EM_AARCH64, "x", false},
	} {
		if got := isMappingSymbol(c.m, c.name); got != c.want {
			t.Errorf("isMappingSymbol(%v, %q) = %v, want %v", c.m, c.name, got, c.want)
		}
	}
}
