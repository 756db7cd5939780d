package dwarfres

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestZdebugFile resolves a function in a file whose DWARF is in GNU
// .zdebug_ sections (gcc -gz=zlib-gnu; Go before 1.12).
func TestZdebugFile(t *testing.T) {
	gcc := dwarftest.NeedTool(t, "gcc")
	dir := t.TempDir()
	src := filepath.Join(dir, "z.c")
	os.WriteFile(src, []byte("int f(int x) { return x + 1; }\nint main(void) { return f(1); }\n"), 0o644)
	bin := filepath.Join(dir, "z")
	if out, err := exec.Command(gcc, "-g", "-O2", "-gz=zlib-gnu", "-o", bin, src).CombinedOutput(); err != nil {
		dwarftest.Skip(t, "gcc -gz=zlib-gnu: %v %s", err, out)
	}
	f, err := Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.ELF.Section(".zdebug_info") == nil {
		dwarftest.Skip(t, "this toolchain wrote no .zdebug_info")
	}
	if !f.HasDWARF() {
		t.Fatal("HasDWARF is false with .zdebug_info")
	}
	ps, err := f.FindProbes(Query{Function: exactName("f")})
	if err != nil || len(ps) != 1 {
		t.Fatalf("FindProbes(f) = %v, %v; want one probe", ps, err)
	}
}
