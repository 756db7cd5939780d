package dwarfres

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

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
