package dwarfres

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCFA: at a function's first instruction the return address is the
// only thing pushed, so the CFA is the stack pointer plus 8 on x86_64 (DWARF
// register 7), for .eh_frame (user binaries) and .debug_frame (vmlinux).
func TestCFA(t *testing.T) {
	files := []string{needBin(t, "app-gcc-O2-dwarf5"), needBin(t, "app-clang-O0-dwarf4")}
	if c := os.Getenv("DWPROBE_CORPUS"); c != "" {
		if v := filepath.Join(c, "amd64", "vmlinux"); fileExists(v) {
			files = append(files, v)
		}
	}
	for _, p := range files {
		f, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		fn := "work"
		if f.IsKernel() {
			fn = "vfs_read"
		}
		syms := f.Symbols().Lookup(fn)
		if len(syms) == 0 {
			t.Fatalf("%s: no %s", p, fn)
		}
		reg, off, err := f.frames.cfa(f, syms[0].Start)
		if err != nil || reg != 7 || off != 8 {
			t.Errorf("%s: CFA at %s = r%d%+d, %v; want r7+8", filepath.Base(p), fn, reg, off, err)
		}
		if _, _, err := f.frames.cfa(f, 1); err == nil {
			t.Errorf("%s: CFA at 0x1: want an error", filepath.Base(p))
		}
		f.Close()
	}
	// arm64: nothing is pushed by a call; the CFA is sp (DWARF 31) + 0.
	if c := os.Getenv("DWPROBE_CORPUS"); c != "" && fileExists(filepath.Join(c, "arm64", "vmlinux")) {
		f, err := Open(filepath.Join(c, "arm64", "vmlinux"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		s := f.Symbols().Lookup("vfs_read")
		if len(s) == 0 {
			t.Fatal("arm64: no vfs_read")
		}
		// The function body (and its FDE) starts after two patchable-entry NOPs.
		if reg, off, err := f.frames.cfa(f, s[0].Start+8); err != nil || reg != 31 || off != 0 {
			t.Errorf("arm64 CFA at vfs_read = r%d%+d, %v; want r31+0", reg, off, err)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
