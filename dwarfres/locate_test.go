package dwarfres

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildIDNote decodes a note list as /sys/kernel/notes holds it: a
// Xen note first, then the GNU build-id.
func TestBuildIDNote(t *testing.T) {
	le := binary.LittleEndian
	note := func(b []byte, name string, typ uint32, desc []byte) []byte {
		b = le.AppendUint32(b, uint32(len(name)+1))
		b = le.AppendUint32(b, uint32(len(desc)))
		b = le.AppendUint32(b, typ)
		n := append([]byte(name), 0)
		for len(n)%4 != 0 {
			n = append(n, 0)
		}
		return append(append(b, n...), desc...)
	}
	b := note(nil, "Xen", 6, []byte{1, 2, 3, 4})
	b = note(b, "GNU", ntGNUBuildID, []byte{0xde, 0xad, 0xbe, 0xef})
	if got := buildIDNote(b, le); got != "deadbeef" {
		t.Errorf("buildIDNote = %q, want deadbeef", got)
	}
	if got := buildIDNote(b[:len(b)-2], le); got != "" {
		t.Errorf("buildIDNote(truncated) = %q, want none", got)
	}
}

// TestLocatorSplitDebug opens the stripped fixture whose DWARF lives in
// debug/.build-id, and refuses the stripped one without it.
func TestLocatorSplitDebug(t *testing.T) {
	dir := fixtures(t)
	f, err := NewLocator(filepath.Join(dir, "debug")).Open(filepath.Join(dir, "app-gcc-O2-splitdbg"))
	if err != nil {
		t.Fatalf("Open(splitdbg): %v", err)
	}
	defer f.Close()
	if !f.HasDWARF() {
		t.Error("splitdbg: no DWARF attached")
	}
	_, err = NewLocator(filepath.Join(dir, "debug")).Open(filepath.Join(dir, "app-gcc-O2-stripped"))
	var nf *NotFoundError
	// Two build-id trees, then perf's distribution paths by path (it has
	// no .gnu_debuglink).
	if !errors.As(err, &nf) || len(nf.Tried) != 5 || !strings.HasSuffix(nf.Tried[1], ".debug") || !strings.HasSuffix(nf.Tried[2], "app-gcc-O2-stripped.debug") {
		t.Errorf("Open(stripped) = %v; want a NotFoundError with two build-id paths and three distribution paths tried", err)
	}
}
