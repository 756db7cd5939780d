package probegen

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
	s, err := NewSources(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p, _, ok := s.Find("build/fs/a.c", "/b"); !ok || p != dir+"//fs/a.c" {
		t.Errorf("under the root: %q, %v", p, ok)
	}
	m, err := NewSources("", []string{"/build/linux=" + dir})
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
	if _, err := NewSources("", []string{"nomap"}); err == nil {
		t.Error("a prefix map without '=' accepted")
	}
}
