package dwarfres

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

func TestInflateZdebug(t *testing.T) {
	want := []byte("the uncompressed section")
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(want)
	w.Close()
	raw := binary.BigEndian.AppendUint64([]byte("ZLIB"), uint64(len(want)))
	raw = append(raw, z.Bytes()...)
	if got, err := inflateZdebug(raw); err != nil || !bytes.Equal(got, want) {
		t.Errorf("inflateZdebug = %q, %v; want %q", got, err, want)
	}
	if got, err := inflateZdebug([]byte("plain")); err != nil || string(got) != "plain" {
		t.Errorf("a section without the ZLIB header: %q, %v; want it as it is", got, err)
	}
	bad := binary.BigEndian.AppendUint64([]byte("ZLIB"), 100)
	if _, err := inflateZdebug(append(bad, 1, 2, 3)); err == nil {
		t.Error("a corrupt stream decoded without error")
	}
	huge := binary.BigEndian.AppendUint64([]byte("ZLIB"), uint64(len(z.Bytes()))*1033)
	if _, err := inflateZdebug(append(huge, z.Bytes()...)); err == nil || !strings.Contains(err.Error(), "claims") {
		t.Errorf("a size past what deflate can expand to: %v; want it refused before reading", err)
	}
}

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
