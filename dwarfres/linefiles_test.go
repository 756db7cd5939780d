package dwarfres

import (
	"slices"
	"strings"
	"testing"
)

// TestLineFilesAsDWARF: the file names readLineFiles gives (through
// fileNames) are debug/dwarf's, unit by unit, for the fixtures of each
// compiler and DWARF version and every unit of the 6.1 (DWARF 4) and
// 6.12 (DWARF 5) vmlinux; and it reads them itself, not through its
// debug/dwarf fallback, for gcc's units (clang's DWARF 5 roots name
// their directory by DW_FORM_strx, left to debug/dwarf).
func TestLineFilesAsDWARF(t *testing.T) {
	files := variantsAnd(t, "amd64/vmlinux", "6.12/amd64/vmlinux")
	for _, path := range files {
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		units, err := f.unitsList()
		if err != nil {
			t.Fatal(err)
		}
		read, compared := 0, 0
		var lf lineFiles
		for i := range units {
			u := &units[i]
			if !u.holdsCode() {
				continue
			}
			p := lineProgram{f, u}
			want, werr := p.fileNamesDWARF()
			got, gerr := p.fileNames()
			if (werr == nil) != (gerr == nil) || !slices.Equal(got, want) {
				t.Fatalf("%s: unit at %#x: files %q (%v), debug/dwarf's %q (%v)", path, u.off, got, gerr, want, werr)
			}
			compared++
			if p.readLineFiles(&lf) {
				read++
			}
		}
		if compared == 0 || read < compared*9/10 && !strings.Contains(path, "clang") {
			t.Errorf("%s: %d of %d units' tables read without debug/dwarf", path, read, compared)
		}
		f.Close()
	}
}
