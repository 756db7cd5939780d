package sources

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestSources: perf's rule under the root first, then the prefix maps;
// lazy patterns read the file found, and a missing one is a SourceError
// listing the paths tried.
func TestSources(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "fs"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "fs", "a.c")
	if err := os.WriteFile(file, []byte("int x;\nret = f(1);\nreturn ret;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := New(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p, _, ok := s.Find("build/fs/a.c", "/b"); !ok || p != dir+"//fs/a.c" {
		t.Errorf("under the root: %q, %v", p, ok)
	}
	m, err := New("", []string{"/build/linux=" + dir})
	if err != nil {
		t.Fatal(err)
	}
	if p, _, ok := m.Find("fs/a.c", "/build/linux"); !ok || p != file {
		t.Errorf("through the prefix map: %q, %v", p, ok)
	}
	lines, err := m.LazyLines("ret=f*")("fs/a.c", "/build/linux")
	if err != nil || !reflect.DeepEqual(lines, map[int]bool{2: true}) {
		t.Errorf("lazy lines %v, %v", lines, err)
	}
	_, err = m.LazyLines("x")("fs/b.c", "/build/linux")
	var se *SourceError
	if !errors.As(err, &se) || !errors.Is(err, fs.ErrNotExist) || len(se.Tried) == 0 {
		t.Errorf("missing source: %v", err)
	}
	if _, err := New("", []string{"nomap"}); err == nil {
		t.Error("a prefix map without '=' accepted")
	}
}

// TestCompDirRelative: a file under the unit's compilation directory is
// searched under -s by its name relative to it, as elfutils names a file
// of a relative include directory (rustc's rust/kernel/lib.rs), so the
// path found has no doubled slash.
func TestCompDirRelative(t *testing.T) {
	for _, tt := range []struct{ raw, compDir, rel string }{
		{"/build/linux/rust/kernel/lib.rs", "/build/linux", "rust/kernel/lib.rs"},
		{"/build/linux/rust/kernel/lib.rs", "/build/linux/", "rust/kernel/lib.rs"},
		{"rust/kernel/lib.rs", "/build/linux", ""},
		{"debian/build/build_amd64_none_cloud-amd64/rust/kernel/lib.rs", "debian/build/build_amd64_none_cloud-amd64", "rust/kernel/lib.rs"},
		{"fs/read_write.c", "debian/build/build_amd64_none_cloud-amd64", ""},
		{"/build/linux-6.1/arch/x86/entry/entry_64.S", "/build/linux-6.1/debian/build", ""},
		{"/build/linuxx/a.c", "/build/linux", ""},
		{"/build/linux/", "/build/linux", ""},
		{"/a.c", "", ""},
		{"a.c", "", ""},
	} {
		rel, ok := compDirRelative(tt.raw, tt.compDir)
		if rel != tt.rel || ok != (tt.rel != "") {
			t.Errorf("compDirRelative(%q, %q) = %q, %v; want %q", tt.raw, tt.compDir, rel, ok, tt.rel)
		}
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "rust", "kernel"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "rust", "kernel", "lib.rs"), []byte("fn panic() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := New(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p, _, ok := s.Find("/build/linux/rust/kernel/lib.rs", "/build/linux"); !ok || p != root+"/rust/kernel/lib.rs" {
		t.Errorf("a file of a relative include directory: %q, %v; want %s/rust/kernel/lib.rs", p, ok, root)
	}
	// Outside the compilation directory, perf's cuts stand: ROOT//tail.
	if p, _, ok := s.Find("/elsewhere/rust/kernel/lib.rs", "/build/linux"); !ok || p != root+"//rust/kernel/lib.rs" {
		t.Errorf("outside the compilation directory: %q, %v", p, ok)
	}
}
