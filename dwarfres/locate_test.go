package dwarfres

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestLocator pins the search: separate debuginfo by build-id under each
// directory in order, and a NotFoundError naming every place tried.
func TestLocator(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	p := filepath.Join(b, ".build-id", "ab", "cdef.debug")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	w := Wanted{Path: "bin", BuildID: "abcdef"}
	got, tried, err := find([]Source{BuildIDDir(a), BuildIDDir(b)}, w)
	want := []string{a + "/.build-id/ab/cdef.debug", p}
	if err != nil || got != p || !reflect.DeepEqual(tried, want) {
		t.Errorf("find = %q, %q, %v; want %q, %q", got, tried, err, p, want)
	}
	got, tried, _ = find([]Source{BuildIDDir(a)}, Wanted{Path: "bin"})
	if got != "" || len(tried) != 0 {
		t.Errorf("find without a build-id = %q, %q; want nothing tried", got, tried)
	}
	l := &Locator{Kernel: []Source{BuildIDDir(a)}}
	_, err = l.OpenKernel(Kernel{Release: "6.1.0", BuildID: "abcdef"})
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, ErrNoDebugInfo) || nf.Release != "6.1.0" || len(nf.Tried) != 1 {
		t.Errorf("OpenKernel = %v; want a NotFoundError for 6.1.0 with one place tried", err)
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
