package dwarftest

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"testing"
)

// CopyFile copies src to dst with permissions perm, making dst's
// directory, and returns dst: tests probe, damage or rename a copy, never
// the shared fixture.
func CopyFile(t testing.TB, src, dst string, perm os.FileMode) string {
	t.Helper()
	return CopyEdited(t, src, dst, perm, nil)
}

// CopyEdited is CopyFile with the bytes of src passed through edit (a
// corruption such as EmptyLineFiles) on the way; an error from edit fails
// the test.
func CopyEdited(t testing.TB, src, dst string, perm os.FileMode, edit func([]byte) ([]byte, error)) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		if b, err = edit(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, perm); err != nil {
		t.Fatal(err)
	}
	return dst
}

// Garble returns a copy of the ELF file b with every byte of section sec
// overwritten by a pattern seeded by fill (byte i becomes fill ^ i*7), so
// that the section is garbage a reader must refuse, not zeros it might
// take for padding.
func Garble(t testing.TB, b []byte, sec string, fill byte) []byte {
	t.Helper()
	ef, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	s := ef.Section(sec)
	if s == nil {
		t.Fatalf("no %s", sec)
	}
	out := append([]byte(nil), b...)
	for i := s.Offset; i < s.Offset+s.FileSize; i++ {
		out[i] = fill ^ byte(i*7)
	}
	return out
}
