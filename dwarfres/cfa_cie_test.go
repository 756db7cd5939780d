package dwarfres

import (
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestCFARegisterOnlyCIE: riscv64's CIEs set the CFA with
// DW_CFA_def_cfa_register sp alone (offset 0), a register-plus-offset
// rule delve leaves marked undefined; at a function's first instruction
// the CFA is sp+0 (DWARF register 2), past "addi sp,sp,-48" sp+48 (the
// gcc -O0 riscv64 app's compute).
func TestCFARegisterOnlyCIE(t *testing.T) {
	f, err := Open(dwarftest.CrossFixture(t, "..", "riscv64", "O0"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms := f.Symbols().Lookup("compute")
	if len(syms) != 1 {
		t.Fatalf("compute: %v", syms)
	}
	for _, c := range []struct {
		off      uint64
		reg      uint64
		cfaDelta int64
	}{{0, 2, 0}, {2, 2, 48}} {
		reg, off, err := f.frames.cfa(f, syms[0].Start+c.off)
		if err != nil || reg != c.reg || off != c.cfaDelta {
			t.Errorf("CFA at compute+%d = r%d%+d, %v; want r%d%+d", c.off, reg, off, err, c.reg, c.cfaDelta)
		}
	}
}
