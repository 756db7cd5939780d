package dwarfres

import (
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestCFAS390x: s390x's vmlinux is big-endian; at a function's first
// instruction the CFA is r15+160 (the caller's register save area, the
// s390x ELF ABI), and past its prologue further up.
func TestCFAS390x(t *testing.T) {
	f, err := Open(dwarftest.NeedCorpus(t, "6.12/s390x/vmlinux"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, fn := range []string{"vfs_read", "ksys_read", "do_sys_openat2"} {
		s := f.Symbols().Lookup(fn)
		if len(s) == 0 {
			t.Fatalf("no %s", fn)
		}
		reg, off, err := f.frames.cfa(f, s[0].Start)
		if err != nil || reg != 15 || off != 160 {
			t.Errorf("CFA at %s = r%d%+d, %v; want r15+160", fn, reg, off, err)
		}
		reg, off, err = f.frames.cfa(f, s[0].End-2)
		if err != nil || reg != 15 && reg != 11 || off < 160 {
			t.Errorf("CFA at %s's end = r%d%+d, %v; want r15 or r11, at least +160", fn, reg, off, err)
		}
	}
}
